//===- Annotations.cpp - the module's __attribute__((annotate(...))) ------===//
//
// clang records every annotate attribute on a global (a function or a
// variable) as one entry { value, name, file, line, args } of
// @llvm.global.annotations.  AMBER_ATOMIC_FN and AMBER_UNISOLATED are such
// attributes; this is the one walk over that table.
//===----------------------------------------------------------------------===//
#include "Amber.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"

using namespace llvm;

namespace amber {

void forEachAnnotated(
    Module &M, StringRef Name,
    function_ref<void(GlobalValue *GV, StringRef File, unsigned Line)> Fn) {
  GlobalVariable *GA = M.getNamedGlobal("llvm.global.annotations");
  if (!GA || !GA->hasInitializer())
    return;
  auto *Arr = dyn_cast<ConstantArray>(GA->getInitializer());
  if (!Arr)
    return;
  for (Use &U : Arr->operands()) {
    auto *CS = dyn_cast<ConstantStruct>(U.get());
    if (!CS || CS->getNumOperands() < 4)
      continue;
    auto *GV = dyn_cast<GlobalValue>(CS->getOperand(0)->stripPointerCasts());
    StringRef Ann, File;
    if (!GV || !getConstantStringInfo(CS->getOperand(1), Ann) || Ann != Name)
      continue;
    if (!getConstantStringInfo(CS->getOperand(2), File))
      File = StringRef();
    unsigned Line = 0;
    if (auto *L = dyn_cast<ConstantInt>(CS->getOperand(3)))
      Line = L->getZExtValue();
    Fn(GV, File, Line);
  }
}

} // namespace amber
