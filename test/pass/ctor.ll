; Every instrumented module gets a priority-101 constructor that stops the
; program when the runtime is absent (all ABI symbols are extern_weak) and
; otherwise calls __amber_module_init(AMBER_ABI_VERSION).
; RUN: %opt_amber -S %s | FileCheck %s
; CHECK: @amber.missing_runtime = private unnamed_addr constant [{{[0-9]+}} x i8] c"amber: error: this program was built with the amber pass but the amber runtime is not loaded; link with -lamber (amber-cc does this) or run with LD_PRELOAD=/path/to/libamber.so\0A\00"
; CHECK: @llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 101, ptr @amber.module_ctor, ptr null }]
; CHECK-LABEL: define internal void @amber.module_ctor()
; CHECK: br i1 icmp eq (ptr @__amber_module_init, ptr null), label %missing, label %init
; CHECK: missing:
; CHECK: call i64 @write(i32 2, ptr @amber.missing_runtime, i64 177)
; CHECK: call void @_exit(i32 2)
; CHECK-NEXT: unreachable
; CHECK: init:
; CHECK: call void @__amber_module_init(i32 8)
; CHECK: declare extern_weak void @__amber_module_init(i32)
; CHECK-NOT: define {{.*}}@__amber_tx_amber.module_ctor
; Running the pass again changes nothing (no second constructor).
; RUN: %opt_amber -S %s | %opt_amber -S | FileCheck %s --check-prefix=TWICE
; TWICE: @llvm.global_ctors = appending global [1 x
; TWICE-NOT: __amber_tx___amber_tx_f
define i32 @f(ptr %p) {
  %v = load i32, ptr %p
  ret i32 %v
}
