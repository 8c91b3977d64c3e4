; Memory intrinsics (matched by class, inline variants too) become
; __amber_memset/memcpy/memmove with a size_t length.
; RUN: %opt_amber -S %s | FileCheck %s
; RUN: %opt_amber -amber-instrument-memintrinsics=false -S %s | FileCheck %s --check-prefix=OFF

; CHECK-LABEL: define void @__amber_tx_f(
; CHECK: call ptr @__amber_memset(ptr %d, i32 7, i64 %n)
; CHECK: call ptr @__amber_memcpy(ptr %d, ptr %s, i64 %n)
; CHECK: call ptr @__amber_memmove(ptr %d, ptr %s, i64 16)
; CHECK: call ptr @__amber_memcpy(ptr %d, ptr %s, i64 8)
; CHECK: %[[L:.*]] = zext i32 %m to i64
; CHECK-NEXT: call ptr @__amber_memset(ptr %d, i32 0, i64 %[[L]])
; CHECK-NOT: call void @llvm.mem
; CHECK: ret void
; OFF-LABEL: define void @__amber_tx_f(
; OFF: call void @llvm.memset.p0.i64
define void @f(ptr %d, ptr %s, i64 %n, i32 %m) {
  call void @llvm.memset.p0.i64(ptr %d, i8 7, i64 %n, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
  call void @llvm.memmove.p0.p0.i64(ptr %d, ptr %s, i64 16, i1 false)
  call void @llvm.memcpy.inline.p0.p0.i64(ptr %d, ptr %s, i64 8, i1 false)
  call void @llvm.memset.p0.i32(ptr %d, i8 0, i32 %m, i1 false)
  ret void
}
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare void @llvm.memset.p0.i32(ptr, i8, i32, i1)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare void @llvm.memcpy.inline.p0.p0.i64(ptr, ptr, i64, i1)
declare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)
