; Loads of 1/2/4/8-byte integers in a transactional clone become sized
; callbacks; the original function keeps its loads (behind the range check
; outside regions: outside-loads.ll).
; RUN: %opt_amber -amber-inline-loads=false -S %s | FileCheck %s

; CHECK-LABEL: define i64 @f(
; CHECK-NOT: __amber_load
; CHECK: ret i64

; CHECK-LABEL: define i64 @__amber_tx_f(
; CHECK: %a = call i8 @__amber_load1(ptr %p)
; CHECK: %b = call i16 @__amber_load2(ptr %p)
; CHECK: %c = call i32 @__amber_load4(ptr %p)
; CHECK: %d = call i64 @__amber_load8(ptr %p)
; CHECK-NOT: load i{{[0-9]+}}, ptr %p
; CHECK: ret i64
; CHECK: declare extern_weak i8 @__amber_load1(ptr)
define i64 @f(ptr %p) {
  %a = load i8, ptr %p
  %b = load i16, ptr %p
  %c = load i32, ptr %p
  %d = load i64, ptr %p
  %a1 = zext i8 %a to i64
  %b1 = zext i16 %b to i64
  %c1 = zext i32 %c to i64
  %s1 = add i64 %a1, %b1
  %s2 = add i64 %s1, %c1
  %s3 = add i64 %s2, %d
  ret i64 %s3
}
