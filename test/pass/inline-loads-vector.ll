; A whole value of 8-byte words (here a vectorized loop's 64-byte load) read
; from ordinary memory under mvcc is inline too (issue [3/7] item 2): 8-byte
; aligned, its first and last bytes outside the heap, its lock-table words
; consecutive (no wrap at vmask) and the mode not the read log's; then word
; by word as a scalar load: the lock-table word (acquire), the word
; (relaxed), a fence, the lock-table word again, on when it was even, below
; vsettled and unchanged (runtime/engine/mvcc/vmem.c, vread_settled).  Any
; other case takes __amber_loadn.  A value that is not whole 8-byte words
; (<2 x i32>... of 12 bytes here) has no such path.
; RUN: %opt_amber -S %s | FileCheck %s
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define i64 @sum(ptr %p, ptr %q) {
  %v = load <8 x i64>, ptr %p, align 8
  %s = call i64 @llvm.vector.reduce.add.v8i64(<8 x i64> %v)
  %w = load <3 x i32>, ptr %q, align 4
  %e = extractelement <3 x i32> %w, i64 0
  %e64 = zext i32 %e to i64
  %r = add i64 %s, %e64
  ret i64 %r
}
declare i64 @llvm.vector.reduce.add.v8i64(<8 x i64>)

; CHECK-LABEL: define i64 @__amber_tx_sum(
; CHECK: %[[TR:.*]] = icmp eq i32 %amber.read_mode, 3
; CHECK: br i1 %{{.*}}, label %amber.load.entry, label %amber.load.ordtest
; CHECK: amber.load.slow:
; CHECK-NEXT: call void @__amber_loadn(ptr %amber.tmp{{.*}}, ptr %p, i64 64)
; CHECK: amber.load.ordtest:
; CHECK-NEXT: %[[PI:.*]] = ptrtoint ptr %p to i64
; CHECK-NEXT: %[[O1:.*]] = icmp uge i64 %amber.off{{[0-9]*}}, %amber.heap_size
; CHECK-NEXT: %[[END:.*]] = add i64 %amber.off{{[0-9]*}}, 63
; CHECK-NEXT: %[[O2:.*]] = icmp uge i64 %[[END]], %amber.heap_size
; CHECK-NEXT: %[[OUT:.*]] = and i1 %[[O1]], %[[O2]]
; CHECK-NEXT: %[[MIS:.*]] = and i64 %[[PI]], 7
; CHECK-NEXT: %[[AL:.*]] = icmp eq i64 %[[MIS]], 0
; CHECK-NEXT: %[[WI:.*]] = lshr i64 %[[PI]], 3
; CHECK-NEXT: %amber.vidx = and i64 %[[WI]], %amber.vmask
; CHECK-NEXT: %[[LASTW:.*]] = add i64 %amber.vidx, 7
; CHECK-NEXT: %[[NOWRAP:.*]] = icmp ule i64 %[[LASTW]], %amber.vmask
; CHECK-NEXT: %[[A1:.*]] = and i1 %[[OUT]], %[[AL]]
; CHECK-NEXT: %[[NOLOG:.*]] = xor i1 %[[TR]], true
; CHECK-NEXT: %[[A2:.*]] = and i1 %[[NOWRAP]], %[[NOLOG]]
; CHECK-NEXT: %[[GO:.*]] = and i1 %[[A1]], %[[A2]]
; CHECK-NEXT: br i1 %[[GO]], label %amber.load.ordwords, label %amber.load.slow
; Word 0, then on to the next word only when it passed.
; CHECK: amber.load.ordwords:
; CHECK-NEXT: %amber.vwords = getelementptr i64, ptr %amber.vtab, i64 %amber.vidx
; CHECK-NEXT: %[[V0:amber.vversion[0-9]*]] = load atomic i64, ptr %amber.vwords acquire, align 8
; CHECK-NEXT: %[[P0:.*]] = getelementptr i64, ptr %p, i64 0
; CHECK-NEXT: %[[X0:amber.vvalue[0-9]*]] = load atomic i64, ptr %[[P0]] monotonic, align 8
; CHECK-NEXT: fence acquire
; CHECK-NEXT: %[[A0:amber.vagain[0-9]*]] = load atomic i64, ptr %amber.vwords monotonic, align 8
; CHECK-NEXT: %[[ODD0:.*]] = and i64 %[[V0]], 1
; CHECK-NEXT: %[[EVEN0:.*]] = icmp eq i64 %[[ODD0]], 0
; CHECK-NEXT: %[[OLD0:.*]] = icmp ult i64 %[[V0]], %amber.vsettled
; CHECK-NEXT: %[[EO0:.*]] = and i1 %[[EVEN0]], %[[OLD0]]
; CHECK-NEXT: %[[SAME0:.*]] = icmp eq i64 %[[A0]], %[[V0]]
; CHECK-NEXT: %[[OK0:.*]] = and i1 %[[EO0]], %[[SAME0]]
; CHECK-NEXT: insertelement <8 x i64> poison, i64 %[[X0]], i64 0
; CHECK-NEXT: br i1 %[[OK0]], label %[[NEXT:amber.load.ordwords[0-9]+]], label %amber.load.slow
; CHECK: [[NEXT]]:
; CHECK-NEXT: %[[W1:.*]] = getelementptr i64, ptr %amber.vwords, i64 1
; CHECK-NEXT: load atomic i64, ptr %[[W1]] acquire, align 8
; CHECK-NEXT: %[[P1:.*]] = getelementptr i64, ptr %p, i64 1
; CHECK-NEXT: load atomic i64, ptr %[[P1]] monotonic, align 8
; CHECK-NEXT: fence acquire
; CHECK-NEXT: load atomic i64, ptr %[[W1]] monotonic, align 8
; The last word.
; CHECK: %[[W7:.*]] = getelementptr i64, ptr %amber.vwords, i64 7
; CHECK-NEXT: %[[V7:amber.vversion[0-9]*]] = load atomic i64, ptr %[[W7]] acquire, align 8
; CHECK-NEXT: %[[P7:.*]] = getelementptr i64, ptr %p, i64 7
; CHECK-NEXT: %[[X7:amber.vvalue[0-9]*]] = load atomic i64, ptr %[[P7]] monotonic, align 8
; CHECK-NEXT: fence acquire
; CHECK-NEXT: %[[A7:amber.vagain[0-9]*]] = load atomic i64, ptr %[[W7]] monotonic, align 8
; CHECK: icmp eq i64 %[[A7]], %[[V7]]
; CHECK: insertelement <8 x i64> %{{.*}}, i64 %[[X7]], i64 7
; CHECK-NEXT: br i1 %{{.*}}, label %amber.load.orddonen, label %amber.load.slow
; CHECK: amber.load.orddonen:
; CHECK-NEXT: br label %amber.load.join
; CHECK: %v = phi <8 x i64> {{.*}}[ %{{[0-9]+}}, %amber.load.orddonen ]
; The 12-byte value: the mvcc path goes from the heap check to the callback.
; CHECK: sub i64 %amber.heap_size, 11
; CHECK-NOT: amber.load.ordwords
; CHECK: call void @__amber_loadn(ptr %amber.tmp{{.*}}, ptr %q, i64 12)
; CHECK: ret i64
