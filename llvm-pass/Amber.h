//===- Amber.h - shared declarations of the amber pass ---------*- C++ -*-===//
//
// The pass has two steps:
//   outline    (pipeline start)   find AMBER regions, check them, outline each
//                                 into a region function + descriptor, rewrite
//                                 the call site to __amber_run.
//   instrument (optimizer last)   transactional clones, access callbacks, libc
//                                 rewrites, irrevocable calls, module ctor.
// Each .cpp file holds one concern and defines the options it reads; this
// header is what they share.
//===----------------------------------------------------------------------===//
#ifndef AMBER_PASS_AMBER_H
#define AMBER_PASS_AMBER_H

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include <cstdint>
#include <string>

#include "amber_interface.h"

namespace amber {

// Names shared by the steps.
inline constexpr const char *RegionAttr = "amber-region";   // fn attribute
inline constexpr const char *DescSection = "amber_regions"; // descriptor section
inline constexpr const char *ClonePrefix = "__amber_tx_";
inline constexpr const char *AbiPrefix = "__amber_";
inline constexpr const char *InstrumentedMD = "amber.instrumented";
inline constexpr const char *CtorName = "amber.module_ctor";
// i1 (): "the region before this point was cancelled", placed by the
// outline step between a region and the code after it, replaced by the
// test of __amber_run's result once the region is outlined (Outline.cpp).
inline constexpr const char *CancelledMarker = "amber.region_cancelled";
// i1 (): false; the condition of an edge that keeps a region's exit
// reachable while its body cannot end normally (Outline.cpp).
inline constexpr const char *NeverMarker = "amber.region_never";

// Region kinds from amber.h (duplicated: amber.h is the user header).
inline constexpr unsigned KindAtomic = 1;
inline constexpr unsigned KindPersistent = 2;

//--- Abi.cpp: declarations of the runtime ABI (all extern_weak). ----------
llvm::FunctionCallee abiFunction(llvm::Module &M, llvm::StringRef Name,
                                 llvm::FunctionType *Ty);
llvm::FunctionCallee abiRun(llvm::Module &M);
llvm::FunctionCallee abiIrrevocable(llvm::Module &M);
llvm::FunctionCallee abiIrrevocableIo(llvm::Module &M);
llvm::FunctionCallee abiCloneOf(llvm::Module &M); // ptr (ptr)
// void __amber_stray_store(const char *site, const void *p)
llvm::FunctionCallee abiStrayStore(llvm::Module &M);
// Gives a call to an __amber_outside_* callback (and its declaration) the
// calling convention the runtime defines them with (preserve_most on
// x86-64) and makes it bind at load time (no lazy-binding PLT stub, which
// may clobber registers preserve_most keeps).
void setOutsideConvention(llvm::CallInst &CI);
// The extern_weak uintptr_t __amber_heap_base / __amber_heap_size.
llvm::GlobalVariable *abiGlobal(llvm::Module &M, llvm::StringRef Name);
bool isAbiName(llvm::StringRef Name);

//--- Diagnostics.cpp -------------------------------------------------------
// Reports an error (DS_Error) at I's debug location; when I has none, at
// FallbackFile:FallbackLine.  Clang prints it as "file:line:col: error: msg".
void reportError(const llvm::Function &F, const llvm::Instruction *I,
                 llvm::StringRef FallbackFile, unsigned FallbackLine,
                 const llvm::Twine &Msg);

// The same as a warning (clang: "file.c:LINE:COL: warning: ..."), at I's
// debug location when it has one.
void reportWarning(const llvm::Function &F, const llvm::Instruction *I,
                   const llvm::Twine &Msg);

//--- Descriptor.cpp --------------------------------------------------------
uint64_t fnv1a64(llvm::StringRef S);
struct DescInfo {
  unsigned Kind = KindAtomic;
  unsigned Flags = 0;
  unsigned Line = 0;
  std::string File;     // for messages and the op id
  std::string Function; // enclosing (user) function
  std::string Ordinal;  // "0", "1", ... or "fn"
  llvm::Function *RegionFn = nullptr;
  llvm::Type *ClosureTy = nullptr; // struct type of the closure
  unsigned NumInputs = 0;          // fields [0, NumInputs) are live-ins
};
llvm::GlobalVariable *emitDescriptor(llvm::Module &M, const DescInfo &D);
// All descriptors of the module, with the region function each names.
llvm::SmallVector<std::pair<llvm::GlobalVariable *, llvm::Function *>, 8>
moduleDescriptors(llvm::Module &M);
llvm::Function *descriptorFunction(llvm::GlobalVariable *Desc);
void addDescriptorFlags(llvm::GlobalVariable *Desc, unsigned Flags);
llvm::StructType *descriptorType(llvm::LLVMContext &C);

//--- RegionFinder.cpp ------------------------------------------------------
struct Region {
  llvm::CallInst *Begin = nullptr; // __amber_region_begin(kind, iso, file, line)
  llvm::CallInst *Live = nullptr;  // __amber_region_live()
  llvm::CallInst *End = nullptr;   // __amber_region_end()
  llvm::CallInst *Cancelled = nullptr; // CancelledMarker call after it, if any
  llvm::BasicBlock *BeginBB = nullptr, *LiveBB = nullptr, *Body = nullptr,
                   *Latch = nullptr, *Exit = nullptr;
  unsigned Ordinal = 0;
  unsigned Kind = KindAtomic;
  unsigned Line = 0;
  std::string File;
};
// Finds the regions of F in source order and checks that each is single
// entry / single exit.  Returns false (after reporting) on any error.
bool findRegions(llvm::Function &F, llvm::SmallVectorImpl<Region> &Out);

//--- Outline.cpp -----------------------------------------------------------
bool outlineRegions(llvm::Function &F); // true if F changed
bool outlineModule(llvm::Module &M);

//--- AtomicFn.cpp ----------------------------------------------------------
bool outlineAtomicFunctions(llvm::Module &M);

//--- Clones.cpp ------------------------------------------------------------
// Creates __amber_tx_<f> for every eligible defined function; redirects the
// direct calls made from region functions and clones.  Returns the functions
// to instrument (region functions and clones).
// CloneTable receives (original, clone) for every function that has a clone.
llvm::SmallVector<llvm::Function *, 16> makeClones(
    llvm::Module &M,
    llvm::SmallVectorImpl<std::pair<llvm::Function *, llvm::Function *>>
        &CloneTable);
bool isRegionFunction(const llvm::Function &F);
bool isCloneFunction(const llvm::Function &F);
// The symbol of the transactional clone of the function named Name:
// __amber_tx_<Name> (an asm label's "\1" stays in front).  Exported when the
// function is: other modules call it directly (ABI 6, Instrument.cpp).
std::string cloneName(llvm::StringRef Name);

//--- LibcCalls.cpp ---------------------------------------------------------
// "__amber_<name>" if Name is a libc function the runtime wraps, else "".
llvm::StringRef libcReplacement(llvm::StringRef Name);
// The same, restricted to the functions that write memory (memcpy, memmove,
// memset, strcpy, strncpy, strcat, strncat).
llvm::StringRef libcWriterReplacement(llvm::StringRef Name);
// Outside regions: the wrapper of a libc function that reads or writes
// memory through its pointer arguments (the writers above, and memcmp
// memchr strlen strnlen strcmp strncmp strchr strrchr strdup strndup), else
// "".  Writes is set for the writers (their first argument is written).
llvm::StringRef libcOutsideReplacement(llvm::StringRef Name, bool &Writes);
// True for a libc function with outside effects that writes no program
// memory (fsync, syslog, exit, ...): it makes a region irrevocable.
bool isIoCall(llvm::StringRef Name);
// True for an output function whose output libamber holds until the
// region's commit (printf, puts, fwrite, write, ...): a plain call.
bool isHeldOutputCall(llvm::StringRef Name);
// qsort, qsort_r, bsearch: libamber runs them inside the region's
// transaction (wrappers/sort.c).
bool isRegionWrappedCall(llvm::StringRef Name);
// C99 math functions whose only side effect is errno (thread-private).
bool isErrnoOnlyCall(llvm::StringRef Name);
// True for a function libamber's interceptors (wrappers/) serve on heap
// arguments (AMBER_INTERCEPTED in runtime/CMakeLists.txt, generated into
// amber_intercepted.inc), or that the pass rewrites to a runtime wrapper.
bool isIntercepted(llvm::StringRef Name);

//--- Instrument.cpp --------------------------------------------------------
struct FunctionResult {
  bool Changed = false;
  bool Irrevocable = false; // has a call marked irrevocable (I/O, a library function, asm, ...)
};
FunctionResult instrumentFunction(llvm::Function &F);
bool instrumentModule(llvm::Module &M);
// Replaces one load / store / atomicrmw / cmpxchg / memory intrinsic by its
// callback, unconditionally (used by the outside-region instrumentation on
// the persistent side of its range check).  False if it has no callback.
// Outside mode: the __amber_outside_* callbacks (Site, the access's
// "file:line" string, goes to those of writes).
bool rewriteWithCallback(llvm::Instruction &I, llvm::Constant *Site);
// Bytes of a sized access callback (__amber_load1/2/4/8 ...) for a value of
// type T, or 0 when T needs the generic (ptr, size) form.
unsigned callbackBytes(const llvm::DataLayout &DL, llvm::Type *T);
// The per-class switches -amber-instrument-{loads,stores,atomics,
// memintrinsics,calls}: each turns its class off both in regions and
// outside them (Outside.cpp reads them too).
extern llvm::cl::opt<bool> ClLoads, ClStores, ClAtomics, ClMemIntrinsics,
    ClCalls;

//--- Outside.cpp -----------------------------------------------------------
// Range checks on the loads, stores, atomics, memory intrinsics and libc
// calls of the functions outside regions (the originals: not region
// functions, clones or the pass's own), in every module, since any code may
// be handed a pointer into the heap.  True if the module changed.  The
// outside-region options (-amber-instrument-outside, -amber-instrument-
// outside-loads, -amber-outside-share-checks) are Outside.cpp's own.
bool instrumentOutsideModule(llvm::Module &M);
// Addr is provably not in the heap window: its underlying objects are all
// allocas, global variables or byval arguments (or another address space).
bool notPersistent(llvm::Value *Addr);

//--- ExternalCalls.cpp -----------------------------------------------------
// Remarks (pass name "amber-libcall", shown by amber-cc) for calls to
// library functions libamber does not intercept with a pointer argument
// that may point into the heap (strict mode faults there at run time).
// Runs on the module as the front end left it, before any rewriting.
void remarkExternalCalls(llvm::Module &M);

//--- Annotations.cpp -------------------------------------------------------
// Calls Fn for every global carrying __attribute__((annotate(Name))), with
// the attribute's source file and line (empty, 0 when absent).
void forEachAnnotated(
    llvm::Module &M, llvm::StringRef Name,
    llvm::function_ref<void(llvm::GlobalValue *GV, llvm::StringRef File, unsigned Line)> Fn);

//--- ModuleCtor.cpp --------------------------------------------------------
// The AMBER_UNISOLATED variables the module defines.
llvm::SmallVector<llvm::GlobalVariable *, 4> unisolatedGlobals(llvm::Module &M);
// Also emits the clone table amber.clones and registers it when non-empty,
// and likewise the module's AMBER_UNISOLATED variables.
// And the code table amber.code of CodeFns (addressTakenFunctions, taken
// before the clones exist), registered when non-empty.
void emitModuleCtor(
    llvm::Module &M,
    llvm::ArrayRef<std::pair<llvm::Function *, llvm::Function *>> CloneTable,
    llvm::ArrayRef<llvm::Function *> CodeFns);
// The functions whose address the module takes, defined there or not.
llvm::SmallVector<llvm::Function *, 8> addressTakenFunctions(llvm::Module &M);
// Warns at each store of a function's address as an integer to memory that
// may be persistent: the heap would keep it raw (no handle).
void warnCodeAsInteger(llvm::Module &M);

} // namespace amber

#endif
