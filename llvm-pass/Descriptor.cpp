//===- Descriptor.cpp - struct __amber_region_desc emission ---------------===//
//
// One descriptor per region, laid out exactly as struct __amber_region_desc
// in runtime/amber_interface.h, private and writable (the runtime owns
// runtime_state), in section "amber_regions", kept by llvm.compiler.used.
//===----------------------------------------------------------------------===//
#include "Amber.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace amber {

// Field indices of struct __amber_region_desc.
enum DescField {
  DF_Magic, DF_Abi, DF_Kind, DF_Flags, DF_Line, DF_OpId, DF_Fn, DF_Name,
  DF_File, DF_ClosureSize, DF_NFields, DF_Fields, DF_RuntimeState
};

uint64_t fnv1a64(StringRef S) {
  uint64_t H = 0xcbf29ce484222325ULL;
  for (unsigned char Ch : S) {
    H ^= Ch;
    H *= 0x100000001b3ULL;
  }
  return H;
}

StructType *descriptorType(LLVMContext &C) {
  if (auto *T = StructType::getTypeByName(C, "struct.__amber_region_desc"))
    return T;
  auto *I16 = Type::getInt16Ty(C), *I32 = Type::getInt32Ty(C),
       *I64 = Type::getInt64Ty(C);
  auto *Ptr = PointerType::getUnqual(C);
  return StructType::create(C,
                            {I32, I16, I16, I32, I32, I64, Ptr, Ptr, Ptr, I32,
                             I32, Ptr, I64},
                            "struct.__amber_region_desc");
}

static StructType *fieldType(LLVMContext &C) {
  if (auto *T = StructType::getTypeByName(C, "struct.__amber_field"))
    return T;
  auto *I32 = Type::getInt32Ty(C);
  return StructType::create(C, {I32, I32, I32, I32}, "struct.__amber_field");
}

static Constant *privateString(Module &M, StringRef S, const Twine &Name) {
  Constant *Init = ConstantDataArray::getString(M.getContext(), S);
  auto *GV = new GlobalVariable(M, Init->getType(), true,
                                GlobalValue::PrivateLinkage, Init, Name);
  GV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  GV->setAlignment(Align(1));
  return GV;
}

GlobalVariable *emitDescriptor(Module &M, const DescInfo &D) {
  LLVMContext &C = M.getContext();
  const DataLayout &DL = M.getDataLayout();
  auto *I16 = Type::getInt16Ty(C), *I32 = Type::getInt32Ty(C),
       *I64 = Type::getInt64Ty(C);
  auto *Ptr = PointerType::getUnqual(C);
  StructType *FT = fieldType(C);
  std::string Base = D.RegionFn->getName().str();

  // Closure layout.
  SmallVector<Constant *, 8> Fields;
  uint64_t ClosureSize = 0;
  if (auto *ST = dyn_cast_or_null<StructType>(D.ClosureTy)) {
    const StructLayout *SL = DL.getStructLayout(ST);
    ClosureSize = SL->getSizeInBytes();
    for (unsigned I = 0, E = ST->getNumElements(); I != E; ++I) {
      Type *ET = ST->getElementType(I);
      unsigned Kind = I >= D.NumInputs ? AMBER_FIELD_OUT
                      : ET->isPointerTy() ? AMBER_FIELD_POINTER
                                          : AMBER_FIELD_SCALAR;
      Fields.push_back(ConstantStruct::get(
          FT, {ConstantInt::get(I32, SL->getElementOffset(I)),
               ConstantInt::get(I32, DL.getTypeStoreSize(ET).getFixedValue()),
               ConstantInt::get(I32, Kind), ConstantInt::get(I32, 0)}));
    }
  }
  Constant *FieldsPtr = ConstantPointerNull::get(Ptr);
  if (!Fields.empty()) {
    auto *AT = ArrayType::get(FT, Fields.size());
    auto *FG = new GlobalVariable(M, AT, true, GlobalValue::PrivateLinkage,
                                  ConstantArray::get(AT, Fields),
                                  Base + ".fields");
    FG->setAlignment(Align(4));
    FieldsPtr = FG;
  }

  std::string Key = D.File + ":" + D.Function + ":" + D.Ordinal;
  std::string Name = D.Function + "#" + D.Ordinal;
  StructType *DT = descriptorType(C);
  Constant *Init = ConstantStruct::get(
      DT, {ConstantInt::get(I32, AMBER_DESC_MAGIC),
           ConstantInt::get(I16, AMBER_ABI_VERSION),
           ConstantInt::get(I16, D.Kind), ConstantInt::get(I32, D.Flags),
           ConstantInt::get(I32, D.Line), ConstantInt::get(I64, fnv1a64(Key)),
           D.RegionFn, privateString(M, Name, Base + ".name"),
           privateString(M, D.File, Base + ".file"),
           ConstantInt::get(I32, ClosureSize),
           ConstantInt::get(I32, Fields.size()), FieldsPtr,
           ConstantInt::get(I64, 0)});
  auto *GV = new GlobalVariable(M, DT, /*isConstant=*/false,
                                GlobalValue::PrivateLinkage, Init,
                                Base + ".desc");
  GV->setSection(DescSection);
  GV->setAlignment(Align(8));
  appendToCompilerUsed(M, {GV});
  return GV;
}

Function *descriptorFunction(GlobalVariable *Desc) {
  auto *CS = dyn_cast_or_null<ConstantStruct>(
      Desc->hasInitializer() ? Desc->getInitializer() : nullptr);
  if (!CS)
    return nullptr;
  return dyn_cast<Function>(CS->getOperand(DF_Fn)->stripPointerCasts());
}

SmallVector<std::pair<GlobalVariable *, Function *>, 8>
moduleDescriptors(Module &M) {
  SmallVector<std::pair<GlobalVariable *, Function *>, 8> Out;
  for (GlobalVariable &GV : M.globals())
    if (GV.hasSection() && GV.getSection() == DescSection)
      if (Function *F = descriptorFunction(&GV))
        Out.push_back({&GV, F});
  return Out;
}

void addDescriptorFlags(GlobalVariable *Desc, unsigned Flags) {
  auto *CS = cast<ConstantStruct>(Desc->getInitializer());
  SmallVector<Constant *, 13> Ops;
  for (Use &U : CS->operands())
    Ops.push_back(cast<Constant>(U.get()));
  auto *Old = cast<ConstantInt>(Ops[DF_Flags]);
  Ops[DF_Flags] = ConstantInt::get(Old->getType(), Old->getZExtValue() | Flags);
  Desc->setInitializer(ConstantStruct::get(CS->getType(), Ops));
}

} // namespace amber
