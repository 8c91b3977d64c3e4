//===- Diagnostics.cpp - errors with source locations ---------------------===//
//
// Errors go through LLVM's diagnostic machinery as DiagnosticInfoUnsupported,
// the kind clang maps back to a source location, so clang prints
// "file.c:LINE:COL: error: amber: ..." and fails the compilation.  When the
// offending instruction has no debug location (no -g), we build one from the
// region's begin marker arguments (__FILE__, __LINE__).
//===----------------------------------------------------------------------===//
#include "Amber.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace amber {

static DebugLoc fallbackLoc(LLVMContext &C, StringRef File, unsigned Line) {
  if (File.empty() || Line == 0)
    return DebugLoc();
  StringRef Dir = sys::path::parent_path(File);
  StringRef Name = File;
  if (!Dir.empty())
    Name = sys::path::filename(File);
  auto *DF = DIFile::get(C, Name, Dir);
  // A free-standing subprogram used only to carry the location: it is not
  // attached to any function, so the module's debug info is unchanged.
  auto *SP = DISubprogram::getDistinct(
      C, DF, "amber.region", "", DF, Line, nullptr, Line, nullptr, 0, 0,
      DINode::FlagZero, DISubprogram::SPFlagDefinition, nullptr);
  return DILocation::get(C, Line, 0, SP);
}

void reportError(const Function &F, const Instruction *I, StringRef File,
                 unsigned Line, const Twine &Msg) {
  LLVMContext &C = F.getContext();
  DebugLoc DL = I ? I->getDebugLoc() : DebugLoc();
  if (!DL || DL.getLine() == 0)
    DL = fallbackLoc(C, File, Line);
  if (DL)
    C.diagnose(DiagnosticInfoUnsupported(F, Msg, DiagnosticLocation(DL),
                                         DS_Error));
  else
    C.diagnose(DiagnosticInfoUnsupported(F, Msg, DiagnosticLocation(),
                                         DS_Error));
}

void reportWarning(const Function &F, const Instruction *I, const Twine &Msg) {
  DebugLoc DL = I ? I->getDebugLoc() : DebugLoc();
  F.getContext().diagnose(DiagnosticInfoUnsupported(
      F, Msg, DL ? DiagnosticLocation(DL) : DiagnosticLocation(), DS_Warning));
}

} // namespace amber
