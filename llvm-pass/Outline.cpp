//===- Outline.cpp - outline AMBER regions into region functions ----------===//
//
// For each region (innermost first):
//   1. bypass the for-structure: BeginBB -> Body, Latch -> Exit; the live test
//      and the end marker go away (the exit stays reachable: a cancelled
//      region continues there even when its body never ends normally);
//   2. give each region that assigns locals a cancel path after it (the
//      locals' values at its entry stored back when __amber_run says it was
//      cancelled), then promote the function's allocas to SSA so scalar
//      live-ins travel by value and live-outs meet their entry values in a
//      phi after the region;
//   3. CodeExtractor (aggregate arguments) moves the body into an internal
//      noinline function <parent>.amber_region.<ordinal> taking the closure;
//   4. the call it leaves becomes __amber_run(&desc, closure, iso) and the
//      descriptor is emitted; the cancel path tests its result.
//===----------------------------------------------------------------------===//
#include "Amber.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/CodeExtractor.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"

using namespace llvm;

#define DEBUG_TYPE "amber"
STATISTIC(NumRegions, "Number of AMBER regions outlined");

namespace amber {

// Step 1: the region runs exactly once between BeginBB and Exit.
static void bypassLoop(Region &R) {
  BasicBlock *Live = R.LiveBB;
  R.Body->replacePhiUsesWith(Live, R.BeginBB);
  R.Exit->replacePhiUsesWith(Live, R.Latch);
  R.BeginBB->getTerminator()->setSuccessor(0, R.Body);
  Instruction *LT = R.Latch->getTerminator();
  BranchInst::Create(R.Exit, LT);
  LT->eraseFromParent();
  R.End->eraseFromParent();
  R.End = nullptr;
  if (pred_empty(Live)) {
    R.Live->replaceAllUsesWith(ConstantInt::get(R.Live->getType(), 1));
    DeleteDeadBlock(Live);
  }
  R.LiveBB = nullptr;
  R.Live = nullptr;
}

// The blocks of a region whose loop structure is bypassed: reachable from
// Body before Exit.
static SetVector<BasicBlock *> regionBlocks(const Region &R) {
  SetVector<BasicBlock *> Blocks;
  SmallVector<BasicBlock *, 16> Work{R.Body};
  while (!Work.empty()) {
    BasicBlock *BB = Work.pop_back_val();
    if (BB == R.Exit || !Blocks.insert(BB))
      continue;
    for (BasicBlock *S : successors(BB))
      Work.push_back(S);
  }
  return Blocks;
}

// Step 1b.  __amber_run returns after a cancel, so the code after a region
// is reachable even when its body never ends normally (it always calls
// amber_cancel, amber_retry, abort...); once the loop is bypassed nothing
// would say so and that code would be deleted as unreachable.  Such a
// region gets an edge Body' -> Latch under the NeverMarker condition, which
// keeps Latch, the cancel path and Exit alive; it is folded away in the
// region function once outlined (foldNever).  Innermost first: an inner
// region's edge makes its outer region's latch reachable.
static void keepExitReachable(Region &R) {
  SmallPtrSet<BasicBlock *, 16> Seen;
  SmallVector<BasicBlock *, 16> Work{R.Body};
  while (!Work.empty()) {
    BasicBlock *BB = Work.pop_back_val();
    if (BB == R.Latch)
      return; // the body can end normally
    if (BB == R.Exit || !Seen.insert(BB).second)
      continue;
    for (BasicBlock *S : successors(BB))
      Work.push_back(S);
  }
  Function &F = *R.Body->getParent();
  LLVMContext &C = F.getContext();
  FunctionCallee Never = F.getParent()->getOrInsertFunction(
      NeverMarker, FunctionType::get(Type::getInt1Ty(C), false));
  BasicBlock *Entry = BasicBlock::Create(C, "amber.body", &F, R.Body);
  R.BeginBB->getTerminator()->replaceSuccessorWith(R.Body, Entry);
  R.Body->replacePhiUsesWith(R.BeginBB, Entry);
  for (PHINode &P : R.Latch->phis())
    P.addIncoming(PoisonValue::get(P.getType()), Entry);
  IRBuilder<> B(Entry);
  B.CreateCondBr(B.CreateCall(Never), R.Latch, R.Body);
  R.Body = Entry;
}

// The NeverMarker edges of a region function: never taken.
static void foldNever(Function &RF) {
  Function *Never = RF.getParent()->getFunction(NeverMarker);
  if (!Never)
    return;
  SmallVector<CallInst *, 2> Calls;
  for (User *U : Never->users())
    if (auto *CI = dyn_cast<CallInst>(U))
      if (CI->getFunction() == &RF)
        Calls.push_back(CI);
  for (CallInst *CI : Calls) {
    BasicBlock *BB = CI->getParent();
    CI->replaceAllUsesWith(ConstantInt::getFalse(RF.getContext()));
    CI->eraseFromParent();
    ConstantFoldTerminator(BB);
  }
  if (!Calls.empty())
    removeUnreachableBlocks(RF);
}

// Step 2, before promotion.  amber_cancel() discards the region's run and
// __amber_run returns nonzero; the code after the region must then see
// every local as it was at the region's entry.  Locals whose address is
// taken live in memory, and the runtime's undo log restores them; the
// others (promotable allocas) become SSA values here, so for each one the
// region assigns, its value at the entry is loaded in BeginBB and stored
// back on a path taken only after a cancel:
//   Latch -> Check: %c = amber.region_cancelled(); br %c, Restore, Join
//   Restore: store entry values; br Join          Join: br Exit
// Promotion turns each pair into a phi at Join (region's value | entry
// value), so the region's live-out is read only when it committed.  R.Exit
// becomes Check; outlineOne replaces the marker by __amber_run's result.
static void addCancelPath(Function &F, Region &R) {
  SetVector<AllocaInst *> Assigned;
  for (BasicBlock *BB : regionBlocks(R))
    for (Instruction &I : *BB)
      if (auto *SI = dyn_cast<StoreInst>(&I))
        if (auto *AI = dyn_cast<AllocaInst>(SI->getPointerOperand()))
          if (AI->getParent() == &F.getEntryBlock() && isAllocaPromotable(AI))
            Assigned.insert(AI);
  if (Assigned.empty())
    return; // nothing promoted is assigned: no live-out to choose
  LLVMContext &C = F.getContext();
  Module &M = *F.getParent();
  FunctionCallee Marker = M.getOrInsertFunction(
      CancelledMarker, FunctionType::get(Type::getInt1Ty(C), false));
  IRBuilder<> SB(R.BeginBB->getTerminator());
  SmallVector<Value *, 8> Entry;
  for (AllocaInst *AI : Assigned)
    Entry.push_back(SB.CreateLoad(AI->getAllocatedType(), AI,
                                  AI->getName() + ".amber.entry"));
  BasicBlock *Check = BasicBlock::Create(C, "amber.cancel.check", &F, R.Exit);
  BasicBlock *Restore =
      BasicBlock::Create(C, "amber.cancel.restore", &F, R.Exit);
  BasicBlock *Join = BasicBlock::Create(C, "amber.cancel.join", &F, R.Exit);
  R.Latch->getTerminator()->replaceSuccessorWith(R.Exit, Check);
  R.Exit->replacePhiUsesWith(R.Latch, Join);
  IRBuilder<> B(Check);
  R.Cancelled = B.CreateCall(Marker, {}, "amber.cancelled");
  B.CreateCondBr(R.Cancelled, Restore, Join);
  B.SetInsertPoint(Restore);
  for (unsigned I = 0, E = Assigned.size(); I != E; ++I)
    B.CreateStore(Entry[I], Assigned[I]);
  B.CreateBr(Join);
  B.SetInsertPoint(Join);
  B.CreateBr(R.Exit);
  R.Exit = Check;
}

static void promoteAllocas(Function &F) {
  SmallVector<AllocaInst *, 16> Allocas;
  for (Instruction &I : F.getEntryBlock())
    if (auto *AI = dyn_cast<AllocaInst>(&I))
      if (isAllocaPromotable(AI))
        Allocas.push_back(AI);
  if (Allocas.empty())
    return;
  DominatorTree DT(F);
  AssumptionCache AC(F);
  PromoteMemToReg(Allocas, DT, &AC);
}

// CodeExtractor (scalar arguments: LLVM 16's aggregate mode mis-indexes
// live-outs) gives RF(in..., out*...).  Rebuild it as the region function
// NF(ptr closure) where closure = { in..., out... }: inputs are loaded from
// the closure, outputs are stored into it.  Returns NF.
static Function *closureForm(Function *RF, const SetVector<Value *> &Inputs,
                             const SetVector<Value *> &Outputs,
                             StructType *CT) {
  LLVMContext &C = RF->getContext();
  auto *Ptr = PointerType::getUnqual(C);
  Function *NF = Function::Create(
      FunctionType::get(Type::getVoidTy(C), {Ptr}, false), RF->getLinkage(),
      RF->getAddressSpace(), "", RF->getParent());
  NF->setAttributes(AttributeList::get(C, AttributeList::FunctionIndex,
                                       RF->getAttributes().getFnAttrs()));
  NF->splice(NF->begin(), RF);
  NF->setSubprogram(RF->getSubprogram());
  RF->setSubprogram(nullptr);
  NF->takeName(RF);
  Argument *Clo = NF->getArg(0);
  Clo->setName("amber.closure");
  BasicBlock &Entry = NF->getEntryBlock();
  IRBuilder<> B(&Entry, Entry.getFirstInsertionPt());
  unsigned NIn = Inputs.size();
  for (unsigned I = 0, E = RF->arg_size(); I != E; ++I) {
    Argument *A = RF->getArg(I);
    Value *Slot = B.CreateStructGEP(CT, Clo, I);
    Value *V = I < NIn ? B.CreateLoad(A->getType(), Slot) : Slot;
    V->takeName(A);
    A->replaceAllUsesWith(V);
  }
  return NF;
}

static bool outlineOne(Function &F, Region &R) {
  Module &M = *F.getParent();
  LLVMContext &C = F.getContext();
  SetVector<BasicBlock *> Blocks = regionBlocks(R);
  std::string Ord = std::to_string(R.Ordinal);
  DominatorTree DT(F);
  CodeExtractorAnalysisCache CEAC(F);
  CodeExtractor CE(Blocks.getArrayRef(), &DT, /*AggregateArgs=*/false,
                   nullptr, nullptr, nullptr, /*AllowVarArgs=*/false,
                   /*AllowAlloca=*/true, /*AllocationBlock=*/nullptr,
                   "amber_region." + Ord);
  if (!CE.isEligible()) {
    reportError(F, R.Begin, R.File, R.Line,
                "amber: this AMBER region cannot be outlined (it uses "
                "va_start, setjmp or another construct that cannot move to "
                "its own function); move that code out of the region");
    return false;
  }
  SetVector<Value *> Inputs, Outputs;
  Function *RF = CE.extractCodeRegion(CEAC, Inputs, Outputs);
  if (!RF) {
    reportError(F, R.Begin, R.File, R.Line,
                "amber: this AMBER region cannot be outlined");
    return false;
  }
  CallInst *Call = nullptr;
  for (User *U : RF->users())
    if (auto *CI = dyn_cast<CallInst>(U))
      Call = CI;
  assert(Call && "CodeExtractor leaves one call");
  assert(RF->arg_size() == Inputs.size() + Outputs.size());

  // The closure: { live-ins..., live-outs... } in the caller's frame.
  SmallVector<Type *, 8> Elems;
  for (Value *V : Inputs)
    Elems.push_back(V->getType());
  for (Value *V : Outputs)
    Elems.push_back(V->getType());
  StructType *CT = StructType::get(C, Elems);
  Value *Closure = ConstantPointerNull::get(PointerType::getUnqual(C));
  if (!Elems.empty()) {
    BasicBlock &Entry = F.getEntryBlock();
    IRBuilder<> EB(&Entry, Entry.getFirstInsertionPt());
    AllocaInst *AI = EB.CreateAlloca(CT, nullptr, "amber.closure");
    Closure = AI;
    // Output slots replace CodeExtractor's per-output allocas.
    for (unsigned J = 0, E = Outputs.size(); J != E; ++J) {
      auto *Loc = cast<AllocaInst>(Call->getArgOperand(Inputs.size() + J));
      SmallVector<Instruction *, 4> Dead;
      for (User *U : Loc->users())
        if (auto *II = dyn_cast<IntrinsicInst>(U))
          if (II->isLifetimeStartOrEnd())
            Dead.push_back(II);
      for (Instruction *I : Dead)
        I->eraseFromParent();
      IRBuilder<> GB(Call);
      Loc->replaceAllUsesWith(GB.CreateStructGEP(CT, AI, Inputs.size() + J));
      Loc->eraseFromParent();
    }
    IRBuilder<> SB(Call);
    for (unsigned I = 0, E = Inputs.size(); I != E; ++I)
      SB.CreateStore(Call->getArgOperand(I), SB.CreateStructGEP(CT, AI, I));
  }
  Function *Extracted = RF;
  RF = closureForm(Extracted, Inputs, Outputs, CT);
  foldNever(*RF);
  RF->setName(F.getName() + ".amber_region." + Ord);
  RF->setLinkage(GlobalValue::InternalLinkage);
  RF->removeFnAttr(Attribute::AlwaysInline);
  RF->addFnAttr(Attribute::NoInline);
  RF->addFnAttr(RegionAttr);
  Type *ClosureTy = Elems.empty() ? nullptr : CT;

  DescInfo D;
  D.Kind = R.Kind;
  D.Line = R.Line;
  D.File = R.File;
  D.Function = F.getName().str();
  D.Ordinal = Ord;
  D.RegionFn = RF;
  D.ClosureTy = ClosureTy;
  D.NumInputs = Inputs.size();
  GlobalVariable *Desc = emitDescriptor(M, D);

  IRBuilder<> B(Call);
  Value *Iso = R.Begin->getArgOperand(1);
  Iso = B.CreateSExtOrTrunc(Iso, Type::getInt32Ty(C));
  CallInst *Run = B.CreateCall(abiRun(M), {Desc, Closure, Iso});
  Run->setDebugLoc(R.Begin->getDebugLoc() ? R.Begin->getDebugLoc()
                                          : Call->getDebugLoc());
  if (R.Cancelled) {
    // The extracted call's block is the only way into Check (R.Exit).
    R.Cancelled->replaceAllUsesWith(
        B.CreateICmpNE(Run, B.getInt32(0), "amber.cancelled"));
    R.Cancelled->eraseFromParent();
    R.Cancelled = nullptr;
  }
  Call->eraseFromParent();
  Extracted->eraseFromParent();
  if (!R.Begin->use_empty())
    R.Begin->replaceAllUsesWith(ConstantInt::get(R.Begin->getType(), 0));
  R.Begin->eraseFromParent();
  R.Begin = nullptr;
  ++NumRegions;
  return true;
}

bool outlineRegions(Function &F) {
  SmallVector<Region, 4> Regions;
  if (!findRegions(F, Regions))
    return false; // errors reported; the compilation fails
  if (Regions.empty())
    return false;
  for (Region &R : Regions)
    bypassLoop(R);
  for (Region &R : llvm::reverse(Regions))
    keepExitReachable(R);
  removeUnreachableBlocks(F);
  for (Region &R : Regions)
    addCancelPath(F, R);
  promoteAllocas(F);
  // Innermost first: an inner region's begin marker follows its outer one's.
  for (Region &R : llvm::reverse(Regions))
    if (R.Begin && R.Begin->getParent())
      outlineOne(F, R);
  // A region that could not be outlined (reported: the compilation fails)
  // keeps its markers; never let them reach the object file.
  for (const char *Name : {CancelledMarker, NeverMarker})
    if (Function *Marker = F.getParent()->getFunction(Name)) {
      for (User *U : make_early_inc_range(Marker->users()))
        if (auto *CI = dyn_cast<CallInst>(U)) {
          CI->replaceAllUsesWith(ConstantInt::getFalse(F.getContext()));
          CI->eraseFromParent();
        }
      if (Marker->use_empty())
        Marker->eraseFromParent();
    }
  return true;
}

bool outlineModule(Module &M) {
  SmallVector<Function *, 16> Fns;
  for (Function &F : M)
    if (!F.isDeclaration() && !F.hasFnAttribute(RegionAttr))
      Fns.push_back(&F);
  bool Changed = false;
  for (Function *F : Fns)
    Changed |= outlineRegions(*F);
  Changed |= outlineAtomicFunctions(M);
  return Changed;
}

} // namespace amber
