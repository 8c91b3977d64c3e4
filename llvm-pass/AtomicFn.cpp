//===- AtomicFn.cpp - AMBER_ATOMIC_FN: a whole function is one region -----===//
//
// AMBER_ATOMIC_FN is __attribute__((annotate("amber.atomic_fn"), noinline)).
// For such a function f the body moves into the region function
// f.amber_region.fn(closure), which loads the arguments from the closure and
// stores the result into its last field; f becomes a wrapper that packs its
// arguments into a closure on its stack and calls __amber_run (and returns
// zero when the body was cancelled).
//===----------------------------------------------------------------------===//
#include "Amber.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace amber {

static constexpr const char *WrapperAttr = "amber-atomic-fn-wrapper";

namespace {
struct Annotated {
  Function *F;
  std::string File;
  unsigned Line;
};
} // namespace

static SmallVector<Annotated, 4> annotatedFunctions(Module &M) {
  SmallVector<Annotated, 4> Out;
  SmallPtrSet<Function *, 4> Seen;
  forEachAnnotated(M, "amber.atomic_fn",
                   [&](GlobalValue *GV, StringRef File, unsigned Line) {
                     auto *F = dyn_cast<Function>(GV);
                     if (!F || F->isDeclaration() || !Seen.insert(F).second)
                       return;
                     Out.push_back(Annotated{
                         F, File.empty() ? M.getSourceFileName() : File.str(),
                         Line});
                   });
  return Out;
}

static void wrap(Module &M, const Annotated &A) {
  Function &F = *A.F;
  LLVMContext &C = M.getContext();
  auto *Ptr = PointerType::getUnqual(C);
  FunctionType *FT = F.getFunctionType();
  SmallVector<Type *, 8> Elems(FT->param_begin(), FT->param_end());
  Type *RetTy = FT->getReturnType();
  bool HasRet = !RetTy->isVoidTy();
  if (HasRet)
    Elems.push_back(RetTy);
  StructType *CT = StructType::get(C, Elems);

  Function *RF = Function::Create(
      FunctionType::get(Type::getVoidTy(C), {Ptr}, false),
      GlobalValue::InternalLinkage, F.getName() + ".amber_region.fn", &M);
  RF->setAttributes(AttributeList::get(C, AttributeList::FunctionIndex,
                                       F.getAttributes().getFnAttrs()));
  RF->removeFnAttr(Attribute::AlwaysInline);
  RF->addFnAttr(Attribute::NoInline);
  RF->addFnAttr(RegionAttr);
  RF->splice(RF->end(), &F);
  RF->setSubprogram(F.getSubprogram());
  F.setSubprogram(nullptr);

  // Arguments come from the closure.
  BasicBlock &Entry = RF->getEntryBlock();
  IRBuilder<> B(&Entry, Entry.getFirstInsertionPt());
  Argument *Clo = RF->getArg(0);
  for (unsigned I = 0, E = F.arg_size(); I != E; ++I) {
    Argument *Arg = F.getArg(I);
    Value *V = B.CreateLoad(Arg->getType(), B.CreateStructGEP(CT, Clo, I),
                            Arg->getName());
    Arg->replaceAllUsesWith(V);
  }
  // Results go to the closure's last field.
  SmallVector<ReturnInst *, 4> Rets;
  for (BasicBlock &BB : *RF)
    if (auto *RI = dyn_cast<ReturnInst>(BB.getTerminator()))
      Rets.push_back(RI);
  for (ReturnInst *RI : Rets) {
    IRBuilder<> RB(RI);
    if (HasRet && RI->getReturnValue())
      RB.CreateStore(RI->getReturnValue(),
                     RB.CreateStructGEP(CT, Clo, Elems.size() - 1));
    ReturnInst *N = RB.CreateRetVoid();
    N->setDebugLoc(RI->getDebugLoc());
    RI->eraseFromParent();
  }

  DescInfo D;
  D.Kind = KindAtomic;
  D.Flags = AMBER_DESC_FUNCTION;
  D.Line = A.Line;
  D.File = A.File;
  D.Function = F.getName().str();
  D.Ordinal = "fn";
  D.RegionFn = RF;
  D.ClosureTy = CT;
  D.NumInputs = F.arg_size();
  GlobalVariable *Desc = emitDescriptor(M, D);

  // The wrapper.
  BasicBlock *BB = BasicBlock::Create(C, "entry", &F);
  IRBuilder<> W(BB);
  AllocaInst *Closure = W.CreateAlloca(CT, nullptr, "amber.closure");
  for (unsigned I = 0, E = F.arg_size(); I != E; ++I)
    W.CreateStore(F.getArg(I), W.CreateStructGEP(CT, Closure, I));
  Value *Run = W.CreateCall(abiRun(M), {Desc, Closure, W.getInt32(0 /* AMBER_ISO_DEFAULT */)});
  // A cancelled body (amber_cancel) returns the zero of its type: the
  // result slot holds nothing the caller may see; a result returned in
  // memory (sret) is zeroed there.
  for (Argument &A : F.args())
    if (Type *SRetTy = A.getParamStructRetType()) {
      BasicBlock *Zero = BasicBlock::Create(C, "amber.cancelled.zero", &F);
      BasicBlock *Done = BasicBlock::Create(C, "amber.done", &F);
      W.CreateCondBr(W.CreateICmpNE(Run, W.getInt32(0), "amber.cancelled"),
                     Zero, Done);
      IRBuilder<> Z(Zero);
      Z.CreateMemSet(&A, Z.getInt8(0),
                     M.getDataLayout().getTypeAllocSize(SRetTy),
                     A.getParamAlign());
      Z.CreateBr(Done);
      W.SetInsertPoint(Done);
    }
  if (HasRet)
    W.CreateRet(W.CreateSelect(
        W.CreateICmpNE(Run, W.getInt32(0), "amber.cancelled"),
        Constant::getNullValue(RetTy),
        W.CreateLoad(RetTy, W.CreateStructGEP(CT, Closure, Elems.size() - 1))));
  else
    W.CreateRetVoid();
  F.addFnAttr(WrapperAttr);
}

bool outlineAtomicFunctions(Module &M) {
  bool Changed = false;
  for (const Annotated &A : annotatedFunctions(M)) {
    Function &F = *A.F;
    if (F.hasFnAttribute(WrapperAttr) || F.hasFnAttribute(RegionAttr))
      continue;
    if (F.isVarArg()) {
      reportError(F, nullptr, A.File, A.Line,
                  "amber: AMBER_ATOMIC_FN cannot be used on a variadic "
                  "function; put an AMBER_ATOMIC region in its body instead");
      continue;
    }
    wrap(M, A);
    Changed = true;
  }
  return Changed;
}

} // namespace amber
