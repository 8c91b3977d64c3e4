; The irrevocable remark is visible through opt -pass-remarks-analysis=amber.
; RUN: %opt_amber -pass-remarks-analysis=amber -disable-output %s 2>&1 | FileCheck %s
; CHECK: remark: <unknown>:0:0: call to ext is resolved by the linker: its transactional clone __amber_tx_ext is called
define void @f() "amber-region" {
  call void @ext()
  ret void
}
@d = private global { i32, i16, i16, i32, i32, i64, ptr, ptr, ptr, i32, i32, ptr, i64 } { i32 1095582290, i16 8, i16 1, i32 0, i32 0, i64 0, ptr @f, ptr null, ptr null, i32 0, i32 0, ptr null, i64 0 }, section "amber_regions"
declare void @ext()
