; Outside regions, memset/memcpy/memmove intrinsics are range-checked on
; their destination and (memcpy, memmove) their source: the cold side calls
; __amber_outside_mem* (a persistent destination is a stray store; a
; persistent source is read at its latest committed state).  Calls to the
; libc functions the runtime wraps get the same check on their pointer
; arguments and their wrapper on the cold side, after a stray-store count
; for the writers; other libc calls stay.  Stack and global pointers are
; never checked.
; RUN: %opt_amber -S %s | FileCheck %s
; RUN: %opt_amber -amber-instrument-outside-loads=false -S %s | FileCheck %s --check-prefix=NOLOADS
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

@g = global [8 x i8] zeroinitializer

; One branch for the four intrinsics (nothing between them changes the
; window): in the heap when %d or %s is.
; CHECK-LABEL: define void @mem(
; CHECK-NEXT: %buf = alloca [64 x i8]
; CHECK-DAG: %[[S:amber.in_heap[0-9]*]] = icmp ult i64 %{{.*}}, %amber.heap_size
; CHECK-DAG: %[[D:amber.in_heap[0-9]*]] = icmp ult i64 %{{.*}}, %amber.heap_size
; CHECK: %[[C:amber.in_heap[0-9]*]] = or i1
; CHECK: br i1 %[[C]], label %amber.persistent, label %amber.volatile, !prof
; CHECK: amber.persistent:
; CHECK-NEXT: call preserve_mostcc void @__amber_outside_memset(ptr %d, i32 7, i64 %n, ptr @[[SITE:amber.site[.0-9]*]]) #[[COLD:[0-9]+]]
; CHECK-NEXT: call preserve_mostcc void @__amber_outside_memcpy(ptr %d, ptr %s, i64 %n, ptr @[[SITE]]) #[[COLD]]
; CHECK-NEXT: call preserve_mostcc void @__amber_outside_memmove(ptr %d, ptr %s, i64 16, ptr @[[SITE]]) #[[COLD]]
; a stack destination from a maybe-persistent source: the source is read
; through the runtime
; CHECK-NEXT: call preserve_mostcc void @__amber_outside_memcpy(ptr %buf, ptr %s, i64 64, ptr @[[SITE]]) #[[COLD]]
; CHECK: amber.volatile:
; CHECK-NEXT: call void @llvm.memset.p0.i64(ptr %d, i8 7, i64 %n, i1 false)
; CHECK-NEXT: call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
; CHECK-NEXT: call void @llvm.memmove.p0.p0.i64(ptr %d, ptr %s, i64 16, i1 false)
; CHECK-NEXT: call void @llvm.memcpy.p0.p0.i64(ptr %buf, ptr %s, i64 64, i1 false)
; global destination, stack source: no check
; CHECK: amber.cont:
; CHECK-NEXT: call void @llvm.memcpy.p0.p0.i64(ptr @g, ptr %buf, i64 8, i1 false)
; CHECK-NEXT: ret void
define void @mem(ptr %d, ptr %s, i64 %n) {
  %buf = alloca [64 x i8]
  call void @llvm.memset.p0.i64(ptr %d, i8 7, i64 %n, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
  call void @llvm.memmove.p0.p0.i64(ptr %d, ptr %s, i64 16, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %buf, ptr %s, i64 64, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr @g, ptr %buf, i64 8, i1 false)
  ret void
}

; The libc calls: one branch until malloc (which may open the heap).
; CHECK-LABEL: define i64 @libc(
; CHECK: br i1 %{{amber.in_heap[0-9]*}}, label %amber.persistent, label %amber.volatile
; CHECK: amber.persistent:
; CHECK-NEXT: call void @__amber_stray_store(ptr @[[LSITE:amber.site[.0-9]*]], ptr %d) #[[COLD]]
; CHECK-NEXT: call ptr @__amber_memcpy(ptr %d, ptr %s, i64 %n) #[[COLD]]
; CHECK-NEXT: call void @__amber_stray_store(ptr @[[LSITE]], ptr %d) #[[COLD]]
; CHECK-NEXT: call ptr @__amber_memset(ptr %d, i32 0, i64 %n) #[[COLD]]
; CHECK-NEXT: call void @__amber_stray_store(ptr @[[LSITE]], ptr %d) #[[COLD]]
; CHECK-NEXT: call ptr @__amber_strcpy(ptr %d, ptr %s) #[[COLD]]
; CHECK-NEXT: call void @__amber_stray_store(ptr @[[LSITE]], ptr %d) #[[COLD]]
; CHECK-NEXT: call ptr @__amber_strncpy(ptr %d, ptr %s, i64 %n) #[[COLD]]
; CHECK-NEXT: call void @__amber_stray_store(ptr @[[LSITE]], ptr %d) #[[COLD]]
; CHECK-NEXT: call ptr @__amber_strcat(ptr %d, ptr %s) #[[COLD]]
; CHECK-NEXT: call void @__amber_stray_store(ptr @[[LSITE]], ptr %d) #[[COLD]]
; CHECK-NEXT: call ptr @__amber_strncat(ptr %d, ptr %s, i64 %n) #[[COLD]]
; CHECK-NEXT: call void @__amber_stray_store(ptr @[[LSITE]], ptr %d) #[[COLD]]
; CHECK-NEXT: call ptr @__amber_memmove(ptr %d, ptr %s, i64 %n) #[[COLD]]
; CHECK-NEXT: %[[L:[0-9]+]] = call i64 @__amber_strlen(ptr %d) #[[COLD]]
; CHECK: amber.volatile:
; CHECK-NEXT: call ptr @memcpy(ptr %d, ptr %s, i64 %n)
; CHECK-NEXT: call ptr @memset(ptr %d, i32 0, i64 %n)
; CHECK-NEXT: call ptr @strcpy(ptr %d, ptr %s)
; CHECK-NEXT: call ptr @strncpy(ptr %d, ptr %s, i64 %n)
; CHECK-NEXT: call ptr @strcat(ptr %d, ptr %s)
; CHECK-NEXT: call ptr @strncat(ptr %d, ptr %s, i64 %n)
; CHECK-NEXT: call ptr @memmove(ptr %d, ptr %s, i64 %n)
; CHECK-NEXT: %l = call i64 @strlen(ptr %d)
; CHECK: amber.cont:
; CHECK-NEXT: %l.amber = phi i64 [ %[[L]], %amber.persistent ], [ %l, %amber.volatile ]
; CHECK-NEXT: %m = call ptr @malloc(i64 %l.amber)
; CHECK-NEXT: call void @free(ptr %m)
; a stack buffer: no check
; CHECK-NEXT: %k = call i64 @strlen(ptr %buf)
; CHECK-NEXT: ret i64 %l.amber
define i64 @libc(ptr %d, ptr %s, i64 %n) {
  %buf = alloca [8 x i8]
  %1 = call ptr @memcpy(ptr %d, ptr %s, i64 %n)
  %2 = call ptr @memset(ptr %d, i32 0, i64 %n)
  %3 = call ptr @strcpy(ptr %d, ptr %s)
  %4 = call ptr @strncpy(ptr %d, ptr %s, i64 %n)
  %5 = call ptr @strcat(ptr %d, ptr %s)
  %6 = call ptr @strncat(ptr %d, ptr %s, i64 %n)
  %7 = call ptr @memmove(ptr %d, ptr %s, i64 %n)
  %l = call i64 @strlen(ptr %d)
  %m = call ptr @malloc(i64 %l)
  call void @free(ptr %m)
  %k = call i64 @strlen(ptr %buf)
  ret i64 %l
}
; CHECK-DAG: declare extern_weak preserve_mostcc void @__amber_outside_memcpy(ptr, ptr, i64, ptr) #[[NLB:[0-9]+]]
; CHECK-DAG: attributes #[[COLD]] = { cold }
; CHECK-DAG: attributes #[[NLB]] = { nonlazybind }

; Without outside loads: destinations only, and libc readers stay.
; NOLOADS-LABEL: define void @mem(
; NOLOADS: %amber.addr = ptrtoint ptr %d to i64
; NOLOADS-NOT: ptrtoint ptr %s
; NOLOADS: amber.cont:
; NOLOADS-NEXT: call void @llvm.memcpy.p0.p0.i64(ptr %buf, ptr %s, i64 64, i1 false)
; NOLOADS-LABEL: define i64 @libc(
; NOLOADS: amber.cont:
; NOLOADS-NEXT: %l = call i64 @strlen(ptr %d)

declare ptr @memcpy(ptr, ptr, i64)
declare ptr @memmove(ptr, ptr, i64)
declare ptr @memset(ptr, i32, i64)
declare ptr @strcpy(ptr, ptr)
declare ptr @strncpy(ptr, ptr, i64)
declare ptr @strcat(ptr, ptr)
declare ptr @strncat(ptr, ptr, i64)
declare i64 @strlen(ptr)
declare ptr @malloc(i64)
declare void @free(ptr)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)
