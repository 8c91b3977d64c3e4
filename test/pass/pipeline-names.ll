; opt pipeline names: amber-outline only outlines; amber-instrument only
; instruments; amber does both.
; RUN: %opt -load-pass-plugin=%amber_pass -passes=amber-outline -S %s | FileCheck %s --check-prefix=OUTLINE
; RUN: %opt -load-pass-plugin=%amber_pass -passes=amber-instrument -S %s | FileCheck %s --check-prefix=INSTR
; RUN: %opt -load-pass-plugin=%amber_pass -passes=amber-outline,amber-instrument -S %s | FileCheck %s --check-prefix=BOTH
; RUN: %opt_amber -S %s | FileCheck %s --check-prefix=BOTH

@.str = private unnamed_addr constant [4 x i8] c"p.c\00"

; OUTLINE-LABEL: define internal void @f.amber_region.0(
; OUTLINE: store i32 1, ptr
; OUTLINE-NOT: __amber_tx_
; INSTR-LABEL: define void @__amber_tx_f(
; INSTR: call i32 @__amber_region_begin(
; BOTH-LABEL: define internal void @f.amber_region.0(
; BOTH: call void @__amber_store4(ptr %{{.*}}, i32 1)
define void @f(ptr %p) {
entry:
  %b = call i32 @__amber_region_begin(i32 1, i32 0, ptr @.str, i32 3)
  br label %cond
cond:
  %l = call i32 @__amber_region_live()
  %t = icmp ne i32 %l, 0
  br i1 %t, label %body, label %end
body:
  store i32 1, ptr %p
  br label %inc
inc:
  call void @__amber_region_end()
  br label %cond
end:
  ret void
}
declare i32 @__amber_region_begin(i32, i32, ptr, i32)
declare i32 @__amber_region_live()
declare void @__amber_region_end()
