#!/bin/sh
# Makes lib/libamber_rt.o and lib/libamber_rt.dynlist (runtime/CMakeLists.txt):
#   amber-rt.sh CC OBJCOPY NM LDS LIBAMBER_SO OUT.o OUT.dynlist [-Wl,--wrap=NAME]... -- OBJECTS...
# 1. One relocatable link of the runtime's objects (the same as libamber.so's,
#    with linked_in.c instead of dso_handle.c), with libamber.so's --wrap
#    flags: the runtime's own calls to the functions it intercepts go to the
#    C library's, as in the library.
# 2. Every symbol but those libamber.so exports made local, as its version
#    script does (runtime/libamber.map): the program's own names never meet
#    the runtime's internal ones.  The intercepted C library names are made
#    weak: a program that defines one itself keeps its own, as it did over
#    libamber.so's.
# 3. The dynamic list the program is linked with (--dynamic-list): the same
#    names exported, so that shared objects and libc bind to the program's
#    copy.
set -eu
cc=$1 objcopy=$2 nm=$3 lds=$4 so=$5 out=$6 dynlist=$7
shift 7
wraps=""
while [ "$1" != "--" ]; do wraps="$wraps $1"; shift; done
shift
tmp=$out.tmp
# shellcheck disable=SC2086
"$cc" -r -nostdlib -Wl,--build-id=none -Wl,-T,"$lds" $wraps "$@" -o "$tmp.o"
{ "$nm" -D --defined-only "$so" | awk '{print $3}'; echo __amber_linked_in; } | sort -u > "$tmp.keep"
grep -v -E '^(__)?amber_' "$tmp.keep" > "$tmp.weak"
"$objcopy" --keep-global-symbols="$tmp.keep" --weaken-symbols="$tmp.weak" "$tmp.o" "$out"
{ echo "{"; sed 's/.*/  &;/' "$tmp.keep"; echo "};"; } > "$dynlist"
rm -f "$tmp.o" "$tmp.keep" "$tmp.weak"
