//===- ExternalCalls.cpp - remarks on library calls given heap pointers ---===//
//
// A library function libamber does not intercept reads and writes its
// arguments itself, where no callback and no interceptor sees it: on a
// pointer into the heap's canonical window it faults at run time (strict
// mode, docs/guide.md 4.1).  So for each such call whose pointer argument
// may point into the heap (the outside-region analysis: not provably the
// stack or a global), the pass says so at compile time, at the call's
// file:line, as an analysis remark of pass "amber-libcall", which amber-cc
// shows (-Rpass-analysis=amber-libcall; -Rno-pass-analysis hides it).
//
// Not noise: only callees known to be library code are reported, the C
// library and libm as LLVM's TargetLibraryInfo knows them, and zlib's entry
// points; a function of the program declared here and defined in another
// file may be amber-instrumented, and is never reported.  Functions that
// take no pointer, or only read none of their memory (readnone), are
// skipped, as are those libamber intercepts (isIntercepted).  A stdio
// stream argument is never reported: the C library allocates every FILE
// (fopen, fdopen, popen, fmemopen, tmpfile, stdin/stdout/stderr), so a
// FILE * cannot point into the heap (fflush(stdout) was a false positive).
//===----------------------------------------------------------------------===//
#include "Amber.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace amber {

// zlib's functions that read or write caller buffers (zlib.h).
static bool isZlibFunction(StringRef Name) {
  return StringSwitch<bool>(Name)
      .Cases("crc32", "crc32_z", "adler32", "adler32_z", true)
      .Cases("compress", "compress2", "uncompress", "uncompress2", true)
      .Cases("deflate", "deflateInit_", "deflateInit2_", "deflateEnd", true)
      .Cases("deflateSetDictionary", "deflateBound", "deflateReset", true)
      .Cases("inflate", "inflateInit_", "inflateInit2_", "inflateEnd", true)
      .Cases("inflateSetDictionary", "inflateReset", true)
      .Cases("gzread", "gzwrite", "gzputs", "gzgets", "gzfread", "gzfwrite",
             true)
      .Default(false);
}

// The arguments (bit K: argument K) of a stdio function that are its FILE *
// stream; the other pointer arguments (setvbuf's buffer, fgetpos's fpos_t)
// are still checked.
static unsigned streamArguments(StringRef Name) {
  return StringSwitch<unsigned>(Name)
      .Cases("fclose", "fflush", "fflush_unlocked", "fileno",
             "fileno_unlocked", "feof", "feof_unlocked", 1u)
      .Cases("ferror", "ferror_unlocked", "clearerr", "clearerr_unlocked",
             "rewind", "pclose", 1u)
      .Cases("fseek", "fseeko", "fseeko64", "ftell", "ftello", "ftello64", 1u)
      .Cases("fgetpos", "fgetpos64", "fsetpos", "fsetpos64", 1u)
      .Cases("fgetc", "getc", "fgetc_unlocked", "getc_unlocked", "getw", 1u)
      .Cases("setbuf", "setvbuf", "setbuffer", "setlinebuf", "fpurge",
             "__fpurge", 1u)
      .Cases("flockfile", "funlockfile", "ftrylockfile", "fwide", 1u)
      .Cases("fputc", "putc", "fputc_unlocked", "putc_unlocked", "ungetc",
             "putw", 2u)
      .Default(0u);
}

static bool isLibraryFunction(const Function &F, const TargetLibraryInfo &TLI) {
  LibFunc LF;
  return (TLI.getLibFunc(F, LF) && TLI.has(LF)) || isZlibFunction(F.getName());
}

void remarkExternalCalls(Module &M) {
  TargetLibraryInfoImpl TLII(Triple(M.getTargetTriple()));
  TargetLibraryInfo TLI(TLII);
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    std::unique_ptr<OptimizationRemarkEmitter> ORE;
    for (Instruction &I : instructions(F)) {
      auto *CB = dyn_cast<CallBase>(&I);
      if (!CB || isa<IntrinsicInst>(CB))
        continue;
      Function *Callee =
          dyn_cast<Function>(CB->getCalledOperand()->stripPointerCasts());
      if (!Callee || !Callee->isDeclaration() || Callee->isIntrinsic() ||
          isAbiName(Callee->getName()) || isIntercepted(Callee->getName()) ||
          CB->doesNotAccessMemory() || !isLibraryFunction(*Callee, TLI))
        continue;
      unsigned Arg = 0, Streams = streamArguments(Callee->getName());
      for (unsigned K = 0; K < CB->arg_size() && !Arg; K++) {
        Value *V = CB->getArgOperand(K);
        if (K < 32 && (Streams >> K & 1u))
          continue;
        if (V->getType()->isPointerTy() && !isa<ConstantPointerNull>(V) &&
            !notPersistent(V) && !CB->doesNotAccessMemory(K))
          Arg = K + 1;
      }
      if (!Arg)
        continue;
      if (!ORE)
        ORE = std::make_unique<OptimizationRemarkEmitter>(&F);
      ORE->emit([&] {
        OptimizationRemarkAnalysis R("amber-libcall", "PersistentArgument", CB);
        R << "call to " << ore::NV("Callee", Callee->getName())
          << " may pass persistent memory (argument " << ore::NV("Arg", Arg)
          << ") to a library function libamber does not intercept: in strict "
             "mode its access faults at run time; copy the data to a local "
             "buffer first (docs/wrappers.md)";
        return R;
      });
    }
  }
}

} // namespace amber
