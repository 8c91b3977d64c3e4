; cmpxchg -> __amber_casN and the {old, success} pair is rebuilt.
; RUN: %opt_amber -S %s | FileCheck %s

; CHECK-LABEL: define i1 @__amber_tx_f(
; CHECK: %[[OLD:.*]] = call i32 @__amber_cas4(ptr %p, i32 %e, i32 %n)
; CHECK-NEXT: %[[OK:.*]] = icmp eq i32 %[[OLD]], %e
; CHECK-NEXT: %[[R1:.*]] = insertvalue { i32, i1 } poison, i32 %[[OLD]], 0
; CHECK-NEXT: %r = insertvalue { i32, i1 } %[[R1]], i1 %[[OK]], 1
; CHECK: %ok = extractvalue { i32, i1 } %r, 1
; CHECK: call i64 @__amber_cas8(ptr %p, i64 %{{.*}}, i64 %{{.*}})
; CHECK: inttoptr i64 %{{.*}} to ptr
; CHECK-NOT: cmpxchg
; CHECK: ret i1 %ok
define i1 @f(ptr %p, i32 %e, i32 %n, ptr %a, ptr %b) {
  %r = cmpxchg ptr %p, i32 %e, i32 %n seq_cst seq_cst
  %ok = extractvalue { i32, i1 } %r, 1
  %s = cmpxchg weak ptr %p, ptr %a, ptr %b acq_rel monotonic
  ret i1 %ok
}
