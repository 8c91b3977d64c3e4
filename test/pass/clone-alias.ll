; Clones of exported functions keep the function's name after __amber_tx_
; (other modules call them by that name, ABI 6); an exported alias of a
; cloned function gets the same alias of the clone; an internal function's
; clone stays internal, and an asm label's "\01" stays in front.
; RUN: %opt_amber -S %s | FileCheck %s
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; CHECK-DAG: @g = alias void (ptr), ptr @f
; CHECK-DAG: @__amber_tx_g = alias void (ptr), ptr @__amber_tx_f
; CHECK-DAG: @h = hidden alias void (ptr), ptr @f
; CHECK-DAG: @__amber_tx_h = hidden alias void (ptr), ptr @__amber_tx_f
; CHECK-DAG: @l = internal alias void (ptr), ptr @f
; CHECK-NOT: @__amber_tx_l =
@g = alias void (ptr), ptr @f
@h = hidden alias void (ptr), ptr @f
@l = internal alias void (ptr), ptr @f

define void @f(ptr %p) {
  store i32 1, ptr %p
  ret void
}
define internal void @s(ptr %p) {
  store i32 2, ptr %p
  ret void
}
define void @"\01labelled"(ptr %p) {
  store i32 3, ptr %p
  ret void
}
; CHECK-DAG: define void @__amber_tx_f(
; CHECK-DAG: define internal void @__amber_tx_s(
; CHECK-DAG: define void @"\01__amber_tx_labelled"(
