//===- Instrument.cpp - access callbacks in region functions and clones ---===//
//
// Like ThreadSanitizer: first choose the instructions to instrument, then
// rewrite them.  Every load, store, atomic, memory intrinsic and call in a
// region function or transactional clone becomes a call into the runtime,
// which performs the access.  Skipped (provably not persistent): accesses to
// non-escaping allocas, constant globals, other address spaces, and the
// region's own closure (it lives in the caller's stack frame).  Calls: libc
// wrappers, __amber_clone_of for indirect calls, the other module's clone
// (or __amber_clone_of when it has none) for direct calls to other modules,
// none for output the runtime holds until the commit (printf, write, ...),
// __amber_irrevocable_io for other known I/O, __amber_irrevocable for the rest.
// instrumentModule also drives the clones, the outside-region range checks
// (Outside.cpp) and the module constructor with its clone table.
//===----------------------------------------------------------------------===//
#include "Amber.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/CaptureTracking.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Support/AtomicOrdering.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include <algorithm>
#include <cstddef>

using namespace llvm;

#define DEBUG_TYPE "amber"

// The per-class switches (declared in Amber.h).  They are defined here, with
// the callbacks each one turns off, and not in a file of their own: the
// outside-region instrumentation (Outside.cpp) reads them too only because
// its cold side is this file's rewrite (rewriteWithCallback), so one switch
// keeps a class off inside and outside regions alike.
namespace amber {
cl::opt<bool> ClLoads("amber-instrument-loads", cl::init(true), cl::Hidden,
                      cl::desc("Instrument loads in AMBER regions"));
cl::opt<bool> ClStores("amber-instrument-stores", cl::init(true), cl::Hidden,
                       cl::desc("Instrument stores in AMBER regions"));
cl::opt<bool>
    ClAtomics("amber-instrument-atomics", cl::init(true), cl::Hidden,
              cl::desc("Instrument atomic loads, stores, RMW and cmpxchg"));
cl::opt<bool> ClMemIntrinsics(
    "amber-instrument-memintrinsics", cl::init(true), cl::Hidden,
    cl::desc("Instrument memset, memcpy and memmove intrinsics"));
cl::opt<bool> ClCalls(
    "amber-instrument-calls", cl::init(true), cl::Hidden,
    cl::desc("Rewrite libc calls and mark calls to unseen code irrevocable"));
} // namespace amber

static cl::opt<bool> ClInlineLoads(
    "amber-inline-loads", cl::init(true), cl::Hidden,
    cl::desc("Inline the plain loads of region functions and clones, taken "
             "as __amber_read_state() says at the function's entry"));

static cl::opt<bool> ClDirectClones(
    "amber-direct-clones", cl::init(true), cl::Hidden,
    cl::desc("Call another module's function through its exported clone "
             "__amber_tx_<name> (extern_weak) when linked, __amber_clone_of "
             "otherwise; false: always __amber_clone_of (ABI 5's code, for "
             "comparisons)"));

static cl::opt<bool> ClCodePointers(
    "amber-code-pointers", cl::init(true), cl::Hidden,
    cl::desc("Load and store pointer-typed values through __amber_loadp / "
             "__amber_storep, which keep code addresses valid in the heap"));

STATISTIC(NumLoads, "Number of loads instrumented (sized callback)");
STATISTIC(NumStores, "Number of stores instrumented (sized callback)");
STATISTIC(NumOrderedStores, "Number of atomic or volatile stores instrumented "
                            "(__amber_atomic_storeN)");
STATISTIC(NumPtrLoads, "Number of pointer loads instrumented (__amber_loadp)");
STATISTIC(NumPtrStores, "Number of pointer stores instrumented (__amber_storep)");
STATISTIC(NumInlineLoads, "Number of loads given an inline path (ABI 5)");
STATISTIC(NumLoadsN, "Number of loads instrumented (generic callback)");
STATISTIC(NumStoresN, "Number of stores instrumented (generic callback)");
STATISTIC(NumAtomics, "Number of atomic accesses instrumented");
STATISTIC(NumMemIntrinsics, "Number of memory intrinsics instrumented");
STATISTIC(NumLibcCalls, "Number of libc calls rewritten");
STATISTIC(NumIrrevocable, "Number of calls made irrevocable");
STATISTIC(NumIrrevocableIo, "Number of I/O calls made irrevocable (io)");
STATISTIC(NumCloneOf, "Number of indirect or external calls resolved through "
                      "__amber_clone_of");
STATISTIC(NumDirectClone, "Number of external calls to another module's clone "
                          "by name (__amber_clone_of only when not linked)");
STATISTIC(NumSkipLocal, "Number of accesses to non-escaping allocas skipped");
STATISTIC(NumSkipConst, "Number of accesses to constant globals skipped");
STATISTIC(NumSkipClosure, "Number of accesses to the region closure skipped");
STATISTIC(NumSkipAddrSpace, "Number of accesses to other address spaces "
                            "skipped");

namespace amber {
namespace {

// Why a call site inside a region or clone was marked (for remarks).
enum class SiteKind {
  Irrevocable, // __amber_irrevocable(): the callee cannot be instrumented
  Io,          // __amber_irrevocable_io(): known I/O, writes no memory
  Resolved,    // __amber_clone_of(): resolved at run time
};
struct Site {
  CallBase *CB; // null for an atomic of a width without callback
  SiteKind Kind;
  Function *Callee = nullptr; // a Resolved direct call's callee
};

class Instrumenter {
public:
  Instrumenter(Function &F)
      : F(F), M(*F.getParent()), C(F.getContext()), DL(M.getDataLayout()),
        Ptr(PointerType::getUnqual(C)), I32(Type::getInt32Ty(C)),
        SizeT(DL.getIntPtrType(C)) {
    if (isRegionFunction(F) && F.arg_size() >= 1)
      Closure = F.getArg(0);
  }

  FunctionResult run();
  SmallVector<Site, 4> IrrevocableSites;
  // Outside mode: rewrite the given access unconditionally (the caller has
  // already range-checked it), with the __amber_outside_* callbacks; Site
  // names the access for the stray-store counts.
  bool Outside = false;
  Constant *Site = nullptr;
  bool rewrite(Instruction *I);

private:
  Function &F;
  Module &M;
  LLVMContext &C;
  const DataLayout &DL;
  PointerType *Ptr;
  IntegerType *I32;
  IntegerType *SizeT;
  Value *Closure = nullptr;
  DenseMap<const Value *, bool> CapturedCache;
  // The inline-load state, made at the function's entry by the first load
  // that gets an inline path: __amber_read_state() and what the frame keeps
  // of it (its mode as three flags, the mvcc fields), the heap window and
  // alias delta.
  Value *Reads = nullptr, *Direct = nullptr, *Mv = nullptr, *Track = nullptr,
        *Shift = nullptr, *Mask = nullptr, *Table = nullptr, *Installed = nullptr,
        *Self = nullptr,
        *Settled = nullptr, *VTab = nullptr, *VMask = nullptr,
        *VSettled = nullptr;
  Value *HeapBase = nullptr, *HeapSize = nullptr, *HeapDelta = nullptr;

  bool skipAddress(Value *Addr);
  unsigned sizedBytes(Type *T); // 1/2/4/8 for a sized callback, else 0
  bool isCodeCarrier(Type *T);  // loaded/stored through __amber_loadp/storep
  Value *toInt(IRBuilder<> &B, Value *V, unsigned Bytes);
  Value *fromInt(IRBuilder<> &B, Value *V, Type *T);
  AllocaInst *tempAlloca(Type *T);
  // Calls __amber_<Base><Bytes>(Args) (Bytes 0: no suffix).  In Outside
  // mode: __amber_outside_<Base><Bytes>, with the site appended for writes.
  // Returns the result: the call's, or in Outside mode element 0 of the
  // <2 x i64> it returns, truncated to Ret.
  Value *emit(IRBuilder<> &B, StringRef Base, unsigned Bytes, Type *Ret,
              ArrayRef<Type *> Params, ArrayRef<Value *> Args, bool Writes);

  bool instrumentLoad(LoadInst *LI);
  bool inlineLoad(LoadInst *LI);
  void makeDirectState();
  bool instrumentStore(StoreInst *SI);
  bool instrumentRMW(AtomicRMWInst *RMW);
  bool instrumentCAS(AtomicCmpXchgInst *CAS);
  bool instrumentMemIntrinsic(MemIntrinsic *MI);
  bool instrumentCall(CallBase *CB, bool &Irrevocable);
  void makeIrrevocable(Instruction *Before);
  void makeIrrevocableIo(Instruction *Before);
  void resolveAtRunTime(CallBase *CB);
  void callCloneOrResolve(CallBase *CB, Function *Callee);
  bool isKnownLibFunction(const Function &Callee);
};

} // namespace

unsigned callbackBytes(const DataLayout &DL, Type *T) {
  if (!(T->isIntegerTy() || T->isPointerTy() || T->isHalfTy() ||
        T->isBFloatTy() || T->isFloatTy() || T->isDoubleTy()))
    return 0;
  if (T->isPointerTy() && T->getPointerAddressSpace() != 0)
    return 0;
  TypeSize Bits = DL.getTypeSizeInBits(T);
  if (Bits.isScalable() || DL.getTypeStoreSizeInBits(T) != Bits)
    return 0;
  uint64_t B = Bits.getFixedValue();
  return (B == 8 || B == 16 || B == 32 || B == 64) ? B / 8 : 0;
}

// A closure the pass built for __amber_run in this frame: only addressed
// directly or through GEPs by loads and stores, and passed as the closure.
// It is this frame's scratch space, never persistent.
static bool isRegionClosure(const Value *V) {
  for (const User *U : V->users()) {
    if (auto *GEP = dyn_cast<GetElementPtrInst>(U)) {
      if (GEP->getPointerOperand() != V || !isRegionClosure(GEP))
        return false;
    } else if (auto *LI = dyn_cast<LoadInst>(U)) {
      if (LI->getPointerOperand() != V)
        return false;
    } else if (auto *SI = dyn_cast<StoreInst>(U)) {
      if (SI->getPointerOperand() != V || SI->getValueOperand() == V)
        return false;
    } else if (auto *CB = dyn_cast<CallBase>(U)) {
      auto *Callee = dyn_cast_or_null<Function>(
          CB->getCalledOperand()->stripPointerCasts());
      if (auto *II = dyn_cast<IntrinsicInst>(CB))
        if (II->isLifetimeStartOrEnd())
          continue;
      if (!Callee || Callee->getName() != "__amber_run" ||
          CB->arg_size() < 2 || CB->getArgOperand(1) != V)
        return false;
      for (unsigned I = 0, E = CB->arg_size(); I != E; ++I)
        if (I != 1 && CB->getArgOperand(I) == V)
          return false;
    } else {
      return false;
    }
  }
  return true;
}

bool Instrumenter::skipAddress(Value *Addr) {
  if (Outside)
    return false;
  if (Addr->getType()->getPointerAddressSpace() != 0) {
    ++NumSkipAddrSpace;
    return true;
  }
  const Value *Obj = getUnderlyingObject(Addr, /*MaxLookup=*/0);
  if (Closure && Obj == Closure) {
    ++NumSkipClosure;
    return true;
  }
  if (auto *GV = dyn_cast<GlobalVariable>(Obj))
    if (GV->isConstant()) {
      ++NumSkipConst;
      return true;
    }
  if (isa<AllocaInst>(Obj)) {
    auto It = CapturedCache.find(Obj);
    bool Captured;
    if (It != CapturedCache.end())
      Captured = It->second;
    else
      Captured = CapturedCache[Obj] =
          !isRegionClosure(Obj) &&
          PointerMayBeCaptured(Obj, /*ReturnCaptures=*/true,
                               /*StoreCaptures=*/true);
    if (!Captured) {
      ++NumSkipLocal;
      return true;
    }
  }
  return false;
}

unsigned Instrumenter::sizedBytes(Type *T) { return callbackBytes(DL, T); }

// A value that may be a code address: a pointer of address space 0, 8 bytes.
bool Instrumenter::isCodeCarrier(Type *T) {
  return ClCodePointers && T->isPointerTy() && T->getPointerAddressSpace() == 0 &&
         DL.getTypeStoreSize(T) == 8;
}

Value *Instrumenter::toInt(IRBuilder<> &B, Value *V, unsigned Bytes) {
  Type *IT = B.getIntNTy(Bytes * 8);
  Type *T = V->getType();
  if (T == IT)
    return V;
  if (T->isPointerTy())
    return B.CreatePtrToInt(V, IT);
  return B.CreateBitCast(V, IT);
}

Value *Instrumenter::fromInt(IRBuilder<> &B, Value *V, Type *T) {
  if (V->getType() == T)
    return V;
  if (T->isPointerTy())
    return B.CreateIntToPtr(V, T);
  return B.CreateBitCast(V, T);
}

AllocaInst *Instrumenter::tempAlloca(Type *T) {
  BasicBlock &Entry = F.getEntryBlock();
  IRBuilder<> B(&Entry, Entry.getFirstInsertionPt());
  AllocaInst *AI = B.CreateAlloca(T, nullptr, "amber.tmp");
  AI->setAlignment(DL.getPrefTypeAlign(T));
  return AI;
}

Value *Instrumenter::emit(IRBuilder<> &B, StringRef Base, unsigned Bytes,
                          Type *Ret, ArrayRef<Type *> Params,
                          ArrayRef<Value *> Args, bool Writes) {
  std::string Name = ((Outside ? "__amber_outside_" : "__amber_") + Base).str();
  if (Bytes)
    Name += std::to_string(Bytes);
  SmallVector<Type *, 6> Ps(Params.begin(), Params.end());
  SmallVector<Value *, 6> As(Args.begin(), Args.end());
  if (!Outside) {
    FunctionCallee FC = abiFunction(M, Name, FunctionType::get(Ret, Ps, false));
    return B.CreateCall(FC, As);
  }
  // The outside variants take the site of a write last, and return a
  // result (the value loaded, the old value of an atomic) in element 0 of a
  // <2 x i64> (amber_word_t: XMM0 on x86-64, which preserve_most leaves to
  // the return; LLVM 16 restores RAX in a preserve_most callee).
  if (Writes) {
    Ps.push_back(Ptr);
    As.push_back(Site ? Site : ConstantPointerNull::get(Ptr));
  }
  Type *Word = FixedVectorType::get(B.getInt64Ty(), 2);
  FunctionCallee FC = abiFunction(
      M, Name,
      FunctionType::get(Ret->isVoidTy() ? Ret : Word, Ps, false));
  CallInst *CI = B.CreateCall(FC, As);
  setOutsideConvention(*CI);
  if (Ret->isVoidTy())
    return CI;
  return B.CreateTrunc(B.CreateExtractElement(CI, uint64_t(0)), Ret);
}

// Once per function, at its entry: how the running transaction's loads may
// be done inline (amber_interface.h, "Inline loads inside regions"), and the
// heap window and alias delta.  It holds until this frame is left, so one
// call serves every load of the frame.
void Instrumenter::makeDirectState() {
  if (Reads)
    return;
  BasicBlock &Entry = F.getEntryBlock();
  IRBuilder<> B(&Entry, Entry.getFirstInsertionPt());
  FunctionCallee RS =
      abiFunction(M, "__amber_read_state", FunctionType::get(Ptr, false));
  Reads = B.CreateCall(RS, {}, "amber.reads");
  auto Field = [&](Type *T, size_t Off, const char *Name) {
    return B.CreateAlignedLoad(
        T, B.CreateConstGEP1_64(B.getInt8Ty(), Reads, Off), Align(4), Name);
  };
  Value *Mode = Field(I32, offsetof(__amber_reads, mode), "amber.read_mode");
  Direct = B.CreateICmpEQ(Mode, ConstantInt::get(I32, AMBER_READS_DIRECT));
  Mv = B.CreateICmpUGE(Mode, ConstantInt::get(I32, AMBER_READS_MVCC));
  Track = B.CreateICmpEQ(Mode, ConstantInt::get(I32, AMBER_READS_MVCC_LOG));
  Shift = B.CreateZExt(Field(I32, offsetof(__amber_reads, shift), "amber.shift"),
                       SizeT);
  Mask = B.CreateSub(B.CreateShl(ConstantInt::get(SizeT, 1), Shift),
                     ConstantInt::get(SizeT, 1), "amber.block_mask");
  Table = Field(Ptr, offsetof(__amber_reads, table), "amber.table");
  Installed =
      Field(Ptr, offsetof(__amber_reads, installed), "amber.installed_map");
  Self = Field(Ptr, offsetof(__amber_reads, self), "amber.self");
  Settled = Field(B.getInt64Ty(), offsetof(__amber_reads, settled),
                  "amber.settled");
  VTab = Field(Ptr, offsetof(__amber_reads, vtab), "amber.vtab");
  VMask = Field(B.getInt64Ty(), offsetof(__amber_reads, vmask), "amber.vmask");
  VSettled = Field(B.getInt64Ty(), offsetof(__amber_reads, vsettled),
                   "amber.vsettled");
  HeapBase = B.CreateLoad(SizeT, abiGlobal(M, "__amber_heap_base"),
                          "amber.heap_base");
  HeapSize = B.CreateLoad(SizeT, abiGlobal(M, "__amber_heap_size"),
                          "amber.heap_size");
  HeapDelta = B.CreateLoad(SizeT, abiGlobal(M, "__amber_heap_delta"),
                           "amber.heap_delta");
}

// A plain load of 1, 2, 4 or 8 bytes (or a vector of up to 64) in a region
// function or clone:
//   if (direct) {                                   // romulus
//     off = p - heap_base;
//     if (off < heap_size - (N - 1)) v = *(p + heap_delta);  // in the heap
//     else if (off >= heap_size) v = *p;                      // ordinary
//     else v = __amber_loadN(p);        // runs past the heap's end: fatal
//   } else if (mv) {                                // mvcc
//     off = p - heap_base;
//     if (off < heap_size - (N - 1) && in one block) {
//       blk = off >> shift;
//       if (!(installed[blk / 64] >> blk % 64 & 1)) src = p + heap_delta;  // the master
//       else if ((c = table + blk * 32)->lock && !(c->lock & 1) && c->lock->owner == self)
//         src = c->lock->data + in;     // this transaction's own pending copy
//       else if (c->lock) goto slow;
//       else if (!c->head) src = c->ckpt ? c->ckpt + in : p + heap_delta;
//       else if (c->head->owner == self && c->head->cts < settled)
//         src = c->head->data + in;                  // an own older version
//       else goto slow;
//       if (track) { if (n == cap) goto slow; push the block unless last }
//       v = *src;
//     } else slow: v = __amber_loadN(p);
//   } else v = __amber_loadN(p);
// A pointer-typed value that is a code handle goes to __amber_loadp, which
// turns it into the function's address.  The inline loads return what the
// runtime's callback would (entry/access.c, __amber_read_state; for mvcc,
// resolve() in engine/mvcc/txn.c and docs/engines/mvcc.md "Inline loads").
bool Instrumenter::inlineLoad(LoadInst *LI) {
  Type *T = LI->getType();
  bool Code = isCodeCarrier(T);
  unsigned N = Code ? 8 : sizedBytes(T);
  // Other first-class values of a fixed size (vectors: a vectorized loop's
  // loads) are loaded as they are; their callback is __amber_loadn.
  bool Whole = false;
  if (!N) {
    TypeSize Size = DL.getTypeStoreSize(T);
    if (Size.isScalable() || Size.getFixedValue() == 0 ||
        Size.getFixedValue() > 64 || T->isAggregateType())
      return false;
    N = Size.getFixedValue();
    Whole = true;
  }
  makeDirectState();
  Value *Addr = LI->getPointerOperand();
  Type *IT = Whole ? T : Type::getIntNTy(C, N * 8);
  Type *I64 = Type::getInt64Ty(C);
  Align A = LI->getAlign();
  // A version's data, a checkpoint copy's and the master's blocks start at
  // 16-byte boundaries at least (mvcc.h); a wider alignment is not kept.
  Align AV = std::min(A, Align(16));
  const DebugLoc &DLoc = LI->getDebugLoc();

  BasicBlock *Head = LI->getParent();
  BasicBlock *Join = Head->splitBasicBlock(LI, "amber.load.join");
  Head->getTerminator()->eraseFromParent();
  auto NewBB = [&](const char *Name) {
    return BasicBlock::Create(C, Name, &F, Join);
  };
  BasicBlock *Check = NewBB("amber.load.check");
  BasicBlock *InHeap = NewBB("amber.load.heap");
  BasicBlock *Check2 = NewBB("amber.load.check2");
  BasicBlock *Ordinary = NewBB("amber.load.ordinary");
  BasicBlock *MvTest = NewBB("amber.load.mvtest");
  BasicBlock *MvCheck = NewBB("amber.load.mv");
  BasicBlock *MvCtl = NewBB("amber.load.ctl");
  BasicBlock *MvCtl2 = NewBB("amber.load.unlocked");
  BasicBlock *MvLocked = NewBB("amber.load.locked");
  BasicBlock *MvOwnChk = NewBB("amber.load.ownchk");
  BasicBlock *MvOwn = NewBB("amber.load.own");
  BasicBlock *MvCkpt = NewBB("amber.load.ckpt");
  BasicBlock *MvHead = NewBB("amber.load.head");
  BasicBlock *MvVer = NewBB("amber.load.version");
  BasicBlock *MvSrc = NewBB("amber.load.src");
  BasicBlock *MvLog = NewBB("amber.load.log");
  BasicBlock *MvRead = NewBB("amber.load.read");
  BasicBlock *Slow = NewBB("amber.load.slow");

  IRBuilder<> B(Head);
  B.SetCurrentDebugLocation(DLoc);
  B.CreateCondBr(Direct, Check, MvTest);

  B.SetInsertPoint(Check);
  Value *Off = B.CreateSub(B.CreatePtrToInt(Addr, SizeT), HeapBase, "amber.off");
  Value *Lim = B.CreateSub(HeapSize, ConstantInt::get(SizeT, N - 1));
  B.CreateCondBr(B.CreateICmpULT(Off, Lim), InHeap, Check2);

  B.SetInsertPoint(Check2);
  B.CreateCondBr(B.CreateICmpUGE(Off, HeapSize), Ordinary, Slow);

  // Each inline value, and the block it reaches the join from.
  SmallVector<std::pair<Value *, BasicBlock *>, 3> Vals;
  auto Finish = [&](Value *V) {
    Vals.push_back({V, B.GetInsertBlock()});
    if (!Code) {
      B.CreateBr(Join);
      return;
    }
    Value *Tag = B.CreateLShr(V, ConstantInt::get(IT, 48));
    B.CreateCondBr(
        B.CreateICmpEQ(Tag, ConstantInt::get(IT, AMBER_CODE_HANDLE_TAG)), Slow,
        Join);
  };
  B.SetInsertPoint(InHeap);
  Value *Alias = B.CreateGEP(B.getInt8Ty(), Addr, HeapDelta, "amber.alias");
  Finish(B.CreateAlignedLoad(IT, Alias, A));

  B.SetInsertPoint(Ordinary);
  Finish(B.CreateAlignedLoad(IT, Addr, A));

  // mvcc: the shadow table's entry, then the control header.
  B.SetInsertPoint(MvTest);
  B.CreateCondBr(Mv, MvCheck, Slow);

  B.SetInsertPoint(MvCheck);
  Value *MOff =
      B.CreateSub(B.CreatePtrToInt(Addr, SizeT), HeapBase, "amber.off");
  Value *MLim = B.CreateSub(HeapSize, ConstantInt::get(SizeT, N - 1));
  Value *Ok = B.CreateICmpULT(MOff, MLim);
  Value *Blk = B.CreateLShr(MOff, Shift, "amber.blk");
  Value *In = B.CreateAnd(MOff, Mask, "amber.in");
  // In one block: in + N - 1 <= mask (in is below the block size, at most
  // 4096, so the sum does not wrap); the same test as (off ^ (off + N - 1))
  // >> shift == 0, with in, which the loads below need anyway.
  if (N > 1)
    Ok = B.CreateAnd(
        Ok, B.CreateICmpULE(B.CreateAdd(In, ConstantInt::get(SizeT, N - 1)),
                            Mask));
  BasicBlock *MvEntry = NewBB("amber.load.entry");
  // A whole value of 8-byte words (a vectorized loop's <2 x i64>, <8 x i64>,
  // <16 x i32>, ...) may be read from ordinary memory inline too, with one
  // lock-table word for each of its words.
  unsigned VWords =
      Whole && N % 8 == 0 &&
              DL.getTypeSizeInBits(T).getFixedValue() == uint64_t(N) * 8 &&
              (!T->isPtrOrPtrVectorTy() || isa<FixedVectorType>(T))
          ? N / 8
          : 0;
  BasicBlock *MvOrdTest =
      Whole && !VWords ? Slow : NewBB("amber.load.ordtest");
  B.CreateCondBr(Ok, MvEntry, MvOrdTest);

  B.SetInsertPoint(MvEntry);
  Value *MAlias = B.CreateGEP(B.getInt8Ty(), Addr, HeapDelta, "amber.master");
  // The block's bit in the bitmap of installed headers: clear, the master;
  // set, its control header in place at table + (blk << AMBER_MV_CTL_SHIFT):
  // no pointer to follow (runtime/engine/mvcc/shadow.c).
  LoadInst *Bits = B.CreateAlignedLoad(
      I64,
      B.CreateGEP(I64, Installed,
                  B.CreateLShr(Blk, ConstantInt::get(SizeT, 6))),
      Align(8), "amber.installed");
  Bits->setAtomic(AtomicOrdering::Acquire);
  Value *Bit = B.CreateAnd(
      B.CreateLShr(Bits, B.CreateAnd(Blk, ConstantInt::get(SizeT, 63))),
      ConstantInt::get(I64, 1));
  Value *Ctl = B.CreateGEP(
      B.getInt8Ty(), Table,
      B.CreateShl(Blk, ConstantInt::get(SizeT, AMBER_MV_CTL_SHIFT)),
      "amber.ctl");
  B.CreateCondBr(B.CreateICmpEQ(Bit, ConstantInt::get(I64, 0)), MvSrc, MvCtl);

  B.SetInsertPoint(MvCtl);
  auto Word = [&](Type *Ty, Value *Base, size_t Off, AtomicOrdering O,
                  const char *Name) {
    LoadInst *L = B.CreateAlignedLoad(
        Ty, B.CreateConstGEP1_64(B.getInt8Ty(), Base, Off), Align(8), Name);
    if (O != AtomicOrdering::NotAtomic)
      L->setAtomic(O);
    return L;
  };
  // The loaded bytes' address in a version copy: its data, In bytes into
  // the block.
  auto CopyData = [&](Value *Copy, const char *Name) {
    return B.CreateGEP(
        B.getInt8Ty(),
        B.CreateConstGEP1_64(B.getInt8Ty(), Copy, AMBER_MV_COPY_DATA), In,
        Name);
  };
  Value *Lock = Word(I64, Ctl, AMBER_MV_CTL_LOCK,
                     AtomicOrdering::SequentiallyConsistent, "amber.lock");
  Value *VHead =
      Word(Ptr, Ctl, AMBER_MV_CTL_HEAD, AtomicOrdering::Acquire, "amber.vhead");
  Value *Ckpt =
      Word(Ptr, Ctl, AMBER_MV_CTL_CKPT, AtomicOrdering::Acquire, "amber.ckpt");
  B.CreateCondBr(B.CreateIsNull(Lock), MvCtl2, MvLocked);

  // Locked by this transaction: the lock word is its pending copy (even, a
  // copy whose owner is self), written by this thread alone; resolve()
  // returns that copy's data first (engine/mvcc/txn.c).
  B.SetInsertPoint(MvLocked);
  B.CreateCondBr(B.CreateICmpEQ(B.CreateAnd(Lock, ConstantInt::get(I64, 1)),
                                ConstantInt::get(I64, 0)),
                 MvOwnChk, Slow);
  B.SetInsertPoint(MvOwnChk);
  Value *LockCopy = B.CreateIntToPtr(Lock, Ptr, "amber.lockcopy");
  Value *LockOwner = Word(Ptr, LockCopy, AMBER_MV_COPY_OWNER,
                          AtomicOrdering::NotAtomic, "amber.lockowner");
  B.CreateCondBr(B.CreateICmpEQ(LockOwner, Self), MvOwn, Slow);
  B.SetInsertPoint(MvOwn);
  Value *FromOwn = CopyData(LockCopy, "amber.own_data");
  B.CreateBr(MvSrc);

  B.SetInsertPoint(MvCtl2);
  B.CreateCondBr(B.CreateIsNull(VHead), MvCkpt, MvHead);

  B.SetInsertPoint(MvCkpt);
  Value *FromCkpt = B.CreateSelect(
      B.CreateIsNull(Ckpt), MAlias,
      B.CreateGEP(B.getInt8Ty(), Ckpt, In, "amber.ckpt_data"));
  B.CreateBr(MvSrc);

  B.SetInsertPoint(MvHead);
  Value *Owner = Word(Ptr, VHead, AMBER_MV_COPY_OWNER, AtomicOrdering::NotAtomic,
                      "amber.owner");
  Value *Cts =
      Word(I64, VHead, AMBER_MV_COPY_CTS, AtomicOrdering::NotAtomic, "amber.cts");
  B.CreateCondBr(B.CreateAnd(B.CreateICmpEQ(Owner, Self),
                             B.CreateICmpULT(Cts, Settled)),
                 MvVer, Slow);

  B.SetInsertPoint(MvVer);
  Value *FromVer = CopyData(VHead, "amber.version_data");
  B.CreateBr(MvSrc);

  B.SetInsertPoint(MvSrc);
  PHINode *Src = B.CreatePHI(Ptr, 4, "amber.src");
  Src->addIncoming(MAlias, MvEntry);
  Src->addIncoming(FromCkpt, MvCkpt);
  Src->addIncoming(FromVer, MvVer);
  Src->addIncoming(FromOwn, MvOwn);
  B.CreateCondBr(Track, MvLog, MvRead);

  // Serializable and linearizable: Item (a block, or an ordinary memory
  // word's address) into the read log at LogOff / NOff / CapOff, unless it
  // is the last one there; then on to Done (a full log: the callback).
  auto Record = [&](size_t LogOff, size_t NOff, size_t CapOff, Value *Item,
                    Type *ItemTy, BasicBlock *Done) {
    BasicBlock *Last = NewBB("amber.load.last");
    BasicBlock *Last2 = NewBB("amber.load.last2");
    BasicBlock *Push = NewBB("amber.load.push");
    Value *NPtr = B.CreateConstGEP1_64(B.getInt8Ty(), Reads, NOff);
    Value *NR = B.CreateAlignedLoad(I64, NPtr, Align(8), "amber.rn");
    Value *Cap = B.CreateAlignedLoad(
        I64, B.CreateConstGEP1_64(B.getInt8Ty(), Reads, CapOff), Align(8),
        "amber.rcap");
    Value *Log = B.CreateAlignedLoad(
        Ptr, B.CreateConstGEP1_64(B.getInt8Ty(), Reads, LogOff), Align(8),
        "amber.rlog");
    B.CreateCondBr(B.CreateICmpULT(NR, Cap), Last, Slow);
    B.SetInsertPoint(Last);
    B.CreateCondBr(B.CreateICmpEQ(NR, ConstantInt::get(I64, 0)), Push, Last2);
    B.SetInsertPoint(Last2);
    Value *Prev = B.CreateAlignedLoad(
        ItemTy,
        B.CreateGEP(ItemTy, Log, B.CreateSub(NR, ConstantInt::get(I64, 1))),
        Align(8), "amber.rlast");
    B.CreateCondBr(B.CreateICmpEQ(Prev, Item), Done, Push);
    B.SetInsertPoint(Push);
    B.CreateAlignedStore(Item, B.CreateGEP(ItemTy, Log, NR), Align(8));
    B.CreateAlignedStore(B.CreateAdd(NR, ConstantInt::get(I64, 1)), NPtr,
                         Align(8));
    B.CreateBr(Done);
  };
  B.SetInsertPoint(MvLog);
  Record(offsetof(__amber_reads, log), offsetof(__amber_reads, n),
         offsetof(__amber_reads, cap), Blk, I64, MvRead);

  B.SetInsertPoint(MvRead);
  Finish(B.CreateAlignedLoad(IT, Src, AV));

  // mvcc, ordinary memory: an aligned scalar whose lock-table word is even
  // and old enough, read in place between two reads of the word (the
  // seqlock of the engine's vread).
  if (!Whole) {
    B.SetInsertPoint(MvOrdTest);
    BasicBlock *MvOrd = NewBB("amber.load.ordword");
    BasicBlock *MvOrdRead = NewBB("amber.load.ordread");
    BasicBlock *MvOrdOk = NewBB("amber.load.ordok");
    BasicBlock *MvOrdLog = NewBB("amber.load.ordlog");
    BasicBlock *MvOrdDone = NewBB("amber.load.orddone");
    Value *PI = B.CreatePtrToInt(Addr, SizeT);
    Value *Outside = B.CreateICmpUGE(MOff, HeapSize);
    Value *Aligned = B.CreateICmpEQ(
        B.CreateAnd(PI, ConstantInt::get(SizeT, N - 1)),
        ConstantInt::get(SizeT, 0));
    B.CreateCondBr(B.CreateAnd(Outside, Aligned), MvOrd, Slow);

    B.SetInsertPoint(MvOrd);
    Value *W = B.CreateGEP(
        I64, VTab,
        B.CreateAnd(B.CreateLShr(PI, ConstantInt::get(SizeT, 3)), VMask),
        "amber.vword");
    LoadInst *VW = B.CreateAlignedLoad(I64, W, Align(8), "amber.vversion");
    VW->setAtomic(AtomicOrdering::Acquire);
    Value *Even = B.CreateICmpEQ(B.CreateAnd(VW, ConstantInt::get(I64, 1)),
                                 ConstantInt::get(I64, 0));
    B.CreateCondBr(B.CreateAnd(Even, B.CreateICmpULT(VW, VSettled)),
                   MvOrdRead, Slow);

    B.SetInsertPoint(MvOrdRead);
    LoadInst *VO = B.CreateAlignedLoad(IT, Addr, Align(N), "amber.vvalue");
    VO->setAtomic(AtomicOrdering::Monotonic);
    B.CreateFence(AtomicOrdering::Acquire);
    LoadInst *VW2 = B.CreateAlignedLoad(I64, W, Align(8), "amber.vagain");
    VW2->setAtomic(AtomicOrdering::Monotonic);
    B.CreateCondBr(B.CreateICmpEQ(VW2, VW), MvOrdOk, Slow);

    B.SetInsertPoint(MvOrdOk);
    B.CreateCondBr(Track, MvOrdLog, MvOrdDone);
    B.SetInsertPoint(MvOrdLog);
    Record(offsetof(__amber_reads, vlog), offsetof(__amber_reads, vn),
           offsetof(__amber_reads, vcap), W, Ptr, MvOrdDone);

    B.SetInsertPoint(MvOrdDone);
    Finish(VO);
  } else if (VWords) {
    // The same for a whole value of VWords 8-byte words (bench/region_cost's
    // 64-byte vector load, issue [3/7] item 2): 8-byte aligned, outside the
    // heap, its lock-table words consecutive (no wrap at vmask), then each
    // word as the scalar path reads one (the engine's vread_settled,
    // runtime/engine/mvcc/vmem.c, inline).  The read log's mode takes the
    // callback (a region's first runs and writers), as does every other
    // case.
    B.SetInsertPoint(MvOrdTest);
    BasicBlock *MvOrd = NewBB("amber.load.ordwords");
    Value *PI = B.CreatePtrToInt(Addr, SizeT);
    // Its first and last bytes outside the heap: the value does not end in
    // the heap's first bytes either.
    Value *Outside = B.CreateAnd(
        B.CreateICmpUGE(MOff, HeapSize),
        B.CreateICmpUGE(B.CreateAdd(MOff, ConstantInt::get(SizeT, N - 1)),
                        HeapSize));
    Value *Aligned = B.CreateICmpEQ(B.CreateAnd(PI, ConstantInt::get(SizeT, 7)),
                                    ConstantInt::get(SizeT, 0));
    Value *Idx = B.CreateAnd(B.CreateLShr(PI, ConstantInt::get(SizeT, 3)),
                             VMask, "amber.vidx");
    Value *NoWrap = B.CreateICmpULE(
        B.CreateAdd(Idx, ConstantInt::get(SizeT, VWords - 1)), VMask);
    Value *Go = B.CreateAnd(B.CreateAnd(Outside, Aligned),
                            B.CreateAnd(NoWrap, B.CreateNot(Track)));
    B.CreateCondBr(Go, MvOrd, Slow);

    // Word by word: its lock-table word (acquire), the word's value
    // (monotonic; a plain vector load would race with a writer's stores in
    // place: discarded below, but a data race to the C model and to TSan),
    // an acquire fence, the lock-table word again; on to the next word when
    // it was even, below vsettled and unchanged, else the callback.  V2
    // makes each value one of the snapshot on its own, as for separate
    // scalar loads; a branch a word keeps one version live at a time (one
    // check after all words spilled them: 9 instructions a word here, not
    // 14).
    B.SetInsertPoint(MvOrd);
    Value *W0 = B.CreateGEP(I64, VTab, Idx, "amber.vwords");
    Value *Vec = PoisonValue::get(FixedVectorType::get(I64, VWords));
    for (unsigned I = 0; I < VWords; I++) {
      Value *W = I ? B.CreateConstGEP1_64(I64, W0, I) : W0;
      LoadInst *V = B.CreateAlignedLoad(I64, W, Align(8), "amber.vversion");
      V->setAtomic(AtomicOrdering::Acquire);
      LoadInst *X = B.CreateAlignedLoad(
          I64, B.CreateConstGEP1_64(I64, Addr, I), Align(8), "amber.vvalue");
      X->setAtomic(AtomicOrdering::Monotonic);
      B.CreateFence(AtomicOrdering::Acquire);
      LoadInst *A2 = B.CreateAlignedLoad(I64, W, Align(8), "amber.vagain");
      A2->setAtomic(AtomicOrdering::Monotonic);
      Value *Even = B.CreateICmpEQ(B.CreateAnd(V, ConstantInt::get(I64, 1)),
                                   ConstantInt::get(I64, 0));
      Value *WordOk = B.CreateAnd(B.CreateAnd(Even, B.CreateICmpULT(V, VSettled)),
                                  B.CreateICmpEQ(A2, V));
      Vec = B.CreateInsertElement(Vec, X, uint64_t(I));
      BasicBlock *Next = NewBB(I + 1 < VWords ? "amber.load.ordwords" : "amber.load.orddonen");
      B.CreateCondBr(WordOk, Next, Slow);
      B.SetInsertPoint(Next);
    }
    // Back to the loaded type (a vector of pointers through integers).
    Finish(T->isPtrOrPtrVectorTy()
               ? B.CreateIntToPtr(
                     B.CreateBitCast(Vec, FixedVectorType::get(
                                              DL.getIntPtrType(T)->getScalarType(),
                                              cast<FixedVectorType>(T)->getNumElements())),
                     T)
               : B.CreateBitCast(Vec, T));
  }

  B.SetInsertPoint(Slow);
  Value *VSlow;
  if (Whole) {
    AllocaInst *Tmp = tempAlloca(T);
    emit(B, "loadn", 0, B.getVoidTy(), {Ptr, Ptr, SizeT},
         {Tmp, Addr, ConstantInt::get(SizeT, N)}, false);
    VSlow = B.CreateLoad(T, Tmp);
  } else {
    VSlow = Code ? emit(B, "loadp", 0, B.getInt64Ty(), {Ptr}, {Addr}, false)
                 : emit(B, "load", N, IT, {Ptr}, {Addr}, false);
  }
  B.CreateBr(Join);

  B.SetInsertPoint(LI);
  PHINode *Phi = B.CreatePHI(IT, Vals.size() + 1);
  for (auto &VB : Vals)
    Phi->addIncoming(VB.first, VB.second);
  Phi->addIncoming(VSlow, Slow);
  Value *V = Code ? B.CreateIntToPtr(Phi, T) : Whole ? Phi : fromInt(B, Phi, T);
  V->takeName(LI);
  LI->replaceAllUsesWith(V);
  LI->eraseFromParent();
  ++NumInlineLoads;
  return true;
}

bool Instrumenter::instrumentLoad(LoadInst *LI) {
  Type *T = LI->getType();
  Value *Addr = LI->getPointerOperand();
  if (!Outside && ClInlineLoads && !LI->isAtomic() && !LI->isVolatile() &&
      inlineLoad(LI))
    return true;
  IRBuilder<> B(LI);
  Value *V;
  if (isCodeCarrier(T)) {
    // A pointer may hold a code handle (docs/guide.md, "Function pointers
    // in the heap"): __amber_loadp gives back the current address.
    V = emit(B, "loadp", 0, B.getInt64Ty(), {Ptr}, {Addr}, false);
    V = B.CreateIntToPtr(V, T);
    ++NumPtrLoads;
  } else if (unsigned N = sizedBytes(T)) {
    Type *IT = B.getIntNTy(N * 8);
    V = emit(B, "load", N, IT, {Ptr}, {Addr}, false);
    V = fromInt(B, V, T);
    ++NumLoads;
  } else {
    TypeSize Size = DL.getTypeStoreSize(T);
    if (Size.isScalable())
      return false;
    AllocaInst *Tmp = tempAlloca(T);
    emit(B, "loadn", 0, B.getVoidTy(), {Ptr, Ptr, SizeT},
         {Tmp, Addr, ConstantInt::get(SizeT, Size.getFixedValue())}, false);
    V = B.CreateLoad(T, Tmp);
    ++NumLoadsN;
  }
  if (auto *VI = dyn_cast<Instruction>(V))
    VI->setDebugLoc(LI->getDebugLoc());
  V->takeName(LI);
  LI->replaceAllUsesWith(V);
  LI->eraseFromParent();
  return true;
}

// ABI 7: inside regions and clones a plain store (non-atomic, non-volatile)
// calls __amber_storeN / __amber_storep, which make it a relaxed store in
// ordinary memory (a plain mov on x86-64); an atomic or volatile one calls
// __amber_atomic_storeN / __amber_atomic_storep with its C memory order
// (the atomic's own; seq_cst for a volatile non-atomic store), so that the
// program's synchronisation through ordinary memory keeps its order
// (runtime/base/shared.h).  A volatile vector of 1, 2, 4 or 8 bytes is
// bitcast to an integer for that.  Outside regions the cold side's
// __amber_outside_storeN does not tell them apart (it is seq_cst).
static unsigned storeOrder(const StoreInst *SI) {
  if (!SI->isAtomic())
    return static_cast<unsigned>(AtomicOrderingCABI::seq_cst); // volatile
  return static_cast<unsigned>(toCABI(SI->getOrdering()));
}

bool Instrumenter::instrumentStore(StoreInst *SI) {
  Value *V = SI->getValueOperand();
  Type *T = V->getType();
  Value *Addr = SI->getPointerOperand();
  IRBuilder<> B(SI);
  bool Ordered = !Outside && (SI->isAtomic() || SI->isVolatile());
  unsigned N = sizedBytes(T);
  if (Ordered && !N && T->isVectorTy() && !T->isPtrOrPtrVectorTy()) {
    TypeSize Bits = DL.getTypeSizeInBits(T);
    if (!Bits.isScalable() && DL.getTypeStoreSizeInBits(T) == Bits &&
        (Bits == 8 || Bits == 16 || Bits == 32 || Bits == 64))
      N = Bits.getFixedValue() / 8;
  }
  if (isCodeCarrier(T)) {
    // A code address stored into the heap becomes a handle (__amber_storep).
    Value *I = B.CreatePtrToInt(V, B.getInt64Ty());
    if (Ordered)
      emit(B, "atomic_storep", 0, B.getVoidTy(), {Ptr, B.getInt64Ty(), I32},
           {Addr, I, ConstantInt::get(I32, storeOrder(SI))}, true);
    else
      emit(B, "storep", 0, B.getVoidTy(), {Ptr, B.getInt64Ty()}, {Addr, I},
           true);
    ++NumPtrStores;
  } else if (N && Ordered) {
    emit(B, "atomic_store", N, B.getVoidTy(), {Ptr, B.getIntNTy(N * 8), I32},
         {Addr, toInt(B, V, N), ConstantInt::get(I32, storeOrder(SI))}, true);
    ++NumOrderedStores;
  } else if (N) {
    emit(B, "store", N, B.getVoidTy(), {Ptr, B.getIntNTy(N * 8)},
         {Addr, toInt(B, V, N)}, true);
    ++NumStores;
  } else {
    TypeSize Size = DL.getTypeStoreSize(T);
    if (Size.isScalable())
      return false;
    AllocaInst *Tmp = tempAlloca(T);
    B.CreateStore(V, Tmp);
    emit(B, "storen", 0, B.getVoidTy(), {Ptr, Ptr, SizeT},
         {Addr, Tmp, ConstantInt::get(SizeT, Size.getFixedValue())}, true);
    ++NumStoresN;
  }
  SI->eraseFromParent();
  return true;
}

void Instrumenter::makeIrrevocable(Instruction *Before) {
  IRBuilder<> B(Before);
  CallInst *CI = B.CreateCall(abiIrrevocable(M));
  CI->setDebugLoc(Before->getDebugLoc());
  ++NumIrrevocable;
}

void Instrumenter::makeIrrevocableIo(Instruction *Before) {
  IRBuilder<> B(Before);
  CallInst *CI = B.CreateCall(abiIrrevocableIo(M));
  CI->setDebugLoc(Before->getDebugLoc());
  ++NumIrrevocableIo;
}

// %c = call ptr @__amber_clone_of(ptr %target); call %c(...): the runtime
// returns the registered clone, or makes the transaction irrevocable and
// returns the target.
void Instrumenter::resolveAtRunTime(CallBase *CB) {
  IRBuilder<> B(CB);
  Value *Target = CB->getCalledOperand();
  CallInst *CI = B.CreateCall(abiCloneOf(M), {Target}, "amber.callee");
  CI->setDebugLoc(CB->getDebugLoc());
  CB->setCalledOperand(CI);
  ++NumCloneOf;
}

// A direct call to Callee, declared here and maybe defined in another module
// built with amber, which then exports its clone as cloneName(Callee)
// (Clones.cpp).  That symbol is declared extern_weak and the linker resolves
// it; the runtime lookup stays for a null symbol (a module not built with
// amber: __amber_clone_of makes the transaction irrevocable):
//   %has = icmp ne ptr @__amber_tx_f, null
//   br %has, label %call, label %lookup        (the lookup is cold)
// lookup: %c = call ptr @__amber_clone_of(ptr @f)
// call:   %t = phi ptr [ @__amber_tx_f, ... ], [ %c, %lookup ]
//         call %t(...)
// No operational-capture giveup on the direct path: the target is a
// link-time constant of an object whose build id the capture's identity
// covers (tx/op.c), so replay runs the same code.
void Instrumenter::callCloneOrResolve(CallBase *CB, Function *Callee) {
  std::string Name = cloneName(Callee->getName());
  Function *Clone = M.getFunction(Name);
  if (!Clone) {
    Clone = Function::Create(Callee->getFunctionType(),
                             GlobalValue::ExternalWeakLinkage, Name, M);
    Clone->setCallingConv(Callee->getCallingConv());
    Clone->setVisibility(Callee->getVisibility());
  } else if (Clone->isDeclaration()) {
    Clone->setLinkage(GlobalValue::ExternalWeakLinkage);
  }
  // Null when not linked: never assume it is local (a PC-relative address
  // of an undefined weak symbol is not null).
  Clone->setDSOLocal(false);
  IRBuilder<> B(CB);
  Value *Missing = B.CreateICmpEQ(
      Clone, ConstantPointerNull::get(Clone->getType()), "amber.no_clone");
  MDNode *Cold = MDBuilder(C).createBranchWeights(1, 1000);
  Instruction *Then = SplitBlockAndInsertIfThen(Missing, CB, false, Cold);
  B.SetInsertPoint(Then);
  CallInst *CI = B.CreateCall(abiCloneOf(M), {CB->getCalledOperand()}, "amber.callee");
  CI->setDebugLoc(CB->getDebugLoc());
  BasicBlock *Tail = CB->getParent();
  Then->getParent()->setName("amber.lookup");
  Tail->setName("amber.call");
  B.SetInsertPoint(Tail, Tail->begin());
  PHINode *Target = B.CreatePHI(Ptr, 2, "amber.target");
  Target->addIncoming(Clone, Then->getParent()->getSinglePredecessor());
  Target->addIncoming(CI, Then->getParent());
  CB->setCalledOperand(Target);
  ++NumCloneOf;
  ++NumDirectClone;
}

// A function of the C library (or another runtime library LLVM knows by
// name and prototype): definitely has no transactional clone.
bool Instrumenter::isKnownLibFunction(const Function &Callee) {
  static thread_local std::unique_ptr<TargetLibraryInfoImpl> TLII;
  static thread_local std::string TLIITriple;
  if (!TLII || TLIITriple != M.getTargetTriple()) {
    TLII = std::make_unique<TargetLibraryInfoImpl>(Triple(M.getTargetTriple()));
    TLIITriple = M.getTargetTriple();
  }
  TargetLibraryInfo TLI(*TLII);
  LibFunc LF;
  return TLI.getLibFunc(Callee, LF) && TLI.has(LF);
}

bool Instrumenter::instrumentRMW(AtomicRMWInst *RMW) {
  Value *V = RMW->getValOperand();
  Type *T = V->getType();
  unsigned N = sizedBytes(T);
  if (!N) {
    // No callback for this width: keep the hardware atomic, make the
    // transaction irrevocable first.
    makeIrrevocable(RMW);
    IrrevocableSites.push_back({nullptr, SiteKind::Irrevocable});
    return true;
  }
  IRBuilder<> B(RMW);
  Type *IT = B.getIntNTy(N * 8);
  Value *Old = emit(
      B, "rmw", N, IT, {Ptr, IT, I32},
      {RMW->getPointerOperand(), toInt(B, V, N),
       ConstantInt::get(I32, static_cast<unsigned>(RMW->getOperation()))},
      true);
  Old = fromInt(B, Old, T);
  Old->takeName(RMW);
  RMW->replaceAllUsesWith(Old);
  RMW->eraseFromParent();
  ++NumAtomics;
  return true;
}

bool Instrumenter::instrumentCAS(AtomicCmpXchgInst *CAS) {
  Value *Cmp = CAS->getCompareOperand();
  Type *T = Cmp->getType();
  unsigned N = sizedBytes(T);
  if (!N) {
    makeIrrevocable(CAS);
    IrrevocableSites.push_back({nullptr, SiteKind::Irrevocable});
    return true;
  }
  IRBuilder<> B(CAS);
  Type *IT = B.getIntNTy(N * 8);
  Value *CmpI = toInt(B, Cmp, N);
  Value *Old = emit(B, "cas", N, IT, {Ptr, IT, IT},
                    {CAS->getPointerOperand(), CmpI,
                     toInt(B, CAS->getNewValOperand(), N)},
                    true);
  Value *Ok = B.CreateICmpEQ(Old, CmpI);
  Value *Res = PoisonValue::get(CAS->getType());
  Res = B.CreateInsertValue(Res, fromInt(B, Old, T), 0);
  Res = B.CreateInsertValue(Res, Ok, 1);
  Res->takeName(CAS);
  CAS->replaceAllUsesWith(Res);
  CAS->eraseFromParent();
  ++NumAtomics;
  return true;
}

bool Instrumenter::instrumentMemIntrinsic(MemIntrinsic *MI) {
  IRBuilder<> B(MI);
  Value *Len = B.CreateZExtOrTrunc(MI->getLength(), SizeT);
  if (auto *MS = dyn_cast<MemSetInst>(MI)) {
    if (skipAddress(MS->getDest()))
      return false;
    emit(B, "memset", 0, Outside ? B.getVoidTy() : Ptr, {Ptr, I32, SizeT},
         {MS->getDest(), B.CreateZExtOrTrunc(MS->getValue(), I32), Len}, true);
  } else if (auto *MT = dyn_cast<MemTransferInst>(MI)) {
    if (skipAddress(MT->getDest()) && skipAddress(MT->getSource()))
      return false;
    StringRef Name = isa<MemMoveInst>(MT) ? "memmove" : "memcpy";
    emit(B, Name, 0, Outside ? B.getVoidTy() : Ptr, {Ptr, Ptr, SizeT},
         {MT->getDest(), MT->getSource(), Len}, true);
  } else {
    return false;
  }
  MI->eraseFromParent();
  ++NumMemIntrinsics;
  return true;
}

// Returns true when it changed the call; sets Irrevocable for unseen code.
bool Instrumenter::instrumentCall(CallBase *CB, bool &Irrevocable) {
  Function *Callee =
      dyn_cast<Function>(CB->getCalledOperand()->stripPointerCasts());
  if (Callee) {
    StringRef Name = Callee->getName();
    if (Callee->isIntrinsic() || isAbiName(Name) || !Callee->isDeclaration())
      return false;
    StringRef Repl = libcReplacement(Name);
    if (!Repl.empty()) {
      FunctionCallee AF = abiFunction(M, Repl, CB->getFunctionType());
      CB->setCalledFunction(CB->getFunctionType(), AF.getCallee());
      ++NumLibcCalls;
      return true;
    }
    // Code that touches no memory needs no transaction support.
    if (CB->doesNotAccessMemory())
      return false;
    // Output the runtime holds until the region commits: a plain call to
    // libamber's interceptor.
    if (isHeldOutputCall(Name))
      return false;
    // Sorting and searching the interceptor runs in the region's
    // transaction: a plain call to libamber's interceptor.
    if (isRegionWrappedCall(Name))
      return false;
    // Math functions that write only the thread's errno.
    if (isErrnoOnlyCall(Name))
      return false;
    if (isIoCall(Name)) {
      Irrevocable = true;
      makeIrrevocableIo(CB);
      IrrevocableSites.push_back({CB, SiteKind::Io});
      return true;
    }
    if (isKnownLibFunction(*Callee) || isa<CallBrInst>(CB)) {
      Irrevocable = true;
      makeIrrevocable(CB);
      IrrevocableSites.push_back({CB, SiteKind::Irrevocable});
      return true;
    }
    // Declared here, maybe defined (and cloned) in another module.  Not
    // Irrevocable: the call goes to a clone when the module defining the
    // callee was built with amber; when not, __amber_clone_of makes the
    // transaction irrevocable at the call (a reader restarts as a writer,
    // and the region's hints start it so from then on: tx/tx.c), so the
    // descriptor's flag would only make every run start as a writer.
    if (ClDirectClones)
      callCloneOrResolve(CB, Callee);
    else
      resolveAtRunTime(CB);
    IrrevocableSites.push_back({CB, SiteKind::Resolved, Callee});
    return true;
  }
  if (!CB->isInlineAsm() && CB->doesNotAccessMemory())
    return false;
  if (CB->isInlineAsm() || isa<CallBrInst>(CB)) {
    Irrevocable = true;
    makeIrrevocable(CB);
    IrrevocableSites.push_back({CB, SiteKind::Irrevocable});
    return true;
  }
  // Indirect call: no remark (the target is known only at run time), and
  // not Irrevocable, for the reason above: __amber_clone_of finds the
  // target's clone, or makes the transaction irrevocable at run time.
  resolveAtRunTime(CB);
  return true;
}

bool Instrumenter::rewrite(Instruction *I) {
  if (auto *LI = dyn_cast<LoadInst>(I))
    return instrumentLoad(LI);
  if (auto *SI = dyn_cast<StoreInst>(I))
    return instrumentStore(SI);
  if (auto *RMW = dyn_cast<AtomicRMWInst>(I))
    return sizedBytes(RMW->getValOperand()->getType()) && instrumentRMW(RMW);
  if (auto *CAS = dyn_cast<AtomicCmpXchgInst>(I))
    return sizedBytes(CAS->getCompareOperand()->getType()) &&
           instrumentCAS(CAS);
  if (auto *MI = dyn_cast<MemIntrinsic>(I))
    return instrumentMemIntrinsic(MI);
  return false;
}

FunctionResult Instrumenter::run() {
  FunctionResult R;
  SmallVector<LoadInst *, 16> Loads;
  SmallVector<StoreInst *, 16> Stores;
  SmallVector<AtomicRMWInst *, 4> RMWs;
  SmallVector<AtomicCmpXchgInst *, 4> CASes;
  SmallVector<MemIntrinsic *, 4> MemIntrinsics;
  SmallVector<CallBase *, 8> Calls;

  // Choose.
  for (Instruction &I : instructions(F)) {
    if (auto *LI = dyn_cast<LoadInst>(&I)) {
      if ((LI->isAtomic() ? ClAtomics : ClLoads) &&
          !skipAddress(LI->getPointerOperand()))
        Loads.push_back(LI);
    } else if (auto *SI = dyn_cast<StoreInst>(&I)) {
      if ((SI->isAtomic() ? ClAtomics : ClStores) &&
          !skipAddress(SI->getPointerOperand()))
        Stores.push_back(SI);
    } else if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) {
      if (ClAtomics && !skipAddress(RMW->getPointerOperand()))
        RMWs.push_back(RMW);
    } else if (auto *CAS = dyn_cast<AtomicCmpXchgInst>(&I)) {
      if (ClAtomics && !skipAddress(CAS->getPointerOperand()))
        CASes.push_back(CAS);
    } else if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
      if (ClMemIntrinsics)
        MemIntrinsics.push_back(MI);
    } else if (auto *CB = dyn_cast<CallBase>(&I)) {
      if (ClCalls && !isa<IntrinsicInst>(CB))
        Calls.push_back(CB);
    }
  }

  // Rewrite.
  for (LoadInst *LI : Loads)
    R.Changed |= instrumentLoad(LI);
  for (StoreInst *SI : Stores)
    R.Changed |= instrumentStore(SI);
  for (AtomicRMWInst *RMW : RMWs)
    R.Changed |= instrumentRMW(RMW);
  for (AtomicCmpXchgInst *CAS : CASes)
    R.Changed |= instrumentCAS(CAS);
  for (MemIntrinsic *MI : MemIntrinsics)
    R.Changed |= instrumentMemIntrinsic(MI);
  for (CallBase *CB : Calls)
    R.Changed |= instrumentCall(CB, R.Irrevocable);
  for (const struct Site &S : IrrevocableSites)
    if (S.Kind != SiteKind::Resolved)
      R.Irrevocable = true;
  return R;
}

static void emitRemarks(Function &F, ArrayRef<Site> Sites) {
  OptimizationRemarkEmitter ORE(&F);
  for (const Site &S : Sites) {
    CallBase *CB = S.CB;
    if (!CB)
      continue;
    Value *Target = CB->getCalledOperand();
    if (S.Kind == SiteKind::Resolved)
      if (auto *CloneOf = dyn_cast<CallInst>(Target))
        Target = CloneOf->getArgOperand(0);
    Function *Callee = S.Callee ? S.Callee
                                : dyn_cast<Function>(Target->stripPointerCasts());
    ORE.emit([&] {
      OptimizationRemarkAnalysis R("amber", "IrrevocableCall", CB);
      if (Callee)
        R << "call to " << ore::NV("Callee", Callee->getName());
      else if (CB->isInlineAsm())
        R << "inline assembly";
      else
        R << "indirect call";
      switch (S.Kind) {
      case SiteKind::Irrevocable:
        R << " cannot be instrumented; an AMBER region that reaches it "
             "becomes irrevocable";
        break;
      case SiteKind::Io:
        R << " does I/O; an AMBER region that reaches it becomes irrevocable";
        break;
      case SiteKind::Resolved:
        R << " is resolved by the linker: its transactional clone "
          << cloneName(Callee ? Callee->getName() : "")
          << " is called when the module defining it was built with amber, "
             "otherwise an AMBER region that reaches it becomes irrevocable";
        break;
      }
      return R;
    });
  }
}

bool instrumentModule(Module &M) {
  if (M.getNamedMetadata(InstrumentedMD))
    return false;
  // Library calls given heap pointers (ExternalCalls.cpp), on the calls as
  // the program wrote them: before any is rewritten or cloned.
  remarkExternalCalls(M);
  // Before the clone table and __amber_clone_of take every address.
  SmallVector<Function *, 8> CodeFns = addressTakenFunctions(M);
  warnCodeAsInteger(M);
  SmallVector<std::pair<Function *, Function *>, 16> CloneTable;
  SmallVector<Function *, 16> Fns = makeClones(M, CloneTable);
  auto Descs = moduleDescriptors(M);

  DenseMap<Function *, SmallVector<Site, 4>> Sites;
  DenseSet<Function *> Irrevocable, Unseen;
  for (Function *F : Fns) {
    Instrumenter I(*F);
    FunctionResult R = I.run();
    if (!I.IrrevocableSites.empty())
      Sites[F] = I.IrrevocableSites; // remarks, calls resolved at run time too
    if (R.Irrevocable) {
      Irrevocable.insert(F);
      for (const Site &S : I.IrrevocableSites)
        if (S.Kind == SiteKind::Irrevocable)
          Unseen.insert(F);
    }
  }

  // Call edges between instrumented functions, including nested regions
  // (__amber_run(@desc, ...) reaches the desc's region function).
  DenseMap<GlobalVariable *, Function *> DescFn(Descs.begin(), Descs.end());
  auto Callees = [&](Function *F) {
    SmallVector<Function *, 8> Out;
    for (Instruction &I : instructions(*F))
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        auto *Callee = dyn_cast<Function>(CB->getCalledOperand()->stripPointerCasts());
        if (!Callee)
          continue;
        if (Callee->getName() == "__amber_run" && CB->arg_size() >= 1) {
          if (auto *GV = dyn_cast<GlobalVariable>(
                  CB->getArgOperand(0)->stripPointerCasts()))
            if (Function *RF = DescFn.lookup(GV))
              Out.push_back(RF);
        } else if (!Callee->isDeclaration()) {
          Out.push_back(Callee);
        }
      }
    return Out;
  };
  DenseSet<Function *> ReachedFromRegion;
  for (auto &[Desc, RF] : Descs) {
    DenseSet<Function *> Seen;
    SmallVector<Function *, 8> Work{RF};
    bool Irrev = false, Uns = false;
    while (!Work.empty()) {
      Function *F = Work.pop_back_val();
      if (!Seen.insert(F).second)
        continue;
      ReachedFromRegion.insert(F);
      Irrev |= Irrevocable.count(F) != 0;
      Uns |= Unseen.count(F) != 0;
      for (Function *G : Callees(F))
        Work.push_back(G);
    }
    // UNSEEN lets an engine that must run such a region alone start it so,
    // instead of restarting it at the call.
    if (Irrev)
      addDescriptorFlags(Desc, AMBER_DESC_IRREVOCABLE | (Uns ? AMBER_DESC_UNSEEN : 0));
  }
  // Remarks for the unseen calls a region of this module can reach.
  for (auto &[F, S] : Sites)
    if (ReachedFromRegion.count(F))
      emitRemarks(*F, S);

  // Then the range checks outside regions (Outside.cpp), on the originals.
  bool OutsideChanged = instrumentOutsideModule(M);

  if (!Fns.empty() || !Descs.empty() || OutsideChanged ||
      !unisolatedGlobals(M).empty() || !CodeFns.empty())
    emitModuleCtor(M, CloneTable, CodeFns);
  M.getOrInsertNamedMetadata(InstrumentedMD);
  return true;
}

FunctionResult instrumentFunction(Function &F) { return Instrumenter(F).run(); }

bool rewriteWithCallback(Instruction &I, Constant *Site) {
  Instrumenter In(*I.getFunction());
  In.Outside = true;
  In.Site = Site;
  return In.rewrite(&I);
}

} // namespace amber
