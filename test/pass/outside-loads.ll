; Outside regions (in the original functions), loads whose address may be
; persistent get the same inline range check as stores: the cold side calls
; __amber_outside_loadN (the latest committed value), the other
; keeps the load.  The window is read at entry and again after calls and
; atomics; one check per object and window, as early as it can be, shared by
; the accesses into that object; consecutive accesses of a block share one
; branch.  Allocas, globals, byval arguments and other address spaces are
; skipped.
; RUN: %opt_amber -S %s | FileCheck %s
; RUN: %opt_amber -amber-instrument-outside-loads=false -S %s | FileCheck %s --check-prefix=NOLOADS
; RUN: %opt_amber -amber-outside-share-checks=false -S %s | FileCheck %s --check-prefix=EACH
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

@g = global i64 0

; CHECK-LABEL: define i64 @one(
; CHECK-NEXT: %amber.heap_base = load i64, ptr @__amber_heap_base, align 8
; CHECK-NEXT: %amber.heap_size = load i64, ptr @__amber_heap_size, align 8
; CHECK-NEXT: %amber.addr = ptrtoint ptr %p to i64
; CHECK-NEXT: %amber.off = sub i64 %amber.addr, %amber.heap_base
; CHECK-NEXT: %amber.in_heap = icmp ult i64 %amber.off, %amber.heap_size
; CHECK-NEXT: br i1 %amber.in_heap, label %amber.persistent, label %amber.volatile, !prof ![[W:[0-9]+]]
; CHECK: amber.persistent:
; CHECK-NEXT: %[[WD:[0-9]+]] = call preserve_mostcc <2 x i64> @__amber_outside_load8(ptr %p) #[[COLD:[0-9]+]]
; CHECK-NEXT: %[[R:[0-9]+]] = extractelement <2 x i64> %[[WD]], i64 0
; CHECK-NEXT: br label %amber.cont
; CHECK: amber.volatile:
; CHECK-NEXT: %v = load i64, ptr %p, align 8
; CHECK-NEXT: br label %amber.cont
; CHECK: amber.cont:
; CHECK-NEXT: %v.amber = phi i64 [ %[[R]], %amber.persistent ], [ %v, %amber.volatile ]
; CHECK-NEXT: ret i64 %v.amber
define i64 @one(ptr %p) {
  %v = load i64, ptr %p
  ret i64 %v
}

; Other widths and types: sized callbacks (the value in element 0 of the
; <2 x i64> they return), the generic one for the rest.
; CHECK-LABEL: define i64 @sizes(
; CHECK: amber.persistent:
; CHECK-NEXT: %[[W1:[0-9]+]] = call preserve_mostcc <2 x i64> @__amber_outside_load1(ptr %p)
; CHECK-NEXT: %[[E1:[0-9]+]] = extractelement <2 x i64> %[[W1]], i64 0
; CHECK-NEXT: trunc i64 %[[E1]] to i8
; CHECK: call preserve_mostcc <2 x i64> @__amber_outside_load2(ptr %p)
; CHECK: call preserve_mostcc <2 x i64> @__amber_outside_load4(ptr %p)
; CHECK: bitcast i32 %{{[0-9]+}} to float
; CHECK: call preserve_mostcc void @__amber_outside_loadn(ptr %amber.tmp, ptr %p, i64 16)
; CHECK: amber.volatile:
; CHECK-NEXT: %a = load i8, ptr %p
; CHECK-NEXT: %b = load i16, ptr %p
; CHECK-NEXT: %c = load float, ptr %p
; CHECK-NEXT: %d = load <4 x i32>, ptr %p
define i64 @sizes(ptr %p) {
  %a = load i8, ptr %p
  %b = load i16, ptr %p
  %c = load float, ptr %p
  %d = load <4 x i32>, ptr %p
  %a1 = zext i8 %a to i64
  %b1 = zext i16 %b to i64
  %c1 = fptoui float %c to i64
  %d1 = extractelement <4 x i32> %d, i32 1
  %d2 = zext i32 %d1 to i64
  %s1 = add i64 %a1, %b1
  %s2 = add i64 %s1, %c1
  %s3 = add i64 %s2, %d2
  ret i64 %s3
}

; The stack (escaping or not), globals, byval arguments and other address
; spaces are never in the heap window.
; CHECK-LABEL: define i64 @locals(
; CHECK-NOT: amber.in_heap
; CHECK-NOT: __amber_outside
; CHECK: ret i64
define i64 @locals(ptr byval(i64) %b, ptr addrspace(1) %far) {
  %a = alloca i64
  store i64 1, ptr %a
  call void @escape(ptr %a)
  %x = load i64, ptr %a
  %y = load i64, ptr @g
  %z = load i64, ptr %b
  %w = load i64, ptr addrspace(1) %far
  %s1 = add i64 %x, %y
  %s2 = add i64 %s1, %z
  %s3 = add i64 %s2, %w
  ret i64 %s3
}

; A loop over an array argument: its check is computed once, before the
; loop; each iteration has one branch for its two loads and its store (all
; inbounds of %a); a call reads the window again.
; CHECK-LABEL: define void @loop(
; CHECK: entry:
; CHECK: %amber.addr = ptrtoint ptr %a to i64
; CHECK: %amber.in_heap = icmp ult i64 %amber.off, %amber.heap_size
; CHECK-NEXT: br label %loop
; CHECK: loop:
; CHECK-NOT: icmp
; CHECK: br i1 %amber.in_heap, label %amber.persistent, label %amber.volatile, !prof ![[W]]
; CHECK: amber.persistent:
; CHECK: call preserve_mostcc <2 x i64> @__amber_outside_load4(ptr %p)
; CHECK: call preserve_mostcc <2 x i64> @__amber_outside_load4(ptr %{{[0-9]+}})
; CHECK: call preserve_mostcc void @__amber_outside_store4(ptr %p, i32 %{{[0-9]+}}, ptr @amber.site) #[[COLD]]
; CHECK: amber.volatile:
; CHECK-NEXT: %x = load i32, ptr %p, align 4
; CHECK-NEXT: %q = getelementptr inbounds i32, ptr %p, i64 1
; CHECK-NEXT: %y = load i32, ptr %q, align 4
; CHECK-NEXT: %xy = add i32 %x, %y
; CHECK-NEXT: store i32 %xy, ptr %p, align 4
; CHECK: amber.cont:
; CHECK-NOT: amber.in_heap
; CHECK: exit:
; CHECK-NEXT: call void @f()
; CHECK-NEXT: %[[HB:amber.heap_base[0-9]*]] = load i64, ptr @__amber_heap_base
; CHECK-NEXT: %[[HS:amber.heap_size[0-9]*]] = load i64, ptr @__amber_heap_size
; CHECK-NEXT: %[[A:amber.addr[0-9]*]] = ptrtoint ptr %a to i64
; CHECK-NEXT: %[[O:amber.off[0-9]*]] = sub i64 %[[A]], %[[HB]]
; CHECK-NEXT: %[[IN:amber.in_heap[0-9]*]] = icmp ult i64 %[[O]], %[[HS]]
; CHECK-NEXT: br i1 %[[IN]], label
; CHECK: ret void
define void @loop(ptr %a, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  %x = load i32, ptr %p
  %q = getelementptr inbounds i32, ptr %p, i64 1
  %y = load i32, ptr %q
  %xy = add i32 %x, %y
  store i32 %xy, ptr %p
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  call void @f()
  store i32 0, ptr %a
  ret void
}

; A call to a function of this module that cannot change the window (@leaf:
; no call, atomic, fence or volatile access, transitively) leaves it in its
; registers: the check of %a stays before the loop.  A call to one with a
; fence (@fenced) reads the window again.
; CHECK-LABEL: define void @stable(
; CHECK: entry:
; CHECK: %amber.in_heap = icmp ult
; CHECK: loop:
; CHECK-NOT: icmp ult
; CHECK: call i64 @leaf(
; CHECK-NOT: @__amber_heap_base
; CHECK: call void @fenced()
; CHECK-NEXT: load i64, ptr @__amber_heap_base
; CHECK: ret void
define i64 @leaf(i64 %x) {
  %y = call i64 @leaf2(i64 %x)
  ret i64 %y
}
define i64 @leaf2(i64 %x) {
  %y = mul i64 %x, 3
  ret i64 %y
}
define void @fenced() {
  fence seq_cst
  ret void
}
define void @stable(ptr %a, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %p = getelementptr inbounds i64, ptr %a, i64 %i
  %v = load i64, ptr %p
  %w = call i64 @leaf(i64 %v)
  store i64 %w, ptr %p
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  call void @fenced()
  store i64 0, ptr %a
  ret void
}

; Pointer chasing: the check of each node is made once, right after the
; pointer is known, and covers both loads from the node.
; CHECK-LABEL: define i64 @chase(
; CHECK: loop:
; CHECK-NEXT: %n = phi ptr
; CHECK-NEXT: %s = phi i64
; CHECK-NEXT: %amber.addr = ptrtoint ptr %n to i64
; CHECK-NEXT: %amber.off = sub i64 %amber.addr, %amber.heap_base
; CHECK-NEXT: %amber.in_heap = icmp ult i64 %amber.off, %amber.heap_size
; CHECK: br i1 %amber.in_heap
; CHECK: amber.volatile:
; CHECK-NEXT: %v = load i64, ptr %n
; CHECK-NEXT: %nextp = getelementptr inbounds i8, ptr %n, i64 8
; CHECK-NEXT: %next = load ptr, ptr %nextp
; CHECK: amber.cont:
; CHECK-NEXT: %next.amber = phi ptr
; CHECK-NEXT: %v.amber = phi i64
; CHECK-NOT: amber.in_heap
; CHECK: ret i64
define i64 @chase(ptr %head) {
entry:
  br label %loop
loop:
  %n = phi ptr [ %head, %entry ], [ %next, %loop ]
  %s = phi i64 [ 0, %entry ], [ %s1, %loop ]
  %v = load i64, ptr %n
  %nextp = getelementptr inbounds i8, ptr %n, i64 8
  %next = load ptr, ptr %nextp
  %s1 = add i64 %s, %v
  %done = icmp eq ptr %next, null
  br i1 %done, label %exit, label %loop
exit:
  ret i64 %s1
}

; Atomic and volatile loads have a branch each, and the window is read
; again after them (a heap pointer may arrive from another thread).
; CHECK-LABEL: define i64 @atomic(
; CHECK: call preserve_mostcc <2 x i64> @__amber_outside_load8(ptr %p)
; CHECK: amber.volatile:
; CHECK-NEXT: %x = load atomic i64, ptr %p acquire, align 8
; CHECK: amber.cont:
; CHECK-NEXT: %x.amber = phi i64
; CHECK-NEXT: %[[HB2:amber.heap_base[0-9]*]] = load i64, ptr @__amber_heap_base
; CHECK: %amber.addr{{[0-9]*}} = ptrtoint ptr %x.ptr to i64
; CHECK-NEXT: %amber.off{{[0-9]*}} = sub i64 %amber.addr{{[0-9]*}}, %[[HB2]]
; CHECK: amber.volatile{{[0-9]+}}:
; CHECK-NEXT: %y = load volatile i64, ptr %x.ptr
; CHECK: ret i64
define i64 @atomic(ptr %p) {
  %x = load atomic i64, ptr %p acquire, align 8
  %x.ptr = inttoptr i64 %x to ptr
  %y = load volatile i64, ptr %x.ptr
  ret i64 %y
}

; Code that never runs is left alone.
; CHECK-LABEL: define i64 @dead(
; CHECK: dead:
; CHECK-NEXT: %q = load ptr, ptr %p
; CHECK-NEXT: %w = load i64, ptr %q
; CHECK-NEXT: br label %dead
define i64 @dead(ptr %p) {
entry:
  %v = load i64, ptr %p
  ret i64 %v
dead:
  %q = load ptr, ptr %p
  %w = load i64, ptr %q
  br label %dead
}

; The clones keep their unconditional callbacks.
; CHECK-LABEL: define i64 @__amber_tx_one(
; CHECK-NOT: amber.in_heap
; CHECK: call i64 @__amber_load8(ptr %p)
; CHECK-NOT: amber.in_heap
; CHECK: ret i64

; CHECK-DAG: declare extern_weak preserve_mostcc <2 x i64> @__amber_outside_load8(ptr) #[[NLB:[0-9]+]]
; CHECK-DAG: attributes #[[NLB]] = { nonlazybind }
; CHECK-DAG: attributes #[[COLD]] = { cold }
; CHECK-DAG: ![[W]] = !{!"branch_weights", i32 1, i32 1048576}

; NOLOADS-LABEL: define i64 @one(
; NOLOADS-NOT: amber.in_heap
; NOLOADS-NOT: __amber_outside_load
; NOLOADS: ret i64
; NOLOADS-LABEL: define void @loop(
; NOLOADS: loop:
; NOLOADS: amber.volatile:
; NOLOADS-NEXT: store i32 %xy, ptr %p, align 4

; One check per access, the window loaded each time.
; EACH-LABEL: define void @loop(
; EACH: loop:
; EACH: %amber.heap_base = load i64, ptr @__amber_heap_base
; EACH: %amber.addr = ptrtoint ptr %p to i64
; EACH: call preserve_mostcc <2 x i64> @__amber_outside_load4(ptr %p)
; EACH: load i64, ptr @__amber_heap_base
; EACH: ptrtoint ptr %q to i64
; EACH: call preserve_mostcc <2 x i64> @__amber_outside_load4(ptr %q)
; EACH: load i64, ptr @__amber_heap_base
; EACH: ptrtoint ptr %p to i64
; EACH: call preserve_mostcc void @__amber_outside_store4(ptr %p,

declare void @escape(ptr)
declare void @f()
