; Inside a region (and in clones): an indirect call goes through
; __amber_clone_of(target) and calls what it returns; a call to a function
; declared but not defined here calls that function's clone in the module
; that defines it (__amber_tx_<name>, extern_weak, resolved by the linker)
; and only when it is null (no amber module defines it) __amber_clone_of; output the runtime holds until the commit (printf,
; puts, ...) stays a plain call; other known I/O calls get
; __amber_irrevocable_io() before them; other known library functions get
; __amber_irrevocable(); calls that access no memory stay.  Every region reaching
; an I/O call or a known library function is flagged AMBER_DESC_IRREVOCABLE,
; and one reaching a known library function also AMBER_DESC_UNSEEN (flags =
; 1 | 8: sprintf here); the indirect and cross-module calls alone would not
; flag it (they go irrevocable at run time only when no clone is found).
; RUN: %opt_amber -S %s | FileCheck %s
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

@fmt = private constant [4 x i8] c"%d\0A\00"
@d = private global { i32, i16, i16, i32, i32, i64, ptr, ptr, ptr, i32, i32, ptr, i64 } { i32 1095582290, i16 8, i16 1, i32 0, i32 0, i64 0, ptr @r, ptr null, ptr null, i32 0, i32 0, ptr null, i64 0 }, section "amber_regions"
; CHECK: @d = private global {{.*}} { i32 1095582290, i16 8, i16 1, i32 9,

; CHECK-LABEL: define internal void @r(
; CHECK-NEXT: %fp = load ptr, ptr %c
; CHECK-NEXT: %amber.callee = call ptr @__amber_clone_of(ptr %fp)
; CHECK-NEXT: %x = call i32 %amber.callee(ptr %c)
; CHECK-NEXT: br i1 icmp eq (ptr @__amber_tx_elsewhere, ptr null), label %amber.lookup, label %amber.call, !prof ![[COLD:[0-9]+]]
; CHECK: amber.lookup:
; CHECK-NEXT: %amber.callee1 = call ptr @__amber_clone_of(ptr @elsewhere)
; CHECK-NEXT: br label %amber.call
; CHECK: amber.call:
; CHECK-NEXT: %amber.target = phi ptr [ @__amber_tx_elsewhere, %0 ], [ %amber.callee1, %amber.lookup ]
; CHECK-NEXT: call void %amber.target(ptr %c)
; CHECK-NEXT: call i32 (ptr, ...) @printf(ptr @fmt, i32 %x)
; CHECK-NEXT: call i32 @puts(ptr @fmt)
; CHECK-NEXT: call void @__amber_irrevocable()
; CHECK-NEXT: call i32 (ptr, ptr, ...) @sprintf(ptr %c, ptr @fmt, i32 %x)
; CHECK-NEXT: call double @sqrt(double 2.0
; CHECK-NEXT: call void @__amber_tx_local(
; CHECK-NEXT: ret void
define internal void @r(ptr %c) "amber-region" {
  %fp = load ptr, ptr %c
  %x = call i32 %fp(ptr %c)
  call void @elsewhere(ptr %c)
  call i32 (ptr, ...) @printf(ptr @fmt, i32 %x)
  call i32 @puts(ptr @fmt)
  call i32 (ptr, ptr, ...) @sprintf(ptr %c, ptr @fmt, i32 %x)
  call double @sqrt(double 2.0) memory(none)
  call void @local(ptr %c)
  ret void
}
; CHECK-LABEL: define void @__amber_tx_local(
; CHECK: call void @__amber_irrevocable_io()
; CHECK-NEXT: call void @exit(i32 1)
define void @local(ptr %p) {
  call void @exit(i32 1)
  unreachable
}
; CHECK-DAG: declare extern_weak ptr @__amber_clone_of(ptr)
; CHECK-DAG: declare extern_weak void @__amber_tx_elsewhere(ptr)
; CHECK-DAG: ![[COLD]] = !{!"branch_weights", i32 1, i32 1000}
; CHECK-DAG: declare extern_weak void @__amber_irrevocable_io()
declare void @elsewhere(ptr)
declare i32 @printf(ptr, ...)
declare i32 @puts(ptr)
declare i32 @sprintf(ptr, ptr, ...)
declare double @sqrt(double)
declare void @exit(i32)
