; Vectors, aggregates, i128, x86_fp80 and odd sizes use the generic
; callbacks through a temporary (loads: with the inline path off, see
; inline-loads.ll); nothing asserts on a type.
; RUN: %opt_amber -amber-inline-loads=false -S %s | FileCheck %s

; CHECK-LABEL: define void @__amber_tx_f(
; CHECK-DAG: %amber.tmp = alloca <4 x i32>
; CHECK-DAG: alloca { i32, i8 }
; CHECK-DAG: alloca i128
; CHECK-DAG: alloca x86_fp80
; CHECK-DAG: alloca i24
; CHECK: call void @__amber_loadn(ptr %amber.tmp, ptr %p, i64 16)
; CHECK-NEXT: %v = load <4 x i32>, ptr %amber.tmp,
; CHECK: call void @__amber_loadn(ptr %{{.*}}, ptr %p, i64 8)
; CHECK: call void @__amber_loadn(ptr %{{.*}}, ptr %p, i64 16)
; CHECK: call void @__amber_loadn(ptr %{{.*}}, ptr %p, i64 10)
; CHECK: call void @__amber_loadn(ptr %{{.*}}, ptr %p, i64 3)
; CHECK: store <4 x i32> %v, ptr %[[S:.*]],
; CHECK-NEXT: call void @__amber_storen(ptr %q, ptr %[[S]], i64 16)
; CHECK: call void @__amber_storen(ptr %q, ptr %{{.*}}, i64 8)
; CHECK: call void @__amber_storen(ptr %q, ptr %{{.*}}, i64 16)
; CHECK: call void @__amber_storen(ptr %q, ptr %{{.*}}, i64 10)
; CHECK: call void @__amber_storen(ptr %q, ptr %{{.*}}, i64 3)
; CHECK-NOT: load {{.*}}, ptr %p
; CHECK: ret void
define void @f(ptr %p, ptr %q) {
  %v = load <4 x i32>, ptr %p
  %s = load { i32, i8 }, ptr %p
  %w = load i128, ptr %p
  %x = load x86_fp80, ptr %p
  %o = load i24, ptr %p
  store <4 x i32> %v, ptr %q
  store { i32, i8 } %s, ptr %q
  store i128 %w, ptr %q
  store x86_fp80 %x, ptr %q
  store i24 %o, ptr %q
  ret void
}
