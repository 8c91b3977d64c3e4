//===- Plugin.cpp - registration of the amber pass plugin -----------------===//
//
// clang -fpass-plugin=AmberPass.so: OUTLINE at the pipeline start (the region
// structure is as clang emitted it), INSTRUMENT at the optimizer's end (after
// inlining and SROA, fewer accesses remain).  Both callbacks are invoked by
// LLVM 16's -O0 pipeline as well as -O1..-O3.
// opt: -passes=amber (outline, then instrument), amber-outline,
// amber-instrument.
//===----------------------------------------------------------------------===//
#include "Amber.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"

using namespace llvm;

namespace {

struct AmberOutlinePass : PassInfoMixin<AmberOutlinePass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    return amber::outlineModule(M) ? PreservedAnalyses::none()
                                   : PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

struct AmberInstrumentPass : PassInfoMixin<AmberInstrumentPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    return amber::instrumentModule(M) ? PreservedAnalyses::none()
                                      : PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

void registerCallbacks(PassBuilder &PB) {
  PB.registerPipelineStartEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(AmberOutlinePass());
      });
  PB.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(AmberInstrumentPass());
      });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "amber") {
          MPM.addPass(AmberOutlinePass());
          MPM.addPass(AmberInstrumentPass());
          return true;
        }
        if (Name == "amber-outline") {
          MPM.addPass(AmberOutlinePass());
          return true;
        }
        if (Name == "amber-instrument") {
          MPM.addPass(AmberInstrumentPass());
          return true;
        }
        return false;
      });
}

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "AmberPass", "1", registerCallbacks};
}
