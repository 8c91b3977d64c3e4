//===- Outside.cpp - accesses outside regions (DESIGN.md §3 point 4) ------===//
//
// Code outside regions may be handed a pointer into the heap.  A store there
// that does not go through the runtime is not logged (the engine would roll
// it back after a crash), and a load there may read a stale master (the mvcc
// engine keeps the latest committed versions in DRAM).  So in every function
// that is neither a region function nor a transactional clone (the original
// functions, in every module the pass sees), each load, store, atomicrmw,
// cmpxchg, memory intrinsic and call to a libc function the runtime wraps
// whose address may be persistent goes behind
//
//   %in = icmp ult i64 (sub (ptrtoint %object), %heap_base), %heap_size
//   br i1 %in, label %amber.persistent, label %amber.volatile   ; 1 : 2^20
// amber.persistent:          ; cold: the runtime performs each access
//   call preserve_mostcc void @__amber_outside_store8(ptr %p, i64 %v, ptr @site)
// amber.volatile:
//   store i64 %v, ptr %p     ; the original instructions
//
// (phis join the values used later).  Cheap on volatile data:
//  * the window (__amber_heap_base / __amber_heap_size, 0 until the heap is
//    open) is read at function entry and again after each call, fence,
//    atomic or volatile access (after which the heap may have opened, or a
//    heap pointer arrived from another thread), and kept in registers in
//    between (a variable promoted with mem2reg);
//  * the check is on the access's object (its address with the inbounds
//    offsets stripped: an inbounds GEP stays inside its object, and an object
//    is either in the heap or not), computed once right after the object and
//    the window are defined, and shared by every access into that object: in
//    a loop over an array passed as an argument it is loop invariant;
//  * consecutive accesses of a block share one branch: the instructions from
//    the first to the last are duplicated, the original on the volatile side,
//    a copy with each access turned into its callback on the persistent side;
//  * the callbacks use preserve_most on x86-64, so the hot path keeps its
//    registers (Abi.cpp, setOutsideConvention).
// Skipped: addresses whose underlying objects are all allocas, global
// variables or byval arguments (never in the heap window), and other address
// spaces.  A write on the cold side carries its site ("file:line", else the
// function's name), under which the runtime counts it as a stray store.
// -amber-outside-share-checks=false gives each access its own branch and a
// self-contained check (the window loaded, the exact address compared).
// As in Instrument.cpp (and ThreadSanitizer), OutsideInstrumenter first
// chooses the accesses, then rewrites the function in steps: the window and
// the checks, the segments and their conditions, the split.
//===----------------------------------------------------------------------===//
#include "Amber.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"
#include "llvm/Transforms/Utils/ValueMapper.h"
#include <map>

using namespace llvm;

#define DEBUG_TYPE "amber"

// The options of the outside-region instrumentation.  The per-class
// switches (ClLoads, ClStores, ClAtomics, ClMemIntrinsics, ClCalls; Amber.h)
// apply here too.
static cl::opt<bool> ClOutside(
    "amber-instrument-outside", cl::init(true), cl::Hidden,
    cl::desc("Range-check accesses outside AMBER regions against the heap "
             "window (stores, atomics, memory intrinsics, libc calls; loads "
             "with -amber-instrument-outside-loads)"));
static cl::opt<bool> ClOutsideLoads(
    "amber-instrument-outside-loads", cl::init(true), cl::Hidden,
    cl::desc("Range-check loads outside AMBER regions (and the sources of "
             "memcpy/memmove, the arguments of libc readers)"));
static cl::opt<bool> ClShareChecks(
    "amber-outside-share-checks", cl::init(true), cl::Hidden,
    cl::desc("Outside AMBER regions, keep the heap window in registers "
             "between calls and share one range check among the accesses "
             "into the same object"));

STATISTIC(NumOutsideLoads, "Number of loads outside regions range-checked");
STATISTIC(NumOutsideStores, "Number of stores outside regions range-checked");
STATISTIC(NumOutsideAtomics,
          "Number of atomicrmw/cmpxchg outside regions range-checked");
STATISTIC(NumOutsideMemIntrinsics,
          "Number of memory intrinsics outside regions range-checked");
STATISTIC(NumOutsideLibc,
          "Number of libc calls outside regions range-checked");
STATISTIC(NumOutsideSkipLocal, "Number of accesses outside regions skipped "
                               "(stack, globals, other address spaces)");
STATISTIC(NumOutsideSkipWidth, "Number of atomics outside regions skipped "
                               "(no callback for their width)");
STATISTIC(NumOutsideChecks, "Number of range checks computed outside regions");
STATISTIC(NumOutsideBranches, "Number of range-check branches outside regions "
                              "(one per run of accesses in a block)");
STATISTIC(NumOutsideSharedChecks,
          "Number of accesses outside regions that share another's range "
          "check (same object, same window)");

namespace amber {

// The originals: not region functions, clones, the pass's own functions, or
// naked ones (whose body is assembly).
static bool wantsOutsideInstrumentation(const Function &F) {
  StringRef Name = F.getName();
  return !(F.isDeclaration() || isRegionFunction(F) || isCloneFunction(F) ||
           isAbiName(Name) || Name.startswith("amber.") ||
           F.hasFnAttribute(Attribute::Naked));
}

namespace {

// One access to put behind a range check.  Addresses are kept as operand
// numbers of I: splitting may replace a value (a loaded pointer becomes the
// phi that joins both sides).
struct Access {
  Instruction *I;
  SmallVector<unsigned, 2> AddrOps; // cold side when any is in the window
  bool Writes = false;              // a stray store when persistent
  int WrittenOp = -1;               // the written address (libc writers)
  StringRef Wrapper;                // libc calls: the __amber_* wrapper
  bool Changes = false;             // the window is read again after it
  bool Alone = false;               // atomic or volatile: a segment alone
  // Shared mode: a placeholder whose operands are the window at I (they
  // travel through mem2reg as its operands).
  ICmpInst *Window = nullptr;
  SmallVector<Value *, 2> Checks; // i1: that address is in the window
};

// Consecutive accesses of one block behind one branch.  The instructions
// from First to Last are duplicated: the original on the volatile side, a
// copy with every access turned into its callback on the persistent side
// (a callback handles volatile addresses too).
struct Segment {
  SmallVector<Access *, 4> Accesses;
  Instruction *First = nullptr, *Last = nullptr;
  Value *Cond = nullptr;
  // Holds the condition until every segment is split (splitting another
  // segment may replace it by a phi).
  FreezeInst *Holder = nullptr;
};

} // namespace

// Most non-access instructions between two accesses of one segment.
static constexpr unsigned MaxGap = 32;

// Provably not in the heap window: the stack, the program's globals.
bool notPersistent(Value *Addr) {
  if (Addr->getType()->getPointerAddressSpace() != 0)
    return true;
  SmallVector<const Value *, 4> Objs;
  getUnderlyingObjects(Addr, Objs, nullptr, /*MaxLookup=*/0);
  if (Objs.empty())
    return false;
  for (const Value *O : Objs) {
    if (isa<AllocaInst>(O) || isa<GlobalVariable>(O))
      continue;
    if (auto *A = dyn_cast<Argument>(O))
      if (A->hasByValAttr())
        continue;
    return false;
  }
  return true;
}

// A direct call to one of these leaves the window as it was: the functions
// of this module that neither call code that could open the heap nor may
// bring in a pointer from another thread (windowStableFunctions).
using StableSet = DenseSet<const Function *>;

// The wrapped libc functions open no heap (strdup and strndup allocate).
static bool isWindowNeutralLibc(StringRef Name) {
  bool W;
  return !libcOutsideReplacement(Name, W).empty() && Name != "strdup" &&
         Name != "strndup";
}

// After I, the window may differ: the heap may have opened during a call,
// or a heap pointer may have come from another thread through a fence, an
// atomic or a volatile access.
static bool mayChangeWindow(const Instruction &I, const StableSet &Stable) {
  if (auto *CB = dyn_cast<CallBase>(&I)) {
    if (auto *II = dyn_cast<IntrinsicInst>(CB))
      if (isa<MemIntrinsic>(II) || II->isLifetimeStartOrEnd() ||
          II->isAssumeLikeIntrinsic() || isa<DbgInfoIntrinsic>(II))
        return false;
    if (CB->onlyReadsMemory())
      return false;
    if (auto *Callee =
            dyn_cast<Function>(CB->getCalledOperand()->stripPointerCasts()))
      if (Stable.count(Callee) ||
          (Callee->isDeclaration() && isWindowNeutralLibc(Callee->getName())))
        return false;
    return true;
  }
  if (auto *LI = dyn_cast<LoadInst>(&I))
    return LI->isAtomic() || LI->isVolatile();
  if (auto *SI = dyn_cast<StoreInst>(&I))
    return SI->isVolatile();
  return isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I) ||
         isa<FenceInst>(I);
}

// The functions of M a direct call to which leaves the heap window as it
// was: they call nothing that could open the heap and do no atomic, fence
// or volatile access (through which a heap pointer could come from another
// thread), transitively.
static StableSet windowStableFunctions(Module &M) {
  // Optimistic start (recursion), then drop every function with an
  // instruction that may change the window, until nothing changes.  A
  // function another definition may replace at link time is not known.
  StableSet Stable;
  for (Function &F : M)
    if (!F.isDeclaration() && !F.isInterposable() &&
        wantsOutsideInstrumentation(F))
      Stable.insert(&F);
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (Function &F : M) {
      if (!Stable.count(&F))
        continue;
      for (Instruction &I : instructions(F))
        if (mayChangeWindow(I, Stable)) {
          Stable.erase(&F);
          Changed = true;
          break;
        }
    }
  }
  return Stable;
}

static bool canDuplicate(const Instruction &I) {
  if (isa<PHINode>(I) || I.isTerminator() || I.isEHPad() ||
      isa<AllocaInst>(I) || I.getType()->isTokenTy())
    return false;
  if (auto *CB = dyn_cast<CallBase>(&I))
    return !CB->cannotDuplicate() && !CB->isConvergent() &&
           !CB->isInlineAsm();
  return true;
}

// "file:line" of I when it has a debug location, else the function's name:
// the site a stray store is counted under (AMBER_STATS).
static Constant *siteOf(Instruction *I, StringMap<Constant *> &Sites) {
  Function &F = *I->getFunction();
  std::string S;
  // Locations clang keeps only for remarks (-Rpass-analysis, which amber-cc
  // passes: emission kind NoDebug) do not count: a build without -g names
  // its sites by function, whatever remarks it asks for.
  if (const DILocation *Loc = I->getDebugLoc().get()) {
    const DISubprogram *SP = Loc->getScope()->getSubprogram();
    const DICompileUnit *CU = SP ? SP->getUnit() : nullptr;
    if (!Loc->getFilename().empty() &&
        !(CU && CU->getEmissionKind() == DICompileUnit::NoDebug))
      S = (Loc->getFilename() + ":" + Twine(Loc->getLine())).str();
  }
  if (S.empty())
    S = F.getName().str();
  Constant *&C = Sites[S];
  if (!C) {
    IRBuilder<> B(F.getContext());
    C = B.CreateGlobalStringPtr(S, "amber.site", 0, F.getParent());
  }
  return C;
}

// Same block: program order; else block dominance.  Both A and B dominate
// a common point, so one of them dominates the other.
static bool notAfter(const Instruction *A, const Instruction *B,
                     const DominatorTree &DT) {
  if (A == B)
    return true;
  if (A->getParent() == B->getParent())
    return A->comesBefore(B);
  return DT.dominates(A->getParent(), B->getParent());
}

// The earliest point where every value of Vals is defined (they all
// dominate a common point): right after the last of them.  Null when that
// is awkward (a terminator, an EH pad).
static Instruction *earliestPoint(Function &F, ArrayRef<Value *> Vals,
                                  const DominatorTree &DT) {
  Instruction *Last = nullptr;
  for (Value *V : Vals)
    if (auto *I = dyn_cast<Instruction>(V))
      if (!Last || notAfter(Last, I, DT))
        Last = I;
  if (!Last)
    return &*F.getEntryBlock().getFirstInsertionPt();
  if (isa<PHINode>(Last)) {
    BasicBlock::iterator It = Last->getParent()->getFirstInsertionPt();
    return It == Last->getParent()->end() ? nullptr : &*It;
  }
  if (Last->isTerminator() || Last->isEHPad())
    return nullptr;
  return Last->getNextNode();
}

// The object an access's address points into, for sharing its check: an
// inbounds GEP stays inside its object, and an object is in the heap or not.
static Value *checkedObject(Value *Addr) {
  Value *Obj = Addr->stripInBoundsOffsets();
  if (isa<Constant>(Obj) || Obj->getType()->getPointerAddressSpace() != 0)
    return Addr;
  return Obj;
}

static Value *inWindow(IRBuilder<> &B, Value *Addr, Value *HB, Value *HS) {
  Type *IntPtr = HB->getType();
  Value *P = B.CreatePtrToInt(Addr, IntPtr, "amber.addr");
  ++NumOutsideChecks;
  return B.CreateICmpULT(B.CreateSub(P, HB, "amber.off"), HS, "amber.in_heap");
}

// The persistent side's copy of an access: its callback (or wrapper), after
// a count of the stray store for writes.
static void rewriteCopy(const Access &A, Instruction *Copy,
                        StringMap<Constant *> &Sites) {
  Module &M = *Copy->getModule();
  // A release (or seq_cst) atomic store to the heap publishes what the
  // thread stored before it: as an exchange it reaches the runtime's
  // read-modify-write, which commits the thread's stray batch first and is
  // visible at once (runtime/tx/batch.c); a plain store would wait in it.
  if (auto *SI = dyn_cast<StoreInst>(Copy))
    if (SI->isAtomic() && isAtLeastOrStrongerThan(SI->getOrdering(),
                                                   AtomicOrdering::Release)) {
      IRBuilder<> B(SI);
      Instruction *X = B.CreateAtomicRMW(
          AtomicRMWInst::Xchg, SI->getPointerOperand(), SI->getValueOperand(),
          SI->getAlign(), SI->getOrdering(), SI->getSyncScopeID());
      SI->eraseFromParent();
      Copy = X;
    }
  if (A.Wrapper.empty()) {
    rewriteWithCallback(*Copy, A.Writes ? siteOf(A.I, Sites) : nullptr);
    return;
  }
  if (A.WrittenOp >= 0) {
    IRBuilder<> B(Copy);
    B.CreateCall(abiStrayStore(M),
                 {siteOf(A.I, Sites), Copy->getOperand(A.WrittenOp)});
  }
  auto *CB = cast<CallBase>(Copy);
  CB->setCalledFunction(
      CB->getFunctionType(),
      abiFunction(M, A.Wrapper, CB->getFunctionType()).getCallee());
}

// The instructions of S, First to Last.
static SmallVector<Instruction *, 16> segmentRange(const Segment &S) {
  SmallVector<Instruction *, 16> Range;
  for (Instruction *X = S.First;; X = X->getNextNode()) {
    Range.push_back(X);
    if (X == S.Last)
      break;
  }
  return Range;
}

// Moves Range before ElseT (the volatile side) and puts a copy of it before
// ThenT (the persistent side), debug intrinsics left out; VMap maps each
// original to its copy, and the copies use each other.
static void duplicateRange(ArrayRef<Instruction *> Range, Instruction *ThenT,
                           Instruction *ElseT, ValueToValueMapTy &VMap) {
  SmallVector<Instruction *, 16> Copies;
  for (Instruction *X : Range) {
    X->moveBefore(ElseT);
    if (isa<DbgInfoIntrinsic>(X))
      continue; // the persistent side goes without
    Instruction *Copy = X->clone();
    Copy->insertBefore(ThenT);
    VMap[X] = Copy;
    Copies.push_back(Copy);
  }
  for (Instruction *Copy : Copies)
    RemapInstruction(Copy, VMap,
                     RF_NoModuleLevelChanges | RF_IgnoreMissingLocals);
}

// A value of Range used outside Else (after the segment) is replaced there
// by a phi at the top of Tail joining its copy (from Then) and itself.
static void joinLaterUses(ArrayRef<Instruction *> Range,
                          ValueToValueMapTy &VMap, BasicBlock *Then,
                          BasicBlock *Else, BasicBlock *Tail) {
  for (Instruction *X : Range) {
    if (X->getType()->isVoidTy())
      continue;
    SmallVector<Use *, 4> Later;
    for (Use &U : X->uses())
      if (cast<Instruction>(U.getUser())->getParent() != Else)
        Later.push_back(&U);
    if (Later.empty())
      continue;
    PHINode *PN =
        PHINode::Create(X->getType(), 2, X->getName() + ".amber", &Tail->front());
    PN->addIncoming(VMap[X], Then);
    PN->addIncoming(X, Else);
    for (Use *U : Later)
      U->set(PN);
  }
}

// The persistent side is the cold one: its runtime calls say so.
static void markCold(BasicBlock &Then) {
  for (Instruction &X : Then)
    if (auto *CI = dyn_cast<CallInst>(&X))
      if (Function *Callee = CI->getCalledFunction())
        if (isAbiName(Callee->getName()))
          CI->addFnAttr(Attribute::Cold);
}

// Puts S behind a branch on its condition (held by S.Holder): the
// originals on the volatile side, copies with each access turned into its
// callback on the persistent side, phis after for the values used later.
static void splitSegment(Segment &S, StringMap<Constant *> &Sites) {
  LLVMContext &C = S.First->getContext();
  SmallVector<Instruction *, 16> Range = segmentRange(S);
  Instruction *ThenT = nullptr, *ElseT = nullptr;
  SplitBlockAndInsertIfThenElse(S.Holder, S.First, &ThenT, &ElseT,
                                MDBuilder(C).createBranchWeights(1, 1u << 20));
  BasicBlock *Then = ThenT->getParent(), *Else = ElseT->getParent();
  BasicBlock *Tail = S.First->getParent();
  Then->setName("amber.persistent");
  Else->setName("amber.volatile");
  Tail->setName("amber.cont");

  ValueToValueMapTy VMap;
  duplicateRange(Range, ThenT, ElseT, VMap);
  joinLaterUses(Range, VMap, Then, Else, Tail);
  for (Access *A : S.Accesses)
    rewriteCopy(*A, cast<Instruction>(VMap[A->I]), Sites);
  markCold(*Then);
}

namespace {

// The outside-region instrumentation of one function, in ThreadSanitizer's
// shape: chooseAccesses picks what may touch the heap, and only then do the
// later steps rewrite F, each in one function below (run calls them in
// order).
class OutsideInstrumenter {
public:
  OutsideInstrumenter(Function &F, const StableSet &Stable)
      : F(F), M(*F.getParent()), DL(M.getDataLayout()), Stable(Stable) {}
  bool run();

private:
  // Choosing (F unchanged).
  void chooseAccesses();
  bool chooseOperands(Instruction &I, Access &A,
                      SmallVectorImpl<unsigned> &Cand);
  bool atomicHasCallback(Type *T);
  bool chooseLibcOperands(CallInst &CI, Access &A,
                          SmallVectorImpl<unsigned> &Cand);
  void countAccesses() const;
  bool reloadPoints(SmallVectorImpl<Instruction *> &ReloadAt) const;
  // Rewriting, -amber-outside-share-checks=false.
  void checkEachAccess();
  // Rewriting, shared checks.
  void shareChecks(ArrayRef<Instruction *> ReloadAt);
  void placeWindow(ArrayRef<Instruction *> ReloadAt);
  void readWindow(Instruction *Before);
  void computeChecks(const DominatorTree &DT);
  void eraseUnusedWindowReads();
  void groupSegments();
  void computeConditions(const DominatorTree &DT);
  // Rewriting, both modes.
  void splitSegments();

  Function &F;
  Module &M;
  const DataLayout &DL;
  const StableSet &Stable;
  // Chosen, in program order.  Never grows after choosing: segments point
  // into it.
  std::vector<Access> Accesses;
  SmallVector<Instruction *, 16> Changers; // the window is read after them
  // The runtime's window globals and their integer type.
  GlobalVariable *Base = nullptr, *Size = nullptr;
  Type *IntPtr = nullptr;
  // Shared mode: the window as two variables until promoted, and the reads
  // of the globals that set them.
  AllocaInst *VarBase = nullptr, *VarSize = nullptr;
  SmallVector<LoadInst *, 8> WindowReads;
  // Reserved for one per access (the most there can be): never reallocated
  // while grouping hands out pointers.
  std::vector<Segment> Segments;
};

} // namespace

// Choose, then rewrite.  False (F untouched) when nothing may reach the heap.
bool OutsideInstrumenter::run() {
  chooseAccesses();
  if (Accesses.empty())
    return false;
  countAccesses();
  Base = abiGlobal(M, "__amber_heap_base");
  Size = abiGlobal(M, "__amber_heap_size");
  IntPtr = Base->getValueType();
  SmallVector<Instruction *, 16> ReloadAt;
  bool Share = reloadPoints(ReloadAt) && ClShareChecks;
  Segments.reserve(Accesses.size());
  if (Share)
    shareChecks(ReloadAt);
  else
    checkEachAccess();
  splitSegments();
  return true;
}

// Every reachable access whose address may be in the heap window, with the
// operands to check; also every instruction after which the window is read
// again (code that never runs stays as it is).
void OutsideInstrumenter::chooseAccesses() {
  DominatorTree Reach(F);
  for (Instruction &I : instructions(F)) {
    if (!Reach.isReachableFromEntry(I.getParent()))
      continue;
    Access A;
    A.I = &I;
    SmallVector<unsigned, 2> Cand; // operands that may be persistent
    bool Writes = chooseOperands(I, A, Cand);
    for (unsigned K : Cand)
      if (!notPersistent(I.getOperand(K)))
        A.AddrOps.push_back(K);
    if (!Cand.empty() && A.AddrOps.empty())
      ++NumOutsideSkipLocal;
    A.Changes = mayChangeWindow(I, Stable);
    if (A.Changes)
      Changers.push_back(&I);
    if (A.AddrOps.empty())
      continue;
    // A write goes to its first candidate: the store's, atomic's, memory
    // intrinsic's or libc writer's destination.
    A.Writes = Writes;
    if (Writes && Cand[0] == A.AddrOps[0])
      A.WrittenOp = static_cast<int>(Cand[0]);
    Accesses.push_back(std::move(A));
  }
}

// The operands of I the options let through (Cand, a written one first),
// before the notPersistent test; sets A.Alone and A.Wrapper.  True when I
// writes (through Cand[0] when Cand is not empty).
bool OutsideInstrumenter::chooseOperands(Instruction &I, Access &A,
                                         SmallVectorImpl<unsigned> &Cand) {
  if (auto *LI = dyn_cast<LoadInst>(&I)) {
    if (ClOutsideLoads && (LI->isAtomic() ? ClAtomics : ClLoads) &&
        !DL.getTypeStoreSize(LI->getType()).isScalable())
      Cand.push_back(LI->getPointerOperandIndex());
    A.Alone = LI->isAtomic() || LI->isVolatile();
    return false;
  }
  if (auto *SI = dyn_cast<StoreInst>(&I)) {
    if ((SI->isAtomic() ? ClAtomics : ClStores) &&
        !DL.getTypeStoreSize(SI->getValueOperand()->getType()).isScalable())
      Cand.push_back(SI->getPointerOperandIndex());
    A.Alone = SI->isAtomic() || SI->isVolatile();
    return true;
  }
  if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) {
    if (atomicHasCallback(RMW->getValOperand()->getType()))
      Cand.push_back(RMW->getPointerOperandIndex());
    A.Alone = true;
    return true;
  }
  if (auto *CAS = dyn_cast<AtomicCmpXchgInst>(&I)) {
    if (atomicHasCallback(CAS->getCompareOperand()->getType()))
      Cand.push_back(CAS->getPointerOperandIndex());
    A.Alone = true;
    return true;
  }
  if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
    if (ClMemIntrinsics && (isa<MemSetInst>(MI) || isa<MemTransferInst>(MI))) {
      Cand.push_back(0); // the destination
      if (isa<MemTransferInst>(MI) && ClOutsideLoads)
        Cand.push_back(1); // the source: read the latest committed bytes
    }
    A.Alone = MI->isVolatile();
    return true;
  }
  if (auto *CI = dyn_cast<CallInst>(&I))
    return chooseLibcOperands(*CI, A, Cand);
  return false;
}

// Atomics (when switched on) of a width with a callback: the runtime has no
// generic (ptr, size) form for them.
bool OutsideInstrumenter::atomicHasCallback(Type *T) {
  if (!ClAtomics)
    return false;
  if (!callbackBytes(DL, T)) {
    ++NumOutsideSkipWidth;
    return false;
  }
  return true;
}

// A direct call (same type as the declaration) to a libc function the
// runtime wraps: its pointer arguments, the first one alone for a writer
// when reads are not checked.  True for a writer.
bool OutsideInstrumenter::chooseLibcOperands(CallInst &CI, Access &A,
                                             SmallVectorImpl<unsigned> &Cand) {
  auto *Callee = dyn_cast<Function>(CI.getCalledOperand()->stripPointerCasts());
  if (!ClCalls || isa<IntrinsicInst>(CI) || !Callee ||
      !Callee->isDeclaration() ||
      Callee->getFunctionType() != CI.getFunctionType())
    return false;
  bool Writes = false;
  StringRef Repl = libcOutsideReplacement(Callee->getName(), Writes);
  if (Repl.empty() || !(Writes || ClOutsideLoads))
    return false;
  A.Wrapper = Repl;
  for (unsigned K = 0, E = CI.arg_size(); K != E; ++K)
    if (CI.getArgOperand(K)->getType()->isPointerTy() &&
        (K == 0 || ClOutsideLoads))
      Cand.push_back(K);
  return Writes;
}

// The STATISTIC counts of the chosen accesses, by class.
void OutsideInstrumenter::countAccesses() const {
  for (const Access &A : Accesses) {
    if (!A.Wrapper.empty())
      ++NumOutsideLibc;
    else if (isa<LoadInst>(A.I))
      ++NumOutsideLoads;
    else if (isa<StoreInst>(A.I))
      ++NumOutsideStores;
    else if (isa<MemIntrinsic>(A.I))
      ++NumOutsideMemIntrinsics;
    else
      ++NumOutsideAtomics;
  }
}

// Where the window is read again: right after each changer, or at the
// start of each successor of a changing terminator (an invoke).  False when
// a successor has no place for it (a catchswitch): each check is then
// self-contained.
bool OutsideInstrumenter::reloadPoints(
    SmallVectorImpl<Instruction *> &ReloadAt) const {
  bool Placed = true;
  for (Instruction *I : Changers) {
    if (!I->isTerminator()) {
      ReloadAt.push_back(I->getNextNode());
      continue;
    }
    for (BasicBlock *S : successors(I)) {
      BasicBlock::iterator It = S->getFirstInsertionPt();
      if (It == S->end())
        Placed = false;
      else
        ReloadAt.push_back(&*It);
    }
  }
  return Placed;
}

// One segment per access, its check right before it: the window loaded,
// each exact address compared.
void OutsideInstrumenter::checkEachAccess() {
  for (Access &A : Accesses) {
    IRBuilder<> B(A.I);
    Value *HB = B.CreateLoad(IntPtr, Base, "amber.heap_base");
    Value *HS = B.CreateLoad(IntPtr, Size, "amber.heap_size");
    Value *In = nullptr;
    for (unsigned K : A.AddrOps) {
      Value *X = inWindow(B, A.I->getOperand(K), HB, HS);
      In = In ? B.CreateOr(In, X, "amber.in_heap") : X;
    }
    Segment &S = Segments.emplace_back();
    S.Accesses.push_back(&A);
    S.First = S.Last = A.I;
    S.Cond = In;
  }
}

// The window kept in registers between reload points, one check per
// (object, window), runs of accesses sharing a branch.
void OutsideInstrumenter::shareChecks(ArrayRef<Instruction *> ReloadAt) {
  placeWindow(ReloadAt);
  // Promoting changes no block: DT stays valid for the steps after.
  DominatorTree DT(F);
  PromoteMemToReg({VarBase, VarSize}, DT);
  computeChecks(DT);
  eraseUnusedWindowReads();
  groupSegments();
  computeConditions(DT);
}

// The window as a variable, set at entry and at every reload point; each
// access gets a placeholder (its Window) whose operands read the variable
// there, so that after promotion they are the window at the access.
void OutsideInstrumenter::placeWindow(ArrayRef<Instruction *> ReloadAt) {
  BasicBlock &Entry = F.getEntryBlock();
  IRBuilder<> EB(&Entry, Entry.begin());
  VarBase = EB.CreateAlloca(IntPtr, nullptr, "amber.window.base");
  VarSize = EB.CreateAlloca(IntPtr, nullptr, "amber.window.size");
  BasicBlock::iterator AfterAllocas = Entry.getFirstInsertionPt();
  while (isa<AllocaInst>(*AfterAllocas))
    ++AfterAllocas;
  readWindow(&*AfterAllocas);
  for (Instruction *At : ReloadAt)
    readWindow(At);
  for (Access &A : Accesses) {
    IRBuilder<> B(A.I);
    A.Window = cast<ICmpInst>(B.CreateICmpEQ(B.CreateLoad(IntPtr, VarBase),
                                             B.CreateLoad(IntPtr, VarSize)));
  }
}

// Reads the window globals into the variable before Before.
void OutsideInstrumenter::readWindow(Instruction *Before) {
  IRBuilder<> B(Before);
  LoadInst *LB = B.CreateLoad(IntPtr, Base, "amber.heap_base");
  LoadInst *LS = B.CreateLoad(IntPtr, Size, "amber.heap_size");
  B.CreateStore(LB, VarBase);
  B.CreateStore(LS, VarSize);
  WindowReads.push_back(LB);
  WindowReads.push_back(LS);
}

// Each access's checks (replacing its placeholder), one per (object,
// window), each right after its object and window are defined; where that
// is awkward, a check of the exact address right before the access.
void OutsideInstrumenter::computeChecks(const DominatorTree &DT) {
  DenseMap<std::pair<Value *, std::pair<Value *, Value *>>, Value *> Checks;
  for (Access &A : Accesses) {
    Value *HB = A.Window->getOperand(0), *HS = A.Window->getOperand(1);
    A.Window->eraseFromParent();
    A.Window = nullptr;
    for (unsigned K : A.AddrOps) {
      Value *Addr = A.I->getOperand(K);
      Value *Obj = checkedObject(Addr);
      auto Key = std::make_pair(Obj, std::make_pair(HB, HS));
      Value *X = Checks.lookup(Key);
      if (X) {
        ++NumOutsideSharedChecks;
      } else if (Instruction *At = earliestPoint(F, {Obj, HB, HS}, DT)) {
        IRBuilder<> B(At);
        X = Checks[Key] = inWindow(B, Obj, HB, HS);
      } else {
        IRBuilder<> B(A.I);
        X = inWindow(B, Addr, HB, HS);
      }
      if (!is_contained(A.Checks, X))
        A.Checks.push_back(X);
    }
  }
}

// Reads of the window that no check uses (only this function's: a walk
// over every user of the globals would grow with the module).
void OutsideInstrumenter::eraseUnusedWindowReads() {
  for (LoadInst *LI : WindowReads)
    if (LI->use_empty())
      LI->eraseFromParent();
  WindowReads.clear();
}

// Segments: runs of accesses in one block whose checks are all known
// before the first, with nothing between them that changes the window or
// cannot be duplicated, and at most MaxGap other instructions between two.
// An atomic or volatile access is a segment alone; a changer ends one.
void OutsideInstrumenter::groupSegments() {
  DenseMap<Instruction *, Access *> AccessOf;
  for (Access &A : Accesses)
    AccessOf[A.I] = &A;
  for (BasicBlock &BB : F) {
    Segment *Cur = nullptr;
    unsigned Gap = 0;
    for (Instruction &X : BB) {
      Access *A = AccessOf.lookup(&X);
      if (!A) {
        if (Cur && !isa<DbgInfoIntrinsic>(X) &&
            (mayChangeWindow(X, Stable) || !canDuplicate(X) ||
             ++Gap > MaxGap))
          Cur = nullptr;
        continue;
      }
      bool Joins = Cur && !A->Alone;
      for (Value *V : A->Checks)
        if (auto *CI = dyn_cast<Instruction>(V))
          if (Joins && CI->getParent() == &BB && !CI->comesBefore(Cur->First))
            Joins = false;
      if (!Joins) {
        Cur = &Segments.emplace_back();
        Cur->First = &X;
      }
      Cur->Accesses.push_back(A);
      Cur->Last = &X;
      Gap = 0;
      if (A->Alone || A->Changes)
        Cur = nullptr;
    }
  }
}

// Each segment's condition: its checks or'ed, as early as it can be, and
// shared by the segments with the same checks.
void OutsideInstrumenter::computeConditions(const DominatorTree &DT) {
  std::map<SmallVector<Value *, 4>, Value *> Ors;
  for (Segment &S : Segments) {
    SmallVector<Value *, 4> Ops;
    for (Access *A : S.Accesses)
      for (Value *V : A->Checks)
        if (!is_contained(Ops, V))
          Ops.push_back(V);
    if (Ops.size() == 1) {
      S.Cond = Ops[0];
      continue;
    }
    llvm::sort(Ops);
    Value *Or = Ors[Ops];
    if (!Or) {
      Instruction *At = earliestPoint(F, Ops, DT);
      IRBuilder<> B(At ? At : S.First);
      for (Value *V : Ops)
        Or = Or ? B.CreateOr(Or, V, "amber.in_heap") : V;
      if (At)
        Ors[Ops] = Or;
    }
    S.Cond = Or;
  }
}

// Splits every segment into its two sides.  Each condition is held by a
// freeze until all are split (splitting one segment may replace a value
// another's condition uses by a phi); then the holders go.
void OutsideInstrumenter::splitSegments() {
  StringMap<Constant *> Sites;
  for (Segment &S : Segments)
    S.Holder = new FreezeInst(S.Cond, "amber.cond", S.First);
  for (Segment &S : Segments) {
    ++NumOutsideBranches;
    splitSegment(S, Sites);
  }
  for (Segment &S : Segments) {
    S.Holder->replaceAllUsesWith(S.Holder->getOperand(0));
    S.Holder->eraseFromParent();
  }
}

// Range checks in F, an original function.  Stable: windowStableFunctions,
// computed before any function changes.  True if F changed.
static bool instrumentOutside(Function &F, const StableSet &Stable) {
  return OutsideInstrumenter(F, Stable).run();
}

bool instrumentOutsideModule(Module &M) {
  if (!ClOutside)
    return false;
  StableSet Stable = windowStableFunctions(M);
  bool Changed = false;
  for (Function &F : M)
    if (wantsOutsideInstrumentation(F))
      Changed |= instrumentOutside(F, Stable);
  return Changed;
}

} // namespace amber
