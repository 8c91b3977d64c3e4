//===- Clones.cpp - transactional clones and call redirection -------------===//
//
// Every function defined in the module (region functions, __amber_* and the
// pass's own functions excepted) gets a clone __amber_tx_<name> that is
// instrumented like a region.  Inside region functions and clones, direct
// calls to a function with a clone call the clone.  Clones of externally
// visible functions are externally visible too; internal stays internal.
// The (original, clone) pairs go into the module's clone table, registered
// with the runtime by the module constructor, so that indirect calls and
// calls into other modules inside regions find the clones at run time
// (__amber_clone_of).  A direct call to a function of another module calls
// that module's exported clone by name when the linker found one (ABI 6,
// Instrument.cpp); exported aliases of cloned functions get clone aliases.
//===----------------------------------------------------------------------===//
#include "Amber.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace llvm;

#define DEBUG_TYPE "amber"
STATISTIC(NumClones, "Number of transactional clones created");
STATISTIC(NumCloneAliases, "Number of aliases of transactional clones created");
STATISTIC(NumRedirected, "Number of calls redirected to transactional clones");

namespace amber {

bool isRegionFunction(const Function &F) {
  return F.hasFnAttribute(RegionAttr);
}

bool isCloneFunction(const Function &F) {
  StringRef N = F.getName();
  N.consume_front("\1");
  return N.startswith(ClonePrefix);
}

std::string cloneName(StringRef Name) {
  if (Name.consume_front("\1"))
    return ("\1" + Twine(ClonePrefix) + Name).str();
  return (ClonePrefix + Name).str();
}

static bool wantsClone(const Function &F) {
  if (F.isDeclaration() || F.isIntrinsic() || isRegionFunction(F) ||
      isAbiName(F.getName()) || F.getName().startswith("amber.") ||
      F.getName().empty())
    return false;
  return true;
}

static GlobalValue::LinkageTypes cloneLinkage(const Function &F) {
  if (F.hasLocalLinkage() || F.hasAvailableExternallyLinkage())
    return GlobalValue::InternalLinkage;
  return F.getLinkage();
}

SmallVector<Function *, 16>
makeClones(Module &M,
           SmallVectorImpl<std::pair<Function *, Function *>> &CloneTable) {
  SmallVector<Function *, 16> Originals;
  for (Function &F : M)
    if (wantsClone(F))
      Originals.push_back(&F);

  DenseMap<Function *, Function *> CloneOf;
  for (Function *F : Originals) {
    std::string Name = cloneName(F->getName());
    Function *C = M.getFunction(Name);
    if (!C) {
      ValueToValueMapTy VM;
      C = CloneFunction(F, VM);
      C->setName(Name);
      C->setLinkage(cloneLinkage(*F));
      C->setVisibility(F->hasLocalLinkage() ? GlobalValue::DefaultVisibility
                                            : F->getVisibility());
      if (F->hasComdat())
        C->setComdat(M.getOrInsertComdat(Name));
      C->removeFnAttr("amber-atomic-fn-wrapper");
      ++NumClones;
    }
    CloneOf[F] = C;
    CloneTable.push_back({F, C});
  }

  // An exported alias of a cloned function gets the same alias of the clone,
  // so a direct call through the alias's name from another module finds it
  // (__amber_tx_<alias>, as for a function).
  SmallVector<GlobalAlias *, 4> Aliases;
  for (GlobalAlias &GA : M.aliases())
    if (!GA.hasLocalLinkage() && !GA.getName().empty())
      Aliases.push_back(&GA);
  for (GlobalAlias *GA : Aliases) {
    auto *F = dyn_cast<Function>(GA->getAliasee()->stripPointerCasts());
    Function *C = F ? CloneOf.lookup(F) : nullptr;
    std::string Name = cloneName(GA->getName());
    if (!C || M.getNamedValue(Name))
      continue;
    auto *CA = GlobalAlias::create(C->getFunctionType(), 0, GA->getLinkage(),
                                   Name, C, &M);
    CA->setVisibility(GA->getVisibility());
    ++NumCloneAliases;
  }

  SmallVector<Function *, 16> Work;
  for (Function &F : M)
    if (!F.isDeclaration() && (isRegionFunction(F) || isCloneFunction(F)))
      Work.push_back(&F);
  for (Function *F : Work)
    for (Instruction &I : instructions(*F))
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (auto *Callee = dyn_cast_or_null<Function>(
                CB->getCalledOperand()->stripPointerCasts()))
          if (Function *C = CloneOf.lookup(Callee)) {
            CB->setCalledOperand(C);
            ++NumRedirected;
          }
  return Work;
}

} // namespace amber
