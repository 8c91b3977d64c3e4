; atomicrmw -> __amber_rmwN(p, v, op) with op = AtomicRMWInst::BinOp;
; float ops via bitcast; widths without a callback make the region
; irrevocable and keep the hardware atomic.
; RUN: %opt_amber -S %s | FileCheck %s

; CHECK-LABEL: define i32 @__amber_tx_f(
; CHECK: %a = call i32 @__amber_rmw4(ptr %p, i32 1, i32 1)
; CHECK: %b = call i8 @__amber_rmw1(ptr %p, i8 3, i32 6)
; CHECK: %[[X:.*]] = ptrtoint ptr %q to i64
; CHECK: %[[C:.*]] = call i64 @__amber_rmw8(ptr %p, i64 %[[X]], i32 0)
; CHECK: %c = inttoptr i64 %[[C]] to ptr
; CHECK: %[[D:.*]] = call i32 @__amber_rmw4(ptr %p, i32 1065353216, i32 11)
; CHECK: %d = bitcast i32 %[[D]] to float
; CHECK: %e = call i16 @__amber_rmw2(ptr %p, i16 7, i32 10)
; CHECK: call void @__amber_irrevocable()
; CHECK-NEXT: %w = atomicrmw add ptr %p, i128 1 seq_cst
; CHECK: ret i32 %a
define i32 @f(ptr %p, ptr %q) {
  %a = atomicrmw add ptr %p, i32 1 seq_cst
  %b = atomicrmw xor ptr %p, i8 3 monotonic
  %c = atomicrmw xchg ptr %p, ptr %q acq_rel
  %d = atomicrmw fadd ptr %p, float 1.0 seq_cst
  %e = atomicrmw umin ptr %p, i16 7 seq_cst
  %w = atomicrmw add ptr %p, i128 1 seq_cst
  ret i32 %a
}
