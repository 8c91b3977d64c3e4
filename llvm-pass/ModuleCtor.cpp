//===- ModuleCtor.cpp - the per-module constructor ------------------------===//
//
// Every module with a region or a transactional clone gets, at priority 101:
//   if (&__amber_module_init == 0) { write(2, <message>); _exit(2); }
//   __amber_module_init(AMBER_ABI_VERSION);
//   __amber_register_clones(amber.clones, n);   (when the module has clones)
//   __amber_register_code(amber.code, n);  (functions whose address is taken)
//   __amber_register_unisolated(amber.unisolated, n);
//                               (when it defines AMBER_UNISOLATED variables)
// All ABI symbols are extern_weak, so without the runtime the program starts,
// says how to fix it, and stops before any region could run.
//===----------------------------------------------------------------------===//
#include "Amber.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace amber {

static constexpr const char MissingRuntime[] =
    "amber: error: this program was built with the amber pass but the amber "
    "runtime is not loaded; link with -lamber (amber-cc does this) or run "
    "with LD_PRELOAD=/path/to/libamber.so\n";

// @amber.clones: private constant [n x struct __amber_clone { fn, clone }].
static GlobalVariable *
emitCloneTable(Module &M, ArrayRef<std::pair<Function *, Function *>> Table) {
  LLVMContext &C = M.getContext();
  auto *Ptr = PointerType::getUnqual(C);
  StructType *EntryTy = StructType::getTypeByName(C, "struct.__amber_clone");
  if (!EntryTy)
    EntryTy = StructType::create(C, {Ptr, Ptr}, "struct.__amber_clone");
  SmallVector<Constant *, 16> Entries;
  for (auto &[F, Clone] : Table)
    Entries.push_back(ConstantStruct::get(EntryTy, {F, Clone}));
  auto *ArrTy = ArrayType::get(EntryTy, Entries.size());
  auto *GV = new GlobalVariable(M, ArrTy, /*isConstant=*/true,
                                GlobalValue::PrivateLinkage,
                                ConstantArray::get(ArrTy, Entries),
                                "amber.clones");
  GV->setAlignment(Align(8));
  return GV;
}

// The functions whose address the module takes (defined here or not):
// the code addresses it may store into the heap, with the names a later run
// finds them by (docs/guide.md, "Function pointers in the heap").
SmallVector<Function *, 8> addressTakenFunctions(Module &M) {
  SmallVector<Function *, 8> Out;
  for (Function &F : M) {
    if (F.isIntrinsic() || F.getName().empty() || isAbiName(F.getName()) ||
        F.getName().startswith("amber.") || isRegionFunction(F) ||
        isCloneFunction(F) || F.hasAvailableExternallyLinkage())
      continue;
    if (F.hasAddressTaken(nullptr, /*IgnoreCallbackUses=*/false,
                          /*IgnoreAssumeLikeCalls=*/true,
                          /*IgnoreLLVMUsed=*/true))
      Out.push_back(&F);
  }
  return Out;
}

// The function whose address V is, converted to an integer, or null.
static Function *codeAsInteger(Value *V) {
  Value *Op = nullptr;
  if (auto *CE = dyn_cast<ConstantExpr>(V)) {
    if (CE->getOpcode() == Instruction::PtrToInt)
      Op = CE->getOperand(0);
  } else if (auto *PI = dyn_cast<PtrToIntInst>(V)) {
    Op = PI->getOperand(0);
  }
  return Op ? dyn_cast<Function>(Op->stripPointerCasts()) : nullptr;
}

void warnCodeAsInteger(Module &M) {
  for (Function &F : M) {
    if (F.isDeclaration() || isAbiName(F.getName()))
      continue;
    for (Instruction &I : instructions(F)) {
      auto *SI = dyn_cast<StoreInst>(&I);
      if (!SI || !SI->getValueOperand()->getType()->isIntegerTy())
        continue;
      Function *Code = codeAsInteger(SI->getValueOperand());
      if (!Code || notPersistent(SI->getPointerOperand()))
        continue;
      reportWarning(F, SI,
                    "amber: the address of function '" + Code->getName() +
                        "' is stored as an integer; in the persistent heap it "
                        "stays a raw code address that the next run or a "
                        "rebuild cannot call: store it as a function pointer "
                        "(docs/guide.md, \"Function pointers in the heap\")");
    }
  }
}

// The name a code address is kept under: the symbol's, and for a function
// with internal linkage "<source file's base name>:<name>" (two files may
// each have a static function of that name).
static std::string codeName(const Function &F) {
  if (!F.hasLocalLinkage())
    return F.getName().str();
  StringRef Src = F.getParent()->getSourceFileName();
  size_t Slash = Src.find_last_of('/');
  if (Slash != StringRef::npos)
    Src = Src.substr(Slash + 1);
  return (Src + ":" + F.getName()).str();
}

// @amber.code: private constant [n x struct __amber_code { fn, name }].
static GlobalVariable *emitCodeTable(Module &M, ArrayRef<Function *> Fns) {
  LLVMContext &C = M.getContext();
  auto *Ptr = PointerType::getUnqual(C);
  StructType *EntryTy = StructType::getTypeByName(C, "struct.__amber_code");
  if (!EntryTy)
    EntryTy = StructType::create(C, {Ptr, Ptr}, "struct.__amber_code");
  SmallVector<Constant *, 16> Entries;
  for (Function *F : Fns) {
    Constant *Name = ConstantDataArray::getString(C, codeName(*F));
    auto *NameGV = new GlobalVariable(M, Name->getType(), /*isConstant=*/true,
                                      GlobalValue::PrivateLinkage, Name,
                                      "amber.code.name");
    NameGV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
    NameGV->setAlignment(Align(1));
    Entries.push_back(ConstantStruct::get(EntryTy, {F, NameGV}));
  }
  auto *ArrTy = ArrayType::get(EntryTy, Entries.size());
  auto *GV = new GlobalVariable(M, ArrTy, /*isConstant=*/true,
                                GlobalValue::PrivateLinkage,
                                ConstantArray::get(ArrTy, Entries),
                                "amber.code");
  GV->setAlignment(Align(8));
  return GV;
}

// The variables defined here with __attribute__((annotate("amber.unisolated")))
// (AMBER_UNISOLATED), from llvm.global.annotations.
SmallVector<GlobalVariable *, 4> unisolatedGlobals(Module &M) {
  SmallVector<GlobalVariable *, 4> Out;
  forEachAnnotated(M, "amber.unisolated", [&](GlobalValue *G, StringRef, unsigned) {
    auto *GV = dyn_cast<GlobalVariable>(G);
    if (GV && !GV->isDeclaration() && !is_contained(Out, GV))
      Out.push_back(GV);
  });
  return Out;
}

// @amber.unisolated: private constant [n x struct __amber_range { addr, size }].
static GlobalVariable *emitRangeTable(Module &M,
                                      ArrayRef<GlobalVariable *> Vars) {
  LLVMContext &C = M.getContext();
  const DataLayout &DL = M.getDataLayout();
  auto *Ptr = PointerType::getUnqual(C);
  IntegerType *SizeT = DL.getIntPtrType(C);
  StructType *EntryTy = StructType::getTypeByName(C, "struct.__amber_range");
  if (!EntryTy)
    EntryTy = StructType::create(C, {Ptr, SizeT}, "struct.__amber_range");
  SmallVector<Constant *, 8> Entries;
  for (GlobalVariable *GV : Vars)
    Entries.push_back(ConstantStruct::get(
        EntryTy, {GV, ConstantInt::get(SizeT, DL.getTypeAllocSize(GV->getValueType()))}));
  auto *ArrTy = ArrayType::get(EntryTy, Entries.size());
  auto *GV = new GlobalVariable(M, ArrTy, /*isConstant=*/true,
                                GlobalValue::PrivateLinkage,
                                ConstantArray::get(ArrTy, Entries),
                                "amber.unisolated");
  GV->setAlignment(Align(8));
  return GV;
}

void emitModuleCtor(Module &M,
                    ArrayRef<std::pair<Function *, Function *>> CloneTable,
                    ArrayRef<Function *> CodeFns) {
  if (M.getFunction(CtorName))
    return;
  LLVMContext &C = M.getContext();
  const DataLayout &DL = M.getDataLayout();
  IntegerType *SizeT = DL.getIntPtrType(C);
  auto *I32 = Type::getInt32Ty(C);
  auto *Void = Type::getVoidTy(C);
  auto *Ptr = PointerType::getUnqual(C);

  Function *Ctor = Function::Create(FunctionType::get(Void, false),
                                    GlobalValue::InternalLinkage, CtorName, &M);
  Ctor->addFnAttr(Attribute::NoUnwind);
  BasicBlock *Entry = BasicBlock::Create(C, "entry", Ctor);
  BasicBlock *Missing = BasicBlock::Create(C, "missing", Ctor);
  BasicBlock *Init = BasicBlock::Create(C, "init", Ctor);

  FunctionCallee InitFn =
      abiFunction(M, "__amber_module_init", FunctionType::get(Void, {I32}, false));
  IRBuilder<> B(Entry);
  Value *Absent = B.CreateICmpEQ(InitFn.getCallee(), ConstantPointerNull::get(Ptr));
  B.CreateCondBr(Absent, Missing, Init);

  B.SetInsertPoint(Missing);
  FunctionCallee Write = M.getOrInsertFunction(
      "write", FunctionType::get(SizeT, {I32, Ptr, SizeT}, false));
  FunctionCallee Exit =
      M.getOrInsertFunction("_exit", FunctionType::get(Void, {I32}, false));
  StringRef Msg(MissingRuntime, sizeof(MissingRuntime) - 1);
  Constant *Str = B.CreateGlobalStringPtr(Msg, "amber.missing_runtime", 0, &M);
  B.CreateCall(Write, {ConstantInt::get(I32, 2), Str,
                       ConstantInt::get(SizeT, Msg.size())});
  CallInst *X = B.CreateCall(Exit, {ConstantInt::get(I32, 2)});
  X->setDoesNotReturn();
  B.CreateUnreachable();

  B.SetInsertPoint(Init);
  B.CreateCall(InitFn, {ConstantInt::get(I32, AMBER_ABI_VERSION)});
  if (!CloneTable.empty()) {
    GlobalVariable *Table = emitCloneTable(M, CloneTable);
    FunctionCallee Register = abiFunction(
        M, "__amber_register_clones", FunctionType::get(Void, {Ptr, SizeT}, false));
    B.CreateCall(Register,
                 {Table, ConstantInt::get(SizeT, CloneTable.size())});
  }
  if (!CodeFns.empty()) {
    GlobalVariable *Table = emitCodeTable(M, CodeFns);
    FunctionCallee Register = abiFunction(
        M, "__amber_register_code", FunctionType::get(Void, {Ptr, SizeT}, false));
    B.CreateCall(Register, {Table, ConstantInt::get(SizeT, CodeFns.size())});
  }
  SmallVector<GlobalVariable *, 4> Unisolated = unisolatedGlobals(M);
  if (!Unisolated.empty()) {
    GlobalVariable *Table = emitRangeTable(M, Unisolated);
    FunctionCallee Register =
        abiFunction(M, "__amber_register_unisolated",
                    FunctionType::get(Void, {Ptr, SizeT}, false));
    B.CreateCall(Register,
                 {Table, ConstantInt::get(SizeT, Unisolated.size())});
  }
  B.CreateRetVoid();

  appendToGlobalCtors(M, Ctor, 101);
}

} // namespace amber
