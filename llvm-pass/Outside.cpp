//===- Outside.cpp - stores outside regions (DESIGN.md §3 point 4) --------===//
//
// A store to persistent memory that does not go through the runtime is not
// logged, and the engine would roll it back after a crash.  So in every
// function that is neither a region function nor a transactional clone (the
// original functions, in every module the pass sees: any code may be handed
// a pointer into the heap), each store, atomicrmw, cmpxchg and memory
// intrinsic whose address may be persistent becomes
//
//   %a   = ptrtoint ptr %p to i64
//   %off = sub i64 %a, load(@__amber_heap_base)
//   %in  = icmp ult i64 %off, load(@__amber_heap_size)
//   br i1 %in, label %amber.persistent, label %amber.volatile   ; 1 : 2^20
// amber.persistent:              ; cold: a one-access transaction
//   call void @__amber_store8(ptr %p, i64 %v)
// amber.volatile:
//   store i64 %v, ptr %p         ; the original instruction
//
// (a phi joins the results of atomicrmw / cmpxchg).  Both globals are 0
// until the heap is open, so nothing takes the cold path before that.
// Skipped: addresses whose underlying objects are all allocas, global
// variables or byval arguments (never in the heap window), and other
// address spaces.  Loads are left alone.  Calls to the libc functions that
// write memory (memcpy, memmove, memset, strcpy, strncpy, strcat, strncat)
// go to their __amber_* wrappers unconditionally: the wrappers check the
// range themselves.
//===----------------------------------------------------------------------===//
#include "Amber.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

#define DEBUG_TYPE "amber"
STATISTIC(NumOutsideStores, "Number of stores outside regions range-checked");
STATISTIC(NumOutsideAtomics,
          "Number of atomicrmw/cmpxchg outside regions range-checked");
STATISTIC(NumOutsideMemIntrinsics,
          "Number of memory intrinsics outside regions range-checked");
STATISTIC(NumOutsideLibc,
          "Number of libc writer calls outside regions rewritten");
STATISTIC(NumOutsideSkipLocal, "Number of accesses outside regions skipped "
                               "(stack, globals, other address spaces)");
STATISTIC(NumOutsideSkipWidth, "Number of atomics outside regions skipped "
                               "(no callback for their width)");

namespace amber {

bool wantsOutsideInstrumentation(const Function &F) {
  StringRef Name = F.getName();
  return !(F.isDeclaration() || isRegionFunction(F) || isCloneFunction(F) ||
           isAbiName(Name) || Name.startswith("amber.") ||
           F.hasFnAttribute(Attribute::Naked));
}

// Provably not in the heap window: the stack, the program's globals.
static bool notPersistent(Value *Addr) {
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


// Puts I on the cold side of a range check of Addr; a copy of I, rewritten
// into its callback, on the other.
static void guard(Instruction *I, Value *Addr, GlobalVariable *Base,
                  GlobalVariable *Size) {
  LLVMContext &C = I->getContext();
  IRBuilder<> B(I);
  Type *IntPtr = Base->getValueType();
  Value *A = B.CreatePtrToInt(Addr, IntPtr, "amber.addr");
  Value *HB = B.CreateLoad(IntPtr, Base, "amber.heap_base");
  Value *HS = B.CreateLoad(IntPtr, Size, "amber.heap_size");
  Value *In = B.CreateICmpULT(B.CreateSub(A, HB, "amber.off"), HS,
                              "amber.in_heap");
  Instruction *ThenT = nullptr, *ElseT = nullptr;
  SplitBlockAndInsertIfThenElse(
      In, I, &ThenT, &ElseT, MDBuilder(C).createBranchWeights(1, 1u << 20));
  BasicBlock *Then = ThenT->getParent(), *Else = ElseT->getParent();
  BasicBlock *Tail = I->getParent();
  Then->setName("amber.persistent");
  Else->setName("amber.volatile");
  Tail->setName("amber.cont");

  Instruction *Copy = I->clone();
  Copy->insertBefore(ThenT);
  I->moveBefore(ElseT);
  if (!I->getType()->isVoidTy() && !I->use_empty()) {
    PHINode *PN =
        PHINode::Create(I->getType(), 2, I->getName() + ".amber", &Tail->front());
    I->replaceAllUsesWith(PN);
    PN->addIncoming(Copy, Then);
    PN->addIncoming(I, Else);
  }
  rewriteWithCallback(*Copy);
  // The persistent side is the cold one.
  for (Instruction &X : *Then)
    if (auto *CI = dyn_cast<CallInst>(&X))
      if (Function *Callee = CI->getCalledFunction())
        if (isAbiName(Callee->getName()))
          CI->addFnAttr(Attribute::Cold);
}

bool instrumentOutside(Function &F) {
  Module &M = *F.getParent();
  const DataLayout &DL = M.getDataLayout();
  SmallVector<std::pair<Instruction *, Value *>, 16> Guarded;
  SmallVector<CallBase *, 4> LibcCalls;

  // Choose.
  for (Instruction &I : instructions(F)) {
    Value *Addr = nullptr;
    if (auto *SI = dyn_cast<StoreInst>(&I)) {
      if (!outsideStoresEnabled(*SI) ||
          DL.getTypeStoreSize(SI->getValueOperand()->getType()).isScalable())
        continue;
      Addr = SI->getPointerOperand();
    } else if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) {
      if (!outsideAtomicsEnabled())
        continue;
      if (!callbackBytes(DL, RMW->getValOperand()->getType())) {
        ++NumOutsideSkipWidth;
        continue;
      }
      Addr = RMW->getPointerOperand();
    } else if (auto *CAS = dyn_cast<AtomicCmpXchgInst>(&I)) {
      if (!outsideAtomicsEnabled())
        continue;
      if (!callbackBytes(DL, CAS->getCompareOperand()->getType())) {
        ++NumOutsideSkipWidth;
        continue;
      }
      Addr = CAS->getPointerOperand();
    } else if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
      if (!outsideMemIntrinsicsEnabled() ||
          !(isa<MemSetInst>(MI) || isa<MemTransferInst>(MI)))
        continue;
      Addr = MI->getDest(); // only the written side matters
    } else if (auto *CB = dyn_cast<CallBase>(&I)) {
      if (!outsideCallsEnabled() || isa<IntrinsicInst>(CB))
        continue;
      if (auto *Callee = dyn_cast<Function>(
              CB->getCalledOperand()->stripPointerCasts()))
        if (Callee->isDeclaration() &&
            !libcWriterReplacement(Callee->getName()).empty())
          LibcCalls.push_back(CB);
      continue;
    } else {
      continue;
    }
    if (notPersistent(Addr)) {
      ++NumOutsideSkipLocal;
      continue;
    }
    Guarded.push_back({&I, Addr});
  }
  if (Guarded.empty() && LibcCalls.empty())
    return false;

  // Rewrite.
  for (CallBase *CB : LibcCalls) {
    auto *Callee = cast<Function>(CB->getCalledOperand()->stripPointerCasts());
    FunctionCallee AF = abiFunction(
        M, libcWriterReplacement(Callee->getName()), CB->getFunctionType());
    CB->setCalledFunction(CB->getFunctionType(), AF.getCallee());
    ++NumOutsideLibc;
  }
  if (!Guarded.empty()) {
    GlobalVariable *Base = abiGlobal(M, "__amber_heap_base");
    GlobalVariable *Size = abiGlobal(M, "__amber_heap_size");
    for (auto &[I, Addr] : Guarded) {
      if (isa<StoreInst>(I))
        ++NumOutsideStores;
      else if (isa<MemIntrinsic>(I))
        ++NumOutsideMemIntrinsics;
      else
        ++NumOutsideAtomics;
      guard(I, Addr, Base, Size);
    }
  }
  return true;
}

} // namespace amber
