//===- Outline.cpp - outline AMBER regions into region functions ----------===//
//
// For each region (innermost first):
//   1. bypass the for-structure: BeginBB -> Body, Latch -> Exit; the live test
//      and the end marker go away;
//   2. promote the function's allocas to SSA so scalar live-ins travel by
//      value;
//   3. CodeExtractor (aggregate arguments) moves the body into an internal
//      noinline function <parent>.amber_region.<ordinal> taking the closure;
//   4. the call it leaves becomes __amber_run(&desc, closure, iso) and the
//      descriptor is emitted.
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
  // Blocks of the region: reachable from Body before Exit.
  SetVector<BasicBlock *> Blocks;
  SmallVector<BasicBlock *, 16> Work{R.Body};
  while (!Work.empty()) {
    BasicBlock *BB = Work.pop_back_val();
    if (BB == R.Exit || !Blocks.insert(BB))
      continue;
    for (BasicBlock *S : successors(BB))
      Work.push_back(S);
  }
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
  removeUnreachableBlocks(F);
  promoteAllocas(F);
  // Innermost first: an inner region's begin marker follows its outer one's.
  for (Region &R : llvm::reverse(Regions))
    if (R.Begin && R.Begin->getParent())
      outlineOne(F, R);
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
