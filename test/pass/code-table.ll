; Code addresses in the heap (docs/guide.md, "Function pointers in the
; heap").  Every module registers the functions whose address it takes,
; defined there or not, with the name a later run finds them by (a static
; function's is "<source file>:<name>"); pointer-typed loads and stores go
; through __amber_loadp / __amber_storep (outside regions on the cold side
; of the range check only: volatile pointers stay plain loads and stores).
; Functions only called directly are not in the table.
; RUN: %opt_amber -S %s | FileCheck %s
; RUN: %opt_amber -S %s -o - | %opt -S -o /dev/null
source_filename = "dir/cb.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; CHECK: %struct.__amber_code = type { ptr, ptr }
; CHECK-DAG: @[[N1:amber.code.name[.0-9]*]] = private unnamed_addr constant [5 x i8] c"hash\00", align 1
; CHECK-DAG: @[[N2:amber.code.name[.0-9]*]] = private unnamed_addr constant [11 x i8] c"cb.c:local\00", align 1
; CHECK-DAG: @[[N3:amber.code.name[.0-9]*]] = private unnamed_addr constant [5 x i8] c"labs\00", align 1
; CHECK: @amber.code = private constant [3 x %struct.__amber_code] [%struct.__amber_code { ptr @hash, ptr @[[N1]] }, %struct.__amber_code { ptr @local, ptr @[[N2]] }, %struct.__amber_code { ptr @labs, ptr @[[N3]] }], align 8

; CHECK-LABEL: define void @set(
; CHECK: amber.persistent:
; CHECK: call preserve_mostcc void @__amber_outside_storep(ptr %p, i64 ptrtoint (ptr @hash to i64), ptr
; CHECK: amber.volatile:
; CHECK-NEXT: store ptr @hash, ptr %p
define void @set(ptr %p) {
  store ptr @hash, ptr %p
  ret void
}

; CHECK-LABEL: define i64 @call(
; CHECK: call preserve_mostcc <2 x i64> @__amber_outside_loadp(ptr %p)
; CHECK: amber.volatile:
; CHECK-NEXT: %f = load ptr, ptr %p
define i64 @call(ptr %p) {
  %f = load ptr, ptr %p
  %r = call i64 %f(i64 1)
  ret i64 %r
}

define i64 @hash(i64 %x) {
  ret i64 %x
}
define internal i64 @local(i64 %x) {
  ret i64 %x
}
define i64 @direct(i64 %x) {
  %r = call i64 @hash(i64 %x)
  ret i64 %r
}
declare i64 @labs(i64)
define void @more(ptr %q) {
  %a = alloca ptr
  store ptr @local, ptr %a
  store volatile ptr @labs, ptr %a
  ret void
}

; CHECK-LABEL: define internal void @amber.module_ctor()
; CHECK: call void @__amber_module_init(i32 8)
; CHECK: call void @__amber_register_code(ptr @amber.code, i64 3)
; CHECK: declare extern_weak void @__amber_register_code(ptr, i64)
