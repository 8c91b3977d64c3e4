; Stores of 1/2/4/8-byte integers become __amber_storeN(p, v).
; RUN: %opt_amber -S %s | FileCheck %s

; CHECK-LABEL: define void @__amber_tx_f(
; CHECK: call void @__amber_store1(ptr %p, i8 1)
; CHECK: call void @__amber_store2(ptr %p, i16 2)
; CHECK: call void @__amber_store4(ptr %p, i32 3)
; CHECK: call void @__amber_store8(ptr %p, i64 4)
; CHECK-NOT: store i{{[0-9]+}} {{.*}}, ptr %p
; CHECK: ret void
define void @f(ptr %p) {
  store i8 1, ptr %p
  store i16 2, ptr %p
  store i32 3, ptr %p
  store i64 4, ptr %p
  ret void
}
