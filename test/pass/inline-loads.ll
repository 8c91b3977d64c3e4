; Plain loads in a transactional clone (and a region function) get an inline
; path (ABI 4, amber_interface.h "Inline loads inside regions"): one call of
; __amber_direct_reads() at the function's entry; per load, the heap window
; check, then a load at the alias (p + __amber_heap_delta) for the heap, the
; program's own load for ordinary memory, and the callback for the rest (not
; direct, or a span past the heap's end).  A pointer-typed value that is a
; code handle (bits 48..63 = 0xAB1E) goes to __amber_loadp; a vector (up to
; 64 bytes) is loaded whole.  Volatile, atomic and aggregate loads keep the
; callback; the original function keeps its loads.
; RUN: %opt_amber -S %s | FileCheck %s
; RUN: %opt_amber -amber-inline-loads=false -S %s | FileCheck %s --check-prefix=OFF
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define i64 @f(ptr %p, ptr %q) {
  %a = load i32, ptr %p, align 4
  %r = load ptr, ptr %q, align 8
  %v = load volatile i64, ptr %r, align 8
  %t = load atomic i64, ptr %r acquire, align 8
  %w = load <4 x i32>, ptr %r, align 16
  %agg = load { i32, i8 }, ptr %r, align 4
  store <4 x i32> %w, ptr %q, align 16
  store { i32, i8 } %agg, ptr %q, align 4
  %a1 = zext i32 %a to i64
  %s = add i64 %a1, %v
  %s2 = add i64 %s, %t
  ret i64 %s2
}

; CHECK: @__amber_heap_delta = extern_weak global i64
; CHECK-LABEL: define i64 @f(
; CHECK-NOT: __amber_direct_reads
; CHECK: ret i64

; CHECK-LABEL: define i64 @__amber_tx_f(
; CHECK: %amber.direct = call i32 @__amber_direct_reads()
; CHECK-NEXT: %[[D:.*]] = icmp ne i32 %amber.direct, 0
; CHECK-NEXT: %amber.heap_base = load i64, ptr @__amber_heap_base
; CHECK-NEXT: %amber.heap_size = load i64, ptr @__amber_heap_size
; CHECK-NEXT: %amber.heap_delta = load i64, ptr @__amber_heap_delta
; CHECK-NEXT: br i1 %[[D]], label %amber.load.check, label %amber.load.slow
; CHECK: amber.load.check:
; CHECK: %amber.off = sub i64 %{{.*}}, %amber.heap_base
; CHECK-NEXT: %[[LIM:.*]] = sub i64 %amber.heap_size, 3
; CHECK-NEXT: %[[IN:.*]] = icmp ult i64 %amber.off, %[[LIM]]
; CHECK-NEXT: br i1 %[[IN]], label %amber.load.heap, label %amber.load.check2
; CHECK: amber.load.heap:
; CHECK-NEXT: %amber.alias = getelementptr i8, ptr %p, i64 %amber.heap_delta
; CHECK-NEXT: %[[H:.*]] = load i32, ptr %amber.alias, align 4
; CHECK: amber.load.check2:
; CHECK-NEXT: %[[OUT:.*]] = icmp uge i64 %amber.off, %amber.heap_size
; CHECK-NEXT: br i1 %[[OUT]], label %amber.load.ordinary, label %amber.load.slow
; CHECK: amber.load.ordinary:
; CHECK-NEXT: %[[O:.*]] = load i32, ptr %p, align 4
; CHECK: amber.load.slow:
; CHECK-NEXT: %[[S:.*]] = call i32 @__amber_load4(ptr %p)
; CHECK: %a = phi i32 [ %[[H]], %amber.load.heap ], [ %[[O]], %amber.load.ordinary ], [ %[[S]], %amber.load.slow ]
; The pointer load: a code handle takes the callback.
; CHECK: sub i64 %amber.heap_size, 7
; CHECK: %[[PH:.*]] = load i64, ptr %amber.alias{{.*}}, align 8
; CHECK-NEXT: %[[PT:.*]] = lshr i64 %[[PH]], 48
; CHECK-NEXT: %[[PC:.*]] = icmp eq i64 %[[PT]], 43806
; CHECK-NEXT: br i1 %[[PC]], label %amber.load.slow{{[0-9]+}}, label %amber.load.join{{[0-9]*}}
; CHECK: call i64 @__amber_loadp(ptr %q)
; CHECK: %r = inttoptr i64
; CHECK-NEXT: %v = call i64 @__amber_load8(ptr %r)
; CHECK-NEXT: %t = call i64 @__amber_load8(ptr %r)
; A vector is loaded whole (its callback: __amber_loadn); an aggregate is not
; inlined.
; CHECK: sub i64 %amber.heap_size, 15
; CHECK: load <4 x i32>, ptr %amber.alias{{.*}}, align 16
; CHECK: load <4 x i32>, ptr %r, align 16
; CHECK: call void @__amber_loadn(ptr %amber.tmp{{.*}}, ptr %r, i64 16)
; CHECK: %w = phi <4 x i32>
; CHECK: call void @__amber_loadn(ptr %{{.*}}, ptr %r, i64 8)
; CHECK: ret i64
; CHECK: declare extern_weak i32 @__amber_direct_reads()

; OFF-LABEL: define i64 @__amber_tx_f(
; OFF-NOT: __amber_direct_reads
; OFF: %a = call i32 @__amber_load4(ptr %p)
; OFF: ret i64
