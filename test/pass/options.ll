; Each instrumentation class can be switched off.
; RUN: %opt_amber -amber-instrument-loads=false -S %s | FileCheck %s --check-prefix=NOLOADS
; RUN: %opt_amber -amber-instrument-stores=false -S %s | FileCheck %s --check-prefix=NOSTORES
; RUN: %opt_amber -amber-instrument-calls=false -S %s | FileCheck %s --check-prefix=NOCALLS

; NOLOADS-LABEL: define i32 @__amber_tx_f(
; NOLOADS: %v = load i32, ptr %p
; NOLOADS: call void @__amber_store4(ptr %p, i32 1)
; NOSTORES-LABEL: define i32 @__amber_tx_f(
; NOSTORES: call i32 @__amber_load4(ptr %p)
; NOSTORES: store i32 1, ptr %p
; NOCALLS-LABEL: define i32 @__amber_tx_f(
; NOCALLS-NOT: __amber_strlen
; NOCALLS: call i64 @strlen(ptr %p)
define i32 @f(ptr %p) {
  %v = load i32, ptr %p
  store i32 1, ptr %p
  %l = call i64 @strlen(ptr %p)
  ret i32 %v
}
declare i64 @strlen(ptr)
