; Plain loads in a transactional clone (and a region function) get an inline
; path (ABI 5, amber_interface.h "Inline loads inside regions"): one call of
; __amber_read_state() at the function's entry, whose mode and mvcc fields
; the frame keeps; per load, in the direct mode (romulus) the heap window
; check, then a load at the alias (p + __amber_heap_delta) for the heap, the
; program's own load for ordinary memory, and the callback for the rest (a
; span past the heap's end); in the mvcc modes the heap window and one-block
; check, the block's bit in the bitmap of installed headers (clear: the
; master), its control header in place in the shadow table (ABI 8: at table
; + blk * 32), its lock, head and ckpt (unlocked, no head: the checkpoint copy or the master;
; a head of this thread's below `settled`: its data), the read log when the
; mode is AMBER_READS_MVCC_LOG, and the callback for the rest; in the call
; mode the callback.  A pointer-typed value that is a
; code handle (bits 48..63 = 0xAB1E) goes to __amber_loadp; a vector (up to
; 64 bytes) is loaded whole.  Volatile, atomic and aggregate loads keep the
; callback; the original function keeps its loads.
; RUN: %opt_amber -S %s | FileCheck %s
; RUN: %opt_amber -amber-inline-loads=false -S %s | FileCheck %s --check-prefix=OFF
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define i64 @f(ptr %p, ptr %q) {
  %a = load i32, ptr %p, align 4
  %r = load ptr, ptr %q, align 8
  %v = load volatile i64, ptr %r, align 8
  %t = load atomic i64, ptr %r acquire, align 8
  %w = load <4 x i32>, ptr %r, align 16
  %agg = load { i32, i8 }, ptr %r, align 4
  store <4 x i32> %w, ptr %q, align 16
  store { i32, i8 } %agg, ptr %q, align 4
  %a1 = zext i32 %a to i64
  %s = add i64 %a1, %v
  %s2 = add i64 %s, %t
  ret i64 %s2
}

; CHECK: @__amber_heap_delta = extern_weak global i64
; CHECK-LABEL: define i64 @f(
; CHECK-NOT: __amber_read_state
; CHECK: ret i64

; CHECK-LABEL: define i64 @__amber_tx_f(
; CHECK: %amber.reads = call ptr @__amber_read_state()
; CHECK: %amber.read_mode = load i32, ptr %{{[0-9]+}}, align 4
; CHECK-NEXT: %[[D:.*]] = icmp eq i32 %amber.read_mode, 1
; CHECK-NEXT: %[[MV:.*]] = icmp uge i32 %amber.read_mode, 2
; CHECK-NEXT: %[[TR:.*]] = icmp eq i32 %amber.read_mode, 3
; CHECK: %amber.shift = load i32
; CHECK: %[[SH:.*]] = zext i32 %amber.shift to i64
; CHECK: %amber.table = load ptr
; CHECK: %amber.installed_map = load ptr
; CHECK: %amber.self = load ptr
; CHECK: %amber.settled = load i64
; CHECK: %amber.vtab = load ptr
; CHECK: %amber.vmask = load i64
; CHECK: %amber.vsettled = load i64
; CHECK-NEXT: %amber.heap_base = load i64, ptr @__amber_heap_base
; CHECK-NEXT: %amber.heap_size = load i64, ptr @__amber_heap_size
; CHECK-NEXT: %amber.heap_delta = load i64, ptr @__amber_heap_delta
; CHECK-NEXT: br i1 %[[D]], label %amber.load.check, label %amber.load.mvtest
; CHECK: amber.load.check:
; CHECK: %amber.off = sub i64 %{{.*}}, %amber.heap_base
; CHECK-NEXT: %[[LIM:.*]] = sub i64 %amber.heap_size, 3
; CHECK-NEXT: %[[IN:.*]] = icmp ult i64 %amber.off, %[[LIM]]
; CHECK-NEXT: br i1 %[[IN]], label %amber.load.heap, label %amber.load.check2
; CHECK: amber.load.heap:
; CHECK-NEXT: %amber.alias = getelementptr i8, ptr %p, i64 %amber.heap_delta
; CHECK-NEXT: %[[H:.*]] = load i32, ptr %amber.alias, align 4
; CHECK: amber.load.check2:
; CHECK-NEXT: %[[OUT:.*]] = icmp uge i64 %amber.off, %amber.heap_size
; CHECK-NEXT: br i1 %[[OUT]], label %amber.load.ordinary, label %amber.load.slow
; CHECK: amber.load.ordinary:
; CHECK-NEXT: %[[O:.*]] = load i32, ptr %p, align 4
; CHECK: amber.load.mvtest:
; CHECK-NEXT: br i1 %[[MV]], label %amber.load.mv, label %amber.load.slow
; CHECK: amber.load.mv:
; CHECK: %[[MOFF:amber.off[0-9]+]] = sub i64 %{{.*}}, %amber.heap_base
; CHECK-NEXT: %[[MLIM:.*]] = sub i64 %amber.heap_size, 3
; CHECK-NEXT: %[[MIN:.*]] = icmp ult i64 %[[MOFF]], %[[MLIM]]
; CHECK-NEXT: %amber.blk = lshr i64 %[[MOFF]], %[[SH]]
; CHECK-NEXT: %amber.in = and i64 %[[MOFF]], %amber.block_mask
; CHECK-NEXT: %[[LAST:.*]] = add i64 %amber.in, 3
; CHECK-NEXT: %[[ONE:.*]] = icmp ule i64 %[[LAST]], %amber.block_mask
; CHECK-NEXT: %[[OK:.*]] = and i1 %[[MIN]], %[[ONE]]
; CHECK-NEXT: br i1 %[[OK]], label %amber.load.entry, label %amber.load.ordtest
; CHECK: amber.load.ctl:
; CHECK: %amber.lock = load atomic i64, ptr %{{.*}} seq_cst, align 8
; CHECK: %amber.vhead = load atomic ptr, ptr %{{.*}} acquire, align 8
; CHECK: %amber.ckpt = load atomic ptr, ptr %{{.*}} acquire, align 8
; CHECK-NEXT: %[[UNL:.*]] = icmp eq i64 %amber.lock, 0
; CHECK-NEXT: br i1 %[[UNL]], label %amber.load.unlocked, label %amber.load.locked
; CHECK: amber.load.unlocked:
; CHECK-NEXT: %[[NOH:.*]] = icmp eq ptr %amber.vhead, null
; CHECK-NEXT: br i1 %[[NOH]], label %amber.load.ckpt, label %amber.load.head
; CHECK: amber.load.locked:
; CHECK-NEXT: %[[ODD:.*]] = and i64 %amber.lock, 1
; CHECK-NEXT: %[[EVEN:.*]] = icmp eq i64 %[[ODD]], 0
; CHECK-NEXT: br i1 %[[EVEN]], label %amber.load.ownchk, label %amber.load.slow
; CHECK: amber.load.ownchk:
; CHECK-NEXT: %amber.lockcopy = inttoptr i64 %amber.lock to ptr
; CHECK-NEXT: %[[LO:.*]] = getelementptr i8, ptr %amber.lockcopy, i64 24
; CHECK-NEXT: %amber.lockowner = load ptr, ptr %[[LO]], align 8
; CHECK-NEXT: %[[OWN:.*]] = icmp eq ptr %amber.lockowner, %amber.self
; CHECK-NEXT: br i1 %[[OWN]], label %amber.load.own, label %amber.load.slow
; CHECK: amber.load.own:
; CHECK-NEXT: %[[OD:.*]] = getelementptr i8, ptr %amber.lockcopy, i64 64
; CHECK-NEXT: %amber.own_data = getelementptr i8, ptr %[[OD]], i64 %amber.in
; CHECK: amber.load.ckpt:
; CHECK-NEXT: %[[NOC:.*]] = icmp eq ptr %amber.ckpt, null
; CHECK-NEXT: %amber.ckpt_data = getelementptr i8, ptr %amber.ckpt, i64 %amber.in
; CHECK-NEXT: %[[FC:.*]] = select i1 %[[NOC]], ptr %amber.master, ptr %amber.ckpt_data
; CHECK: amber.load.head:
; CHECK: %amber.owner = load ptr
; CHECK: %amber.cts = load i64
; CHECK-NEXT: %[[MINE:.*]] = icmp eq ptr %amber.owner, %amber.self
; CHECK-NEXT: %[[OLD:.*]] = icmp ult i64 %amber.cts, %amber.settled
; CHECK-NEXT: %[[BOTH:.*]] = and i1 %[[MINE]], %[[OLD]]
; CHECK-NEXT: br i1 %[[BOTH]], label %amber.load.version, label %amber.load.slow
; CHECK: amber.load.version:
; CHECK-NEXT: %[[VD:.*]] = getelementptr i8, ptr %amber.vhead, i64 64
; CHECK-NEXT: %amber.version_data = getelementptr i8, ptr %[[VD]], i64 %amber.in
; CHECK: amber.load.src:
; CHECK-NEXT: %amber.src = phi ptr [ %amber.master, %amber.load.entry ], [ %[[FC]], %amber.load.ckpt ], [ %amber.version_data, %amber.load.version ], [ %amber.own_data, %amber.load.own ]
; CHECK-NEXT: br i1 %[[TR]], label %amber.load.log, label %amber.load.read
; CHECK: amber.load.log:
; CHECK: %amber.rn = load i64
; CHECK: %amber.rcap = load i64
; CHECK: %amber.rlog = load ptr
; CHECK-NEXT: %[[ROOM:.*]] = icmp ult i64 %amber.rn, %amber.rcap
; CHECK-NEXT: br i1 %[[ROOM]], label %amber.load.last, label %amber.load.slow
; CHECK: amber.load.read:
; CHECK-NEXT: %[[MR:.*]] = load i32, ptr %amber.src, align 4
; CHECK: amber.load.slow:
; CHECK-NEXT: %[[S:.*]] = call i32 @__amber_load4(ptr %p)
; ABI 8: the block's bit in the bitmap of installed headers (clear: the
; master), and its control header in place at table + blk * 32, no pointer
; to follow.
; CHECK: amber.load.entry:
; CHECK-NEXT: %amber.master = getelementptr i8, ptr %p, i64 %amber.heap_delta
; CHECK-NEXT: %[[WI:.*]] = lshr i64 %amber.blk, 6
; CHECK-NEXT: %[[WP:.*]] = getelementptr i64, ptr %amber.installed_map, i64 %[[WI]]
; CHECK-NEXT: %amber.installed = load atomic i64, ptr %[[WP]] acquire, align 8
; CHECK-NEXT: %[[BI:.*]] = and i64 %amber.blk, 63
; CHECK-NEXT: %[[SH2:.*]] = lshr i64 %amber.installed, %[[BI]]
; CHECK-NEXT: %[[BIT:.*]] = and i64 %[[SH2]], 1
; CHECK-NEXT: %[[CO:.*]] = shl i64 %amber.blk, 5
; CHECK-NEXT: %amber.ctl = getelementptr i8, ptr %amber.table, i64 %[[CO]]
; CHECK-NEXT: %[[NOTI:.*]] = icmp eq i64 %[[BIT]], 0
; CHECK-NEXT: br i1 %[[NOTI]], label %amber.load.src, label %amber.load.ctl
; Ordinary memory under mvcc: an aligned scalar whose lock-table word is
; even and below vsettled, read in place between two reads of the word.
; CHECK: amber.load.ordtest:
; CHECK-NEXT: %[[PI:.*]] = ptrtoint ptr %p to i64
; CHECK-NEXT: %[[OUTS:.*]] = icmp uge i64 %[[MOFF]], %amber.heap_size
; CHECK-NEXT: %[[MIS:.*]] = and i64 %[[PI]], 3
; CHECK-NEXT: %[[AL:.*]] = icmp eq i64 %[[MIS]], 0
; CHECK-NEXT: %[[ORD:.*]] = and i1 %[[OUTS]], %[[AL]]
; CHECK-NEXT: br i1 %[[ORD]], label %amber.load.ordword, label %amber.load.slow
; CHECK: amber.load.last2:
; CHECK: %amber.rlast = load i64
; CHECK-NEXT: %[[SAME:.*]] = icmp eq i64 %amber.rlast, %amber.blk
; CHECK-NEXT: br i1 %[[SAME]], label %amber.load.read, label %amber.load.push
; CHECK: amber.load.push:
; CHECK-NEXT: %[[SLOT:.*]] = getelementptr i64, ptr %amber.rlog, i64 %amber.rn
; CHECK-NEXT: store i64 %amber.blk, ptr %[[SLOT]], align 8
; CHECK-NEXT: %[[N1:.*]] = add i64 %amber.rn, 1
; CHECK-NEXT: store i64 %[[N1]], ptr
; CHECK: amber.load.ordword:
; CHECK-NEXT: %[[WI:.*]] = lshr i64 %[[PI]], 3
; CHECK-NEXT: %[[WM:.*]] = and i64 %[[WI]], %amber.vmask
; CHECK-NEXT: %amber.vword = getelementptr i64, ptr %amber.vtab, i64 %[[WM]]
; CHECK-NEXT: %amber.vversion = load atomic i64, ptr %amber.vword acquire, align 8
; CHECK-NEXT: %[[ODD:.*]] = and i64 %amber.vversion, 1
; CHECK-NEXT: %[[EVEN:.*]] = icmp eq i64 %[[ODD]], 0
; CHECK-NEXT: %[[OLDW:.*]] = icmp ult i64 %amber.vversion, %amber.vsettled
; CHECK-NEXT: %[[WOK:.*]] = and i1 %[[EVEN]], %[[OLDW]]
; CHECK-NEXT: br i1 %[[WOK]], label %amber.load.ordread, label %amber.load.slow
; CHECK: amber.load.ordread:
; CHECK-NEXT: %amber.vvalue = load atomic i32, ptr %p monotonic, align 4
; CHECK-NEXT: fence acquire
; CHECK-NEXT: %amber.vagain = load atomic i64, ptr %amber.vword monotonic, align 8
; CHECK-NEXT: %[[SAMEW:.*]] = icmp eq i64 %amber.vagain, %amber.vversion
; CHECK-NEXT: br i1 %[[SAMEW]], label %amber.load.ordok, label %amber.load.slow
; CHECK: amber.load.ordok:
; CHECK-NEXT: br i1 %[[TR]], label %amber.load.ordlog, label %amber.load.orddone
; CHECK: amber.load.push{{[0-9]+}}:
; CHECK-NEXT: %[[WSLOT:.*]] = getelementptr ptr, ptr %amber.rlog{{[0-9]+}}, i64 %amber.rn{{[0-9]+}}
; CHECK-NEXT: store ptr %amber.vword, ptr %[[WSLOT]], align 8
; CHECK: %a = phi i32 [ %[[H]], %amber.load.heap ], [ %[[O]], %amber.load.ordinary ], [ %[[MR]], %amber.load.read ], [ %amber.vvalue, %amber.load.orddone ], [ %[[S]], %amber.load.slow ]
; The pointer load: a code handle takes the callback.
; CHECK: sub i64 %amber.heap_size, 7
; CHECK: %[[PH:.*]] = load i64, ptr %amber.alias{{.*}}, align 8
; CHECK-NEXT: %[[PT:.*]] = lshr i64 %[[PH]], 48
; CHECK-NEXT: %[[PC:.*]] = icmp eq i64 %[[PT]], 43806
; CHECK-NEXT: br i1 %[[PC]], label %amber.load.slow{{[0-9]+}}, label %amber.load.join{{[0-9]*}}
; CHECK: %[[PM:.*]] = load i64, ptr %amber.src{{[0-9]+}}, align 8
; CHECK-NEXT: %[[PMT:.*]] = lshr i64 %[[PM]], 48
; CHECK-NEXT: icmp eq i64 %[[PMT]], 43806
; CHECK: call i64 @__amber_loadp(ptr %q)
; CHECK: %r = inttoptr i64
; CHECK-NEXT: %v = call i64 @__amber_load8(ptr %r)
; CHECK-NEXT: %t = call i64 @__amber_load8(ptr %r)
; A vector is loaded whole (its callback: __amber_loadn); an aggregate is not
; inlined.
; CHECK: sub i64 %amber.heap_size, 15
; CHECK: load <4 x i32>, ptr %amber.alias{{.*}}, align 16
; CHECK: load <4 x i32>, ptr %r, align 16
; CHECK: load <4 x i32>, ptr %amber.src{{[0-9]+}}, align 16
; CHECK: call void @__amber_loadn(ptr %amber.tmp{{.*}}, ptr %r, i64 16)
; CHECK: %w = phi <4 x i32>
; CHECK: call void @__amber_loadn(ptr %{{.*}}, ptr %r, i64 8)
; CHECK: ret i64
; CHECK: declare extern_weak ptr @__amber_read_state()

; OFF-LABEL: define i64 @__amber_tx_f(
; OFF-NOT: __amber_read_state
; OFF: %a = call i32 @__amber_load4(ptr %p)
; OFF: ret i64
