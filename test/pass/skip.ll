; Not instrumented: non-escaping allocas, constant globals, other address
; spaces.  Instrumented: escaping allocas, writable globals.
; RUN: %opt_amber -S %s | FileCheck %s

@c = constant i32 5
@g = global i32 0

; CHECK-LABEL: define i32 @__amber_tx_f(
; CHECK: store i32 1, ptr %local
; CHECK: %a = load i32, ptr %local
; CHECK: %b = load i32, ptr @c
; CHECK: %x = load i32, ptr addrspace(1) %q
; CHECK: call void @llvm.memset.p0.i64(ptr %buf, i8 0, i64 16, i1 false)
; CHECK: call void @__amber_store4(ptr %esc, i32 2)
; CHECK: call i32 @__amber_load4(ptr @g)
; CHECK-NOT: __amber_load4(ptr %local)
; CHECK: ret i32
define i32 @f(ptr addrspace(1) %q) {
  %local = alloca i32
  %buf = alloca [16 x i8]
  %esc = alloca i32
  store i32 1, ptr %local
  %a = load i32, ptr %local
  %b = load i32, ptr @c
  %x = load i32, ptr addrspace(1) %q
  call void @llvm.memset.p0.i64(ptr %buf, i8 0, i64 16, i1 false)
  store i32 2, ptr %esc
  call void @sink(ptr %esc)
  %y = load i32, ptr @g
  %s = add i32 %a, %b
  %t = add i32 %s, %x
  %u = add i32 %t, %y
  ret i32 %u
}
declare void @sink(ptr)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
