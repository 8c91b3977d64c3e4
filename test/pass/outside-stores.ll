; Outside regions (in the original functions), stores, atomicrmw and cmpxchg
; whose address may be persistent get an inline range check against the heap
; window; the cold side calls the runtime's callback (a one-access
; transaction), the other side keeps the original instruction.  Allocas
; (escaping or not), globals and other address spaces are skipped.  The
; transactional clones keep their unconditional callbacks.
; RUN: %opt_amber -S %s | FileCheck %s
; RUN: %opt_amber -amber-instrument-outside=false -S %s | FileCheck %s --check-prefix=OFF
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

@g = global i64 0

; CHECK-DAG: @__amber_heap_base = extern_weak global i64
; CHECK-DAG: @__amber_heap_size = extern_weak global i64

; CHECK-LABEL: define void @stores(
; CHECK-NOT: amber.in_heap
; CHECK: store i32 1, ptr %gp
; CHECK-NEXT: store i64 %v, ptr addrspace(1) %far
; CHECK-NEXT: %amber.addr = ptrtoint ptr %p to i64
; CHECK-NEXT: %amber.heap_base = load i64, ptr @__amber_heap_base, align 8
; CHECK-NEXT: %amber.heap_size = load i64, ptr @__amber_heap_size, align 8
; CHECK-NEXT: %amber.off = sub i64 %amber.addr, %amber.heap_base
; CHECK-NEXT: %amber.in_heap = icmp ult i64 %amber.off, %amber.heap_size
; CHECK-NEXT: br i1 %amber.in_heap, label %amber.persistent, label %amber.volatile, !prof ![[W:[0-9]+]]
; CHECK: amber.persistent:
; CHECK-NEXT: call void @__amber_store8(ptr %p, i64 %v) #[[COLD:[0-9]+]]
; CHECK: amber.volatile:
; CHECK-NEXT: store i64 %v, ptr %p, align 8
; vector store: the generic callback
; CHECK: call void @__amber_storen(ptr %q, ptr %amber.tmp, i64 16) #[[COLD]]
; CHECK: store <4 x i32> %vec, ptr %q, align 16
; atomic store: the sized callback
; CHECK: call void @__amber_store4(ptr %p, i32 3) #[[COLD]]
; CHECK: store atomic i32 3, ptr %p seq_cst, align 4
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
  ret void
}

; Results of atomicrmw / cmpxchg join in a phi.
; CHECK-LABEL: define i32 @atomics(
; CHECK: %amber.in_heap = icmp ult i64 %amber.off, %amber.heap_size
; CHECK: amber.persistent:
; CHECK-NEXT: %[[R:[0-9]+]] = call i32 @__amber_rmw4(ptr %p, i32 %v, i32 1) #[[COLD]]
; CHECK: amber.volatile:
; CHECK-NEXT: %old = atomicrmw add ptr %p, i32 %v seq_cst
; CHECK: %old.amber = phi i32 [ %[[R]], %amber.persistent ], [ %old, %amber.volatile ]
; CHECK: call i32 @__amber_cas4(ptr %p, i32 %old.amber, i32 %v) #[[COLD]]
; CHECK: %pair = cmpxchg ptr %p, i32 %old.amber, i32 %v seq_cst seq_cst
; CHECK: %pair.amber = phi { i32, i1 }
; CHECK-NEXT: %o = extractvalue { i32, i1 } %pair.amber, 0
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

; Loads stay as they are.
; CHECK-LABEL: define i64 @load(
; CHECK-NEXT: %v = load i64, ptr %p
; CHECK-NEXT: ret i64 %v
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

; CHECK: attributes #[[COLD]] = { cold }
; CHECK: ![[W]] = !{!"branch_weights", i32 1, i32 1048576}

; OFF-LABEL: define void @stores(
; OFF-NOT: amber.in_heap
; OFF-NOT: __amber_store
; OFF: ret void
; OFF-NOT: @__amber_heap_base

declare void @escape(ptr)
