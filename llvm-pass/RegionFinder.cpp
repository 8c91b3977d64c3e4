//===- RegionFinder.cpp - find AMBER regions and check their shape --------===//
//
// amber.h expands a region to
//   for (__amber_region_begin(kind, iso, __FILE__, __LINE__);
//        __amber_region_live(); __amber_region_end()) { body }
// which clang emits as
//   BeginBB:  call @__amber_region_begin(...)        ; br LiveBB
//   LiveBB:   %l = call @__amber_region_live()       ; br (%l != 0), Body, Exit
//   Body...:  the body; falls through / `continue`s to Latch
//   Latch:    call @__amber_region_end()             ; br LiveBB
//
// The region's blocks are those dominated by Body (the latch excluded).  A
// region must be single entry (only LiveBB enters Body) and single exit (only
// Latch leaves); return/break/goto out and goto in are compile errors.
//===----------------------------------------------------------------------===//
#include "Amber.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace amber {

static bool isCallTo(const Instruction &I, StringRef Name) {
  if (auto *CI = dyn_cast<CallInst>(&I))
    if (auto *F = dyn_cast_or_null<Function>(
            CI->getCalledOperand()->stripPointerCasts()))
      return F->getName() == Name;
  return false;
}

static CallInst *findCall(BasicBlock *BB, StringRef Name) {
  for (Instruction &I : *BB)
    if (isCallTo(I, Name))
      return cast<CallInst>(&I);
  return nullptr;
}

// Where an edge leaving the region ends up, following unconditional
// branches: at the for's exit (a break), at a return, or elsewhere (a goto).
enum class ExitKind { Break, Return, Goto };
// A block on clang's return path: only moves the result into the return
// slot (stores to allocas, loads, debug and lifetime intrinsics).
static bool onlyReturnPath(const BasicBlock *BB) {
  for (const Instruction &I : *BB) {
    if (I.isTerminator() || isa<LoadInst>(I) || isa<DbgInfoIntrinsic>(I) ||
        isa<CastInst>(I))
      continue;
    if (auto *II = dyn_cast<IntrinsicInst>(&I))
      if (II->isLifetimeStartOrEnd())
        continue;
    if (auto *SI = dyn_cast<StoreInst>(&I))
      if (isa<AllocaInst>(SI->getPointerOperand()->stripPointerCasts()))
        continue;
    return false;
  }
  return true;
}

static bool hasStore(const BasicBlock *BB) {
  for (const Instruction &I : *BB)
    if (isa<StoreInst>(I))
      return true;
  return false;
}

static ExitKind classifyExit(BasicBlock *S, const Region &R) {
  SmallPtrSet<BasicBlock *, 8> Seen;
  for (BasicBlock *BB = S; BB && Seen.insert(BB).second;) {
    if (BB == R.Exit)
      return ExitKind::Break;
    Instruction *T = BB->getTerminator();
    // The result is stored where the return statement is (S itself); a
    // later block that stores is a label's code: a goto, not a return.
    if (!onlyReturnPath(BB) || (BB != S && hasStore(BB)))
      break;
    if (auto *RI = dyn_cast<ReturnInst>(T)) {
      // `goto out; ... out: return 0;` in a single-return function: the
      // value is returned directly at the label, not loaded from the slot
      // a return statement in the region would have stored.
      Value *RV = RI->getReturnValue();
      if (BB != S && RV && !isa<LoadInst>(RV))
        break;
      return ExitKind::Return;
    }
    auto *Br = dyn_cast<BranchInst>(T);
    if (!Br || Br->isConditional() || BB == R.Latch || BB == R.LiveBB)
      break;
    BB = Br->getSuccessor(0);
  }
  return ExitKind::Goto;
}

// Locates the structure of one region from its begin call.  Returns false
// (after reporting) when the markers are not in the shape amber.h produces.
static bool locate(Function &F, CallInst *Begin, Region &R) {
  R.Begin = Begin;
  R.BeginBB = Begin->getParent();
  if (auto *K = dyn_cast<ConstantInt>(Begin->getArgOperand(0)))
    R.Kind = K->getZExtValue();
  if (auto *L = dyn_cast<ConstantInt>(Begin->getArgOperand(3)))
    R.Line = L->getZExtValue();
  StringRef File;
  if (getConstantStringInfo(Begin->getArgOperand(2), File))
    R.File = File.str();
  else
    R.File = F.getParent()->getSourceFileName();
  auto Malformed = [&](const Twine &Why) {
    reportError(F, Begin, R.File, R.Line,
                "amber: malformed AMBER region (" + Why +
                    "); write regions only with the macros of <amber.h>");
    return false;
  };
  if (!isa<ConstantInt>(Begin->getArgOperand(0)))
    return Malformed("the region kind is not a constant");

  auto *BBr = dyn_cast<BranchInst>(R.BeginBB->getTerminator());
  if (!BBr || BBr->isConditional())
    return Malformed("no branch from the begin marker to the live test");
  R.LiveBB = BBr->getSuccessor(0);
  R.Live = findCall(R.LiveBB, "__amber_region_live");
  if (!R.Live)
    return Malformed("no __amber_region_live call after the begin marker");
  auto *LBr = dyn_cast<BranchInst>(R.LiveBB->getTerminator());
  if (!LBr || !LBr->isConditional())
    return Malformed("the live test does not branch into the body");
  R.Body = LBr->getSuccessor(0);
  R.Exit = LBr->getSuccessor(1);
  for (BasicBlock *P : predecessors(R.LiveBB)) {
    if (P == R.BeginBB)
      continue;
    if (CallInst *E = findCall(P, "__amber_region_end")) {
      R.Latch = P;
      R.End = E;
    }
  }
  if (!R.Latch)
    return Malformed("no __amber_region_end call branching back to the live "
                     "test");
  return true;
}

// Checks single entry / single exit; reports each violation.
static bool check(Function &F, Region &R, DominatorTree &DT) {
  bool OK = true;
  auto Err = [&](const Instruction *I, const Twine &Msg) {
    reportError(F, I, R.File, R.Line, Msg);
    OK = false;
  };

  // Blocks dominated by the body entry: the region proper.
  DenseSet<BasicBlock *> Dom;
  for (BasicBlock &BB : F)
    if (DT.isReachableFromEntry(&BB) && DT.dominates(R.Body, &BB) &&
        &BB != R.Latch)
      Dom.insert(&BB);

  // Forward from Body (stopping at the latch, live test and exit), and
  // backward from the latch (stopping at the live test): blocks in both but
  // not dominated by Body were entered from outside (goto into the region).
  DenseSet<BasicBlock *> Fwd, Bwd;
  SmallVector<BasicBlock *, 16> Work{R.Body};
  while (!Work.empty()) {
    BasicBlock *BB = Work.pop_back_val();
    if (BB == R.Latch || BB == R.LiveBB || BB == R.Exit || !Fwd.insert(BB).second)
      continue;
    for (BasicBlock *S : successors(BB))
      Work.push_back(S);
  }
  Work.push_back(R.Latch);
  while (!Work.empty()) {
    BasicBlock *BB = Work.pop_back_val();
    if (BB == R.LiveBB || !Bwd.insert(BB).second)
      continue;
    for (BasicBlock *P : predecessors(BB))
      Work.push_back(P);
  }
  // A block dominated by Body that cannot reach the latch belongs to the
  // region only if it cannot get out either (abort(), an endless loop);
  // otherwise it is the path of a return/break/goto out of the region.
  DenseSet<BasicBlock *> Escapes; // can reach a ret, Exit or LiveBB, not via Latch
  Work.clear();
  for (BasicBlock &BB : F)
    if (isa<ReturnInst>(BB.getTerminator()))
      Work.push_back(&BB);
  Work.push_back(R.Exit);
  Work.push_back(R.LiveBB);
  while (!Work.empty()) {
    BasicBlock *BB = Work.pop_back_val();
    if (BB == R.Latch || !Escapes.insert(BB).second)
      continue;
    for (BasicBlock *P : predecessors(BB))
      Work.push_back(P);
  }
  DenseSet<BasicBlock *> Inside;
  Inside.insert(R.Body);
  for (BasicBlock *BB : Dom)
    if (Bwd.count(BB) || !Escapes.count(BB))
      Inside.insert(BB);
  for (BasicBlock *BB : Fwd)
    if (Bwd.count(BB))
      Inside.insert(BB);

  // Goto into the region: an edge from a reachable block outside into it.
  for (BasicBlock &BB : F) {
    if (!Inside.count(&BB))
      continue;
    for (BasicBlock *P : predecessors(&BB)) {
      if (Inside.count(P) || P == R.LiveBB || !DT.isReachableFromEntry(P))
        continue;
      Err(P->getTerminator(),
          "amber: goto into an AMBER region skips its beginning; move the "
          "label out of the region or the goto into it");
    }
  }
  if (!DT.dominates(R.Body, R.Latch) && DT.isReachableFromEntry(R.Latch))
    for (BasicBlock *P : predecessors(R.Latch))
      if (!Inside.count(P) && DT.isReachableFromEntry(P))
        Err(P->getTerminator(),
            "amber: goto into an AMBER region skips its beginning; move the "
            "label out of the region or the goto into it");

  // Exits other than through the latch.
  for (BasicBlock &BB : F) {
    if (!Inside.count(&BB))
      continue;
    Instruction *T = BB.getTerminator();
    if (isa<ReturnInst>(T)) {
      Err(T, "amber: return inside an AMBER region leaves it without "
             "committing; store the result in a variable and return after "
             "the region");
      continue;
    }
    SmallPtrSet<BasicBlock *, 4> Seen;
    for (BasicBlock *S : successors(&BB)) {
      if (Inside.count(S) || S == R.Latch || !Seen.insert(S).second)
        continue;
      // Report where the exit statement is: the path's own block when it
      // belongs to this region, else the branch that leaves.
      const Instruction *At = T;
      if (Dom.count(S) && S->getTerminator()->getDebugLoc())
        At = S->getTerminator();
      switch (classifyExit(S, R)) {
      case ExitKind::Break:
        Err(At, "amber: break leaves an AMBER region without committing; "
                "use 'continue' to end the region early, or set a flag and "
                "test it after the region");
        break;
      case ExitKind::Return:
        Err(At, "amber: return inside an AMBER region leaves it without "
                "committing; store the result in a variable and return "
                "after the region");
        break;
      case ExitKind::Goto:
        Err(At, "amber: goto leaves an AMBER region without committing; set "
                "a flag and test it after the region");
        break;
      }
    }
  }
  return OK;
}

bool findRegions(Function &F, SmallVectorImpl<Region> &Out) {
  SmallVector<CallInst *, 4> Begins;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (isCallTo(I, "__amber_region_begin"))
        Begins.push_back(cast<CallInst>(&I));
  if (Begins.empty())
    return true;
  DominatorTree DT(F);
  bool OK = true;
  unsigned Ordinal = 0;
  for (CallInst *B : Begins) {
    Region R;
    R.Ordinal = Ordinal++;
    if (!locate(F, B, R)) {
      OK = false;
      continue;
    }
    if (!check(F, R, DT))
      OK = false;
    if (DT.isReachableFromEntry(R.BeginBB))
      Out.push_back(R); // else dead code: the markers go with it
  }
  return OK;
}

} // namespace amber
