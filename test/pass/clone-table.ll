; Every module registers its transactional clones: a private constant array
; of struct __amber_clone { fn, clone } and a call to
; __amber_register_clones(table, n) in the constructor, after
; __amber_module_init.  Region functions have no clone and no entry.
; RUN: %opt_amber -S %s | FileCheck %s
; RUN: %opt_amber -S %s -o - | %opt -S -o /dev/null
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; CHECK: %struct.__amber_clone = type { ptr, ptr }
; CHECK: @amber.clones = private constant [3 x %struct.__amber_clone] [%struct.__amber_clone { ptr @f, ptr @__amber_tx_f }, %struct.__amber_clone { ptr @helper, ptr @__amber_tx_helper }, %struct.__amber_clone { ptr @g, ptr @__amber_tx_g }], align 8
; CHECK-LABEL: define internal void @amber.module_ctor()
; CHECK: init:
; CHECK-NEXT: call void @__amber_module_init(i32 8)
; CHECK-NEXT: call void @__amber_register_clones(ptr @amber.clones, i64 3)
; CHECK-NEXT: ret void
; CHECK: declare extern_weak void @__amber_register_clones(ptr, i64)
define i32 @f(ptr %p) {
  %v = load i32, ptr %p
  ret i32 %v
}
define internal void @helper(ptr %p) {
  store i32 0, ptr %p
  ret void
}
define void @g(ptr %p) {
  call void @helper(ptr %p)
  ret void
}
define internal void @r(ptr %c) "amber-region" {
  ret void
}
@d = private global { i32, i16, i16, i32, i32, i64, ptr, ptr, ptr, i32, i32, ptr, i64 } { i32 1095582290, i16 8, i16 1, i32 0, i32 0, i64 0, ptr @r, ptr null, ptr null, i32 0, i32 0, ptr null, i64 0 }, section "amber_regions"
