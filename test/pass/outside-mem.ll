; Outside regions, memset/memcpy/memmove intrinsics whose destination may be
; persistent are range-checked on the destination (__amber_mem* on the cold
; side); calls to the libc functions that write memory go to the __amber_*
; wrappers unconditionally (they check the range themselves); other libc
; calls stay.
; RUN: %opt_amber -S %s | FileCheck %s
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

@g = global [8 x i8] zeroinitializer

; CHECK-LABEL: define void @mem(
; CHECK: %amber.addr = ptrtoint ptr %d to i64
; CHECK: %amber.in_heap = icmp ult i64 %amber.off, %amber.heap_size
; CHECK: amber.persistent:
; CHECK-NEXT: call ptr @__amber_memset(ptr %d, i32 7, i64 %n) #[[COLD:[0-9]+]]
; CHECK: amber.volatile:
; CHECK-NEXT: call void @llvm.memset.p0.i64(ptr %d, i8 7, i64 %n, i1 false)
; CHECK: icmp ult i64 %{{.*}}, %amber.heap_size
; CHECK: call ptr @__amber_memcpy(ptr %d, ptr %s, i64 %n) #[[COLD]]
; CHECK: call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
; CHECK: icmp ult i64 %{{.*}}, %amber.heap_size
; CHECK: call ptr @__amber_memmove(ptr %d, ptr %s, i64 16) #[[COLD]]
; CHECK: call void @llvm.memmove.p0.p0.i64(ptr %d, ptr %s, i64 16, i1 false)
; stack and global destinations: no check, even from a maybe-persistent source
; CHECK-NOT: amber.in_heap
; CHECK: call void @llvm.memcpy.p0.p0.i64(ptr %buf, ptr %s, i64 64, i1 false)
; CHECK-NEXT: call void @llvm.memset.p0.i64(ptr @g, i8 0, i64 8, i1 false)
; CHECK-NEXT: ret void
define void @mem(ptr %d, ptr %s, i64 %n) {
  %buf = alloca [64 x i8]
  call void @llvm.memset.p0.i64(ptr %d, i8 7, i64 %n, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
  call void @llvm.memmove.p0.p0.i64(ptr %d, ptr %s, i64 16, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %buf, ptr %s, i64 64, i1 false)
  call void @llvm.memset.p0.i64(ptr @g, i8 0, i64 8, i1 false)
  ret void
}

; CHECK-LABEL: define i64 @libc(
; CHECK-NEXT: call ptr @__amber_memcpy(ptr %d, ptr %s, i64 %n)
; CHECK-NEXT: call ptr @__amber_memset(ptr %d, i32 0, i64 %n)
; CHECK-NEXT: call ptr @__amber_strcpy(ptr %d, ptr %s)
; CHECK-NEXT: call ptr @__amber_strncpy(ptr %d, ptr %s, i64 %n)
; CHECK-NEXT: call ptr @__amber_strcat(ptr %d, ptr %s)
; CHECK-NEXT: call ptr @__amber_strncat(ptr %d, ptr %s, i64 %n)
; CHECK-NEXT: call ptr @__amber_memmove(ptr %d, ptr %s, i64 %n)
; CHECK-NEXT: %l = call i64 @strlen(ptr %d)
; CHECK-NEXT: %m = call ptr @malloc(i64 %l)
; CHECK-NEXT: call void @free(ptr %m)
; CHECK-NEXT: ret i64 %l
define i64 @libc(ptr %d, ptr %s, i64 %n) {
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
  ret i64 %l
}
; CHECK: attributes #[[COLD]] = { cold }

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
