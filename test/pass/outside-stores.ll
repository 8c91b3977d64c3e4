; Outside regions (in the original functions), stores, atomicrmw and cmpxchg
; whose address may be persistent get an inline range check against the heap
; window; the cold side calls the runtime's __amber_outside_* callback (a
; one-access transaction, counted as a stray store under its site: the
; function's name without debug info), the other side keeps the original
; instruction.  Allocas (escaping or not), globals and other address spaces
; are skipped.  The transactional clones keep their unconditional callbacks.
; RUN: %opt_amber -S %s | FileCheck %s
; RUN: %opt_amber -amber-instrument-outside=false -amber-inline-loads=false -S %s | FileCheck %s --check-prefix=OFF
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

@g = global i64 0

; CHECK-DAG: @__amber_heap_base = extern_weak global i64
; CHECK-DAG: @__amber_heap_size = extern_weak global i64
; CHECK-DAG: @[[SITE:amber.site[.0-9]*]] = private unnamed_addr constant [7 x i8] c"stores\00"
; CHECK-DAG: @[[ASITE:amber.site[.0-9]*]] = private unnamed_addr constant [8 x i8] c"atomics\00"

; The window is read after the call (the heap may have opened in it), and
; the check is made there.
; CHECK-LABEL: define void @stores(
; CHECK: call void @escape(ptr %a)
; CHECK-NEXT: %[[HB:amber.heap_base[0-9]*]] = load i64, ptr @__amber_heap_base, align 8
; CHECK-NEXT: %[[HS:amber.heap_size[0-9]*]] = load i64, ptr @__amber_heap_size, align 8
; CHECK-NEXT: %amber.addr = ptrtoint ptr %p to i64
; CHECK-NEXT: %amber.off = sub i64 %amber.addr, %[[HB]]
; CHECK-NEXT: %amber.in_heap = icmp ult i64 %amber.off, %[[HS]]
; CHECK-NEXT: store i64 %v, ptr %a
; CHECK-NEXT: store i64 %v, ptr @g
; CHECK-NEXT: %gp = getelementptr i8, ptr @g, i64 4
; CHECK-NEXT: store i32 1, ptr %gp
; CHECK-NEXT: store i64 %v, ptr addrspace(1) %far
; CHECK-NEXT: br i1 %amber.in_heap, label %amber.persistent, label %amber.volatile, !prof ![[W:[0-9]+]]
; CHECK: amber.persistent:
; CHECK-NEXT: call preserve_mostcc void @__amber_outside_store8(ptr %p, i64 %v, ptr @[[SITE]]) #[[COLD:[0-9]+]]
; CHECK: amber.volatile:
; CHECK-NEXT: store i64 %v, ptr %p, align 8
; %q is not inbounds of %p: a check of its own.
; CHECK: %amber.addr{{[0-9]+}} = ptrtoint ptr %q to i64
; vector store: the generic callback
; CHECK: call preserve_mostcc void @__amber_outside_storen(ptr %q, ptr %amber.tmp, i64 16, ptr @[[SITE]]) #[[COLD]]
; CHECK: store <4 x i32> %vec, ptr %q, align 16
; atomic store: a branch of its own on %p's check; seq_cst (or release)
; becomes an exchange (op 0), which commits the thread's stray batch first
; (runtime/tx/batch.c); monotonic keeps the sized store callback
; CHECK: br i1 %amber.in_heap, label
; CHECK: call preserve_mostcc <2 x i64> @__amber_outside_rmw4(ptr %p, i32 3, i32 0, ptr @[[SITE]]) #[[COLD]]
; CHECK: store atomic i32 3, ptr %p seq_cst, align 4
; CHECK: br i1 %amber.in_heap{{[0-9]*}}, label
; CHECK: call preserve_mostcc void @__amber_outside_store4(ptr %p, i32 5, ptr @[[SITE]]) #[[COLD]]
; CHECK: store atomic i32 5, ptr %p monotonic, align 4
; CHECK: ret void
define void @stores(ptr %p, i64 %v, <4 x i32> %vec, ptr addrspace(1) %far) {
  %a = alloca i64
  store i64 %v, ptr %a
  call void @escape(ptr %a)
  store i64 %v, ptr %a
  store i64 %v, ptr @g
  %gp = getelementptr i8, ptr @g, i64 4
  store i32 1, ptr %gp
  store i64 %v, ptr addrspace(1) %far
  store i64 %v, ptr %p
  %q = getelementptr i8, ptr %p, i64 16
  store <4 x i32> %vec, ptr %q
  store atomic i32 3, ptr %p seq_cst, align 4
  store atomic i32 5, ptr %p monotonic, align 4
  ret void
}

; Results of atomicrmw / cmpxchg come back in element 0 of a <2 x i64> and
; join in a phi; the window is read again after each atomic.
; CHECK-LABEL: define i32 @atomics(
; CHECK: %amber.in_heap = icmp ult i64 %amber.off, %amber.heap_size
; CHECK: amber.persistent:
; CHECK-NEXT: %[[WR:[0-9]+]] = call preserve_mostcc <2 x i64> @__amber_outside_rmw4(ptr %p, i32 %v, i32 1, ptr @[[ASITE]]) #[[COLD]]
; CHECK-NEXT: %[[E:[0-9]+]] = extractelement <2 x i64> %[[WR]], i64 0
; CHECK-NEXT: %[[R:[0-9]+]] = trunc i64 %[[E]] to i32
; CHECK: amber.volatile:
; CHECK-NEXT: %old = atomicrmw add ptr %p, i32 %v seq_cst
; CHECK: %old.amber = phi i32 [ %[[R]], %amber.persistent ], [ %old, %amber.volatile ]
; CHECK-NEXT: load i64, ptr @__amber_heap_base
; CHECK: call preserve_mostcc <2 x i64> @__amber_outside_cas4(ptr %p, i32 %old.amber, i32 %v, ptr @[[ASITE]]) #[[COLD]]
; CHECK: %pair = cmpxchg ptr %p, i32 %old.amber, i32 %v seq_cst seq_cst
; CHECK: %pair.amber = phi { i32, i1 }
; CHECK: %o = extractvalue { i32, i1 } %pair.amber, 0
; no callback for i128: left alone outside regions
; CHECK-NEXT: %w = atomicrmw xchg ptr %p, i128 0 seq_cst
; CHECK-NEXT: ret i32 %o
define i32 @atomics(ptr %p, i32 %v) {
  %old = atomicrmw add ptr %p, i32 %v seq_cst
  %pair = cmpxchg ptr %p, i32 %old, i32 %v seq_cst seq_cst
  %o = extractvalue { i32, i1 } %pair, 0
  %w = atomicrmw xchg ptr %p, i128 0 seq_cst
  ret i32 %o
}

; Loads are range-checked too (outside-loads.ll).
; CHECK-LABEL: define i64 @load(
; CHECK: call preserve_mostcc <2 x i64> @__amber_outside_load8(ptr %p)
; CHECK: %v = load i64, ptr %p
define i64 @load(ptr %p) {
  %v = load i64, ptr %p
  ret i64 %v
}

; The clones: unconditional callbacks, no range check.
; CHECK-LABEL: define void @__amber_tx_stores(
; CHECK-NOT: amber.in_heap
; CHECK: call void @__amber_store8(ptr %p, i64 %v)
; CHECK-NOT: amber.in_heap
; CHECK: ret void

; CHECK-DAG: declare extern_weak preserve_mostcc void @__amber_outside_store8(ptr, i64, ptr) #[[NLB:[0-9]+]]
; CHECK-DAG: attributes #[[NLB]] = { nonlazybind }
; CHECK-DAG: attributes #[[COLD]] = { cold }
; CHECK-DAG: ![[W]] = !{!"branch_weights", i32 1, i32 1048576}

; OFF-LABEL: define void @stores(
; OFF-NOT: amber.in_heap
; OFF-NOT: __amber_outside
; OFF: ret void
; OFF-NOT: @__amber_heap_base

declare void @escape(ptr)
