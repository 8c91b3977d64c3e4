; Atomic loads use the same sized callbacks as plain ones; atomic stores
; (pass ABI 7) the ordered ones, with their C memory order (store-order.ll).
; RUN: %opt_amber -S %s | FileCheck %s
; RUN: %opt_amber -amber-instrument-atomics=false -S %s | FileCheck %s --check-prefix=OFF

; CHECK-LABEL: define i32 @__amber_tx_f(
; CHECK: %v = call i32 @__amber_load4(ptr %p)
; CHECK: call void @__amber_atomic_store8(ptr %q, i64 5, i32 3)
; CHECK-NOT: load atomic
; CHECK-NOT: store atomic
; CHECK: ret i32 %v
; OFF-LABEL: define i32 @__amber_tx_f(
; OFF: load atomic i32, ptr %p seq_cst
; OFF: store atomic i64 5, ptr %q release
define i32 @f(ptr %p, ptr %q) {
  %v = load atomic i32, ptr %p seq_cst, align 4
  store atomic i64 5, ptr %q release, align 8
  ret i32 %v
}
