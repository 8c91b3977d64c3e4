; float and double go through the sized callbacks with a bitcast; pointers
; through __amber_loadp / __amber_storep (which keep code addresses valid in
; the heap) with ptrtoint/inttoptr.
; RUN: %opt_amber -amber-inline-loads=false -S %s | FileCheck %s

; CHECK-LABEL: define ptr @__amber_tx_f(
; CHECK: %[[F:.*]] = call i32 @__amber_load4(ptr %p)
; CHECK-NEXT: %x = bitcast i32 %[[F]] to float
; CHECK: %[[D:.*]] = call i64 @__amber_load8(ptr %q)
; CHECK-NEXT: %y = bitcast i64 %[[D]] to double
; CHECK: %[[P:.*]] = call i64 @__amber_loadp(ptr %r)
; CHECK-NEXT: %z = inttoptr i64 %[[P]] to ptr
; CHECK: %[[FI:.*]] = bitcast float %x to i32
; CHECK-NEXT: call void @__amber_store4(ptr %q, i32 %[[FI]])
; CHECK: %[[DI:.*]] = bitcast double %y to i64
; CHECK-NEXT: call void @__amber_store8(ptr %p, i64 %[[DI]])
; CHECK: %[[PI:.*]] = ptrtoint ptr %z to i64
; CHECK-NEXT: call void @__amber_storep(ptr %r, i64 %[[PI]])
; CHECK: ret ptr %z
define ptr @f(ptr %p, ptr %q, ptr %r) {
  %x = load float, ptr %p
  %y = load double, ptr %q
  %z = load ptr, ptr %r
  store float %x, ptr %q
  store double %y, ptr %p
  store ptr %z, ptr %r
  ret ptr %z
}
