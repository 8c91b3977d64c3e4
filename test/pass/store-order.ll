; Pass ABI 7: a plain store inside a region or clone calls the plain entry
; (__amber_storeN / __amber_storep / __amber_storen: relaxed in ordinary
; memory), an atomic store __amber_atomic_storeN / __amber_atomic_storep
; with its C memory order (unordered and monotonic 0, release 3, seq_cst
; 5), a volatile non-atomic store the same with seq_cst (5), a volatile
; vector of 1/2/4/8 bytes bitcast to an integer.  Stores of other types
; keep __amber_storen (LLVM's only atomic among them, i128, never had a C
; atomic in the runtime).  Outside regions the cold side's
; __amber_outside_storeN is unchanged (release and seq_cst atomics there
; are exchanges: outside-stores.ll).
; RUN: %opt_amber -S %s | FileCheck %s

; The original, outside regions: the range check's cold side.
; CHECK-LABEL: define void @f(
; CHECK: call void @__amber_outside_store4(ptr %p, i32 1,
; CHECK: call void @__amber_outside_store4(ptr %p, i32 2,
; CHECK: call void @__amber_outside_store4(ptr %p, i32 3,
; CHECK: call void @__amber_outside_store4(ptr %p, i32 6,
; CHECK-NOT: __amber_atomic_store
; The clone, as in a region.
; CHECK-LABEL: define void @__amber_tx_f(
; CHECK: call void @__amber_store4(ptr %p, i32 1)
; CHECK-NEXT: call void @__amber_atomic_store4(ptr %p, i32 2, i32 0)
; CHECK-NEXT: call void @__amber_atomic_store4(ptr %p, i32 3, i32 0)
; CHECK-NEXT: call void @__amber_atomic_store4(ptr %p, i32 4, i32 3)
; CHECK-NEXT: call void @__amber_atomic_store4(ptr %p, i32 5, i32 5)
; CHECK-NEXT: call void @__amber_atomic_store4(ptr %p, i32 6, i32 5)
; CHECK-NEXT: call void @__amber_atomic_store4(ptr %p, i32 7, i32 0)
; CHECK-NEXT: call void @__amber_store1(ptr %p, i8 8)
; CHECK-NEXT: call void @__amber_atomic_store2(ptr %p, i16 9, i32 5)
; CHECK-NEXT: call void @__amber_atomic_store8(ptr %p, i64 10, i32 3)
; CHECK-NEXT: %[[F:.*]] = bitcast float %f to i32
; CHECK-NEXT: call void @__amber_atomic_store4(ptr %p, i32 %[[F]], i32 5)
; CHECK-NEXT: %[[Q:.*]] = ptrtoint ptr %q to i64
; CHECK-NEXT: call void @__amber_storep(ptr %p, i64 %[[Q]])
; CHECK-NEXT: %[[Q2:.*]] = ptrtoint ptr %q to i64
; CHECK-NEXT: call void @__amber_atomic_storep(ptr %p, i64 %[[Q2]], i32 3)
; CHECK-NEXT: %[[Q3:.*]] = ptrtoint ptr %q to i64
; CHECK-NEXT: call void @__amber_atomic_storep(ptr %p, i64 %[[Q3]], i32 5)
; CHECK-NEXT: store <2 x float> %v, ptr %[[T1:.*]], align
; CHECK-NEXT: call void @__amber_storen(ptr %p, ptr %[[T1]], i64 8)
; CHECK-NEXT: %[[V:.*]] = bitcast <2 x float> %v to i64
; CHECK-NEXT: call void @__amber_atomic_store8(ptr %p, i64 %[[V]], i32 5)
; CHECK-NEXT: store i128 %w, ptr %[[T2:.*]], align
; CHECK-NEXT: call void @__amber_storen(ptr %p, ptr %[[T2]], i64 16)
; CHECK-NEXT: ret void
define void @f(ptr %p, ptr %q, float %f, <2 x float> %v, i128 %w) {
  store i32 1, ptr %p, align 4
  store atomic i32 2, ptr %p unordered, align 4
  store atomic i32 3, ptr %p monotonic, align 4
  store atomic i32 4, ptr %p release, align 4
  store atomic i32 5, ptr %p seq_cst, align 4
  store volatile i32 6, ptr %p, align 4
  store atomic volatile i32 7, ptr %p monotonic, align 4
  store i8 8, ptr %p, align 1
  store volatile i16 9, ptr %p, align 2
  store atomic i64 10, ptr %p release, align 8
  store atomic float %f, ptr %p seq_cst, align 4
  store ptr %q, ptr %p, align 8
  store atomic ptr %q, ptr %p release, align 8
  store volatile ptr %q, ptr %p, align 8
  store <2 x float> %v, ptr %p, align 8
  store volatile <2 x float> %v, ptr %p, align 8
  store atomic i128 %w, ptr %p seq_cst, align 16
  ret void
}
