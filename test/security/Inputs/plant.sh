#!/bin/sh
# The planted heap of issue [1c/7]: user A puts a heap everyone can write
# where user B's program looks for its own; B, and root, refuse it unless
# told it is shared; amber info and check still read it and say whose it is.
#   plant.sh APP DIR A B
set -u
. "$(dirname "$0")/users.sh"
two_users "$@"

echo "== A runs its program: the private default"
as "$A" "$app"
modeof "/dev/shm/amber-$A"
modeof "/dev/shm/amber-$A/$heapname"

echo "== A plants it, mode 0666, in a directory at B's default path"
as "$A" mkdir -m 0755 "/dev/shm/amber-$B"
as "$A" mv "/dev/shm/amber-$A/$heapname" "/dev/shm/amber-$B/$heapname"
as "$A" chmod 0666 "/dev/shm/amber-$B/$heapname"
planted=/dev/shm/amber-$B/$heapname
cp "$planted" "$dir/planted.orig"

echo "== B runs its program with no AMBER_HEAP"
as "$B" "$app"
echo "rc $?"
echo "== B names the planted heap"
as "$B" env AMBER_HEAP="$planted" "$app"
echo "rc $?"
echo "== root names it"
env AMBER_HEAP="$planted" "$app"
echo "rc $?"
cmp "$planted" "$dir/planted.orig" && echo "planted heap unchanged"

echo "== amber info and check read it, read-only, and say whose it is"
as "$B" amber info "$planted" | grep '^owner'
as "$B" amber check "$planted" | grep ': owner'
as "$B" amber info --json "$planted" | grep -o '"owner_uid": [0-9]*, "mode": "[0-7]*"'
as "$B" amber recover "$planted"
echo "rc $?"
cmp "$planted" "$dir/planted.orig" && echo "planted heap unchanged"

echo "== root opts in for this heap"
env AMBER_HEAP="$planted" AMBER_HEAP_SHARED=1 "$app"
echo "rc $?"
echo "== AMBER_HEAP_SHARED=1 without AMBER_HEAP"
as "$B" env AMBER_HEAP_SHARED=1 "$app"
echo "rc $?"

echo "== B's directory, made by A with mode 0700"
rm -rf "/dev/shm/amber-$B"
as "$A" mkdir -m 0700 "/dev/shm/amber-$B"
as "$B" "$app"
echo "rc $?"
echo "== B's directory replaced by a link to B's own"
rm -rf "/dev/shm/amber-$B"
mkdir -m 0700 "$dir/mine"
chown "$B:$B" "$dir/mine"
ln -s "$dir/mine" "/dev/shm/amber-$B"
as "$B" "$app"
echo "rc $?"
rm -f "/dev/shm/amber-$B"
echo "== B runs again: its own directory and heap"
as "$B" "$app"
echo "rc $?"
