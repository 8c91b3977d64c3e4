//===- Abi.cpp - declarations of the runtime ABI (amber_interface.h) ------===//
//
// Every __amber_* function the pass calls is declared extern_weak, so a binary
// built with the pass still starts without the runtime and the module
// constructor can say what is missing instead of the dynamic loader failing.
// The __amber_outside_* callbacks (cold side of the range checks outside
// regions) use the preserve_most convention on x86-64, as the runtime
// defines them (AMBER_OUTSIDE_CC in amber_interface.h).
//===----------------------------------------------------------------------===//
#include "Amber.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace amber {

FunctionCallee abiFunction(Module &M, StringRef Name, FunctionType *Ty) {
  FunctionCallee C = M.getOrInsertFunction(Name, Ty);
  if (auto *F = dyn_cast<Function>(C.getCallee()))
    if (F->isDeclaration())
      F->setLinkage(GlobalValue::ExternalWeakLinkage);
  return C;
}

FunctionCallee abiRun(Module &M) {
  LLVMContext &C = M.getContext();
  auto *Ptr = PointerType::getUnqual(C);
  // int __amber_run(struct __amber_region_desc *, void *closure, int iso):
  // nonzero when the region was cancelled (amber_cancel)
  return abiFunction(M, "__amber_run",
                     FunctionType::get(Type::getInt32Ty(C),
                                       {Ptr, Ptr, Type::getInt32Ty(C)}, false));
}

FunctionCallee abiIrrevocable(Module &M) {
  LLVMContext &C = M.getContext();
  return abiFunction(M, "__amber_irrevocable",
                     FunctionType::get(Type::getVoidTy(C), false));
}

FunctionCallee abiIrrevocableIo(Module &M) {
  LLVMContext &C = M.getContext();
  return abiFunction(M, "__amber_irrevocable_io",
                     FunctionType::get(Type::getVoidTy(C), false));
}

FunctionCallee abiCloneOf(Module &M) {
  LLVMContext &C = M.getContext();
  auto *Ptr = PointerType::getUnqual(C);
  // void *__amber_clone_of(void *fn)
  return abiFunction(M, "__amber_clone_of",
                     FunctionType::get(Ptr, {Ptr}, false));
}

FunctionCallee abiStrayStore(Module &M) {
  LLVMContext &C = M.getContext();
  auto *Ptr = PointerType::getUnqual(C);
  // void __amber_stray_store(const char *site, const void *p)
  return abiFunction(M, "__amber_stray_store",
                     FunctionType::get(Type::getVoidTy(C), {Ptr, Ptr}, false));
}

void setOutsideConvention(CallInst &CI) {
  Function *F = CI.getCalledFunction();
  if (!F)
    return;
  CallingConv::ID CC =
      Triple(F->getParent()->getTargetTriple()).getArch() == Triple::x86_64
          ? CallingConv::PreserveMost
          : CallingConv::C;
  F->setCallingConv(CC);
  F->addFnAttr(Attribute::NonLazyBind);
  CI.setCallingConv(CC);
}

GlobalVariable *abiGlobal(Module &M, StringRef Name) {
  Type *IntPtr = M.getDataLayout().getIntPtrType(M.getContext());
  if (GlobalVariable *GV = M.getGlobalVariable(Name))
    return GV;
  return new GlobalVariable(M, IntPtr, /*isConstant=*/false,
                            GlobalValue::ExternalWeakLinkage, nullptr, Name);
}

bool isAbiName(StringRef Name) { return Name.startswith(AbiPrefix); }

} // namespace amber
