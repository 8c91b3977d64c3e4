; Outlining of a region as clang emits it: live-ins by value in the closure,
; live-outs in OUT slots, __amber_run at the call site, markers gone, the
; cancel path choosing between the live-out and the entry value, and the
; descriptor with a stable op id (FNV-1a 64 of "x.c:f:0").
; RUN: %opt -load-pass-plugin=%amber_pass -passes=amber-outline -S %s | FileCheck %s

@.str = private unnamed_addr constant [4 x i8] c"x.c\00", align 1

; CHECK: @f.amber_region.0.fields = private constant [3 x %struct.__amber_field] [%struct.__amber_field { i32 0, i32 8, i32 1, i32 0 }, %struct.__amber_field { i32 8, i32 4, i32 0, i32 0 }, %struct.__amber_field { i32 12, i32 4, i32 2, i32 0 }]
; CHECK: @f.amber_region.0.name = private unnamed_addr constant [4 x i8] c"f#0\00"
; CHECK: @f.amber_region.0.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 8, i16 1, i32 0, i32 7, i64 -6293027041045355782, ptr @f.amber_region.0, ptr @f.amber_region.0.name, ptr @f.amber_region.0.file, i32 16, i32 3, ptr @f.amber_region.0.fields, i64 0 }, section "amber_regions", align 8
; CHECK: @llvm.compiler.used = appending global [1 x ptr] [ptr @f.amber_region.0.desc]

; CHECK-LABEL: define dso_local i32 @f(
; CHECK: %amber.closure = alloca { ptr, i32, i32 }
; CHECK-NOT: __amber_region_begin
; CHECK: store ptr %p, ptr
; CHECK: store i32 %k, ptr
; CHECK: %[[V:.*]] = call i32 @__amber_run(ptr @f.amber_region.0.desc, ptr %amber.closure, i32 0)
; CHECK: %[[C:.*]] = icmp ne i32 %[[V]], 0
; CHECK: %[[R:.*]] = load i32, ptr
; CHECK-NOT: __amber_region_live
; CHECK-NOT: __amber_region_end
; After a cancel (__amber_run nonzero), y is what it was at the region's
; entry (0), not the closure's live-out slot:
; CHECK: br i1 %[[C]], label %amber.cancel.restore, label %amber.cancel.join
; CHECK: %[[Y:.*]] = phi i32 [ 0, %amber.cancel.restore ], [ %[[R]], %amber.cancel.check ]
; CHECK: ret i32 %[[Y]]
; CHECK-NOT: amber.region_cancelled

; CHECK-LABEL: define internal void @f.amber_region.0(ptr %amber.closure)
; CHECK-SAME: #[[ATTR:[0-9]+]]
; CHECK: load ptr, ptr
; CHECK: load i32, ptr
; CHECK: store i32 %add, ptr %{{.*}}
; CHECK: ret void
; CHECK: attributes #[[ATTR]] = { noinline {{.*}}"amber-region"

define dso_local i32 @f(ptr noundef %p, i32 noundef %k) {
entry:
  %p.addr = alloca ptr, align 8
  %k.addr = alloca i32, align 4
  %y = alloca i32, align 4
  store ptr %p, ptr %p.addr, align 8
  store i32 %k, ptr %k.addr, align 4
  store i32 0, ptr %y, align 4
  %call = call i32 @__amber_region_begin(i32 noundef 1, i32 noundef 0, ptr noundef @.str, i32 noundef 7)
  br label %for.cond

for.cond:
  %call1 = call i32 @__amber_region_live()
  %tobool = icmp ne i32 %call1, 0
  br i1 %tobool, label %for.body, label %for.end

for.body:
  %0 = load ptr, ptr %p.addr, align 8
  %1 = load i32, ptr %0, align 4
  %2 = load i32, ptr %k.addr, align 4
  %add = add nsw i32 %1, %2
  store i32 %add, ptr %y, align 4
  %3 = load i32, ptr %y, align 4
  %4 = load ptr, ptr %p.addr, align 8
  store i32 %3, ptr %4, align 4
  br label %for.inc

for.inc:
  call void @__amber_region_end()
  br label %for.cond

for.end:
  %5 = load i32, ptr %y, align 4
  ret i32 %5
}

declare i32 @__amber_region_begin(i32 noundef, i32 noundef, ptr noundef, i32 noundef)
declare i32 @__amber_region_live()
declare void @__amber_region_end()
