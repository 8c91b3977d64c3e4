#!/bin/sh
# A new heap is its user's alone (issue [1c/7] parts 1 and 2): the default
# works for a user with no HOME, no XDG_RUNTIME_DIR and no account, in a
# directory made 0700, its heap 0600 so another user reads nothing of it;
# a heap named in a shared sticky directory is 0600 too, and another user's
# heap there is refused; so is one in a directory others can write without
# the sticky bit.
#   private.sh APP DIR A B
set -u
. "$(dirname "$0")/users.sh"
two_users "$@"

echo "== B, with no HOME, XDG_RUNTIME_DIR or account, makes a new heap"
as "$B" env -u HOME -u XDG_RUNTIME_DIR -u USER "$app"
modeof "/dev/shm/amber-$B"
modeof "/dev/shm/amber-$B/$heapname"
echo "== A reads B's heap"
as "$A" cat "/dev/shm/amber-$B/$heapname" >/dev/null
echo "rc $?"
as "$A" grep -c -a secret-of-uid "/dev/shm/amber-$B/$heapname"
echo "rc $?"
echo "== B runs again"
as "$B" "$app"

echo "== B names a heap in a shared sticky directory"
mkdir -m 1777 "$dir/shared"
as "$B" env AMBER_HEAP="$dir/shared/b.heap" "$app"
modeof "$dir/shared/b.heap"
as "$A" grep -c -a secret-of-uid "$dir/shared/b.heap"
echo "rc $?"
echo "== A's heap there, named by B"
as "$A" env AMBER_HEAP="$dir/shared/a.heap" "$app"
as "$B" env AMBER_HEAP="$dir/shared/a.heap" "$app"
echo "rc $?"
echo "== A makes it 0666"
as "$A" chmod 0666 "$dir/shared/a.heap"
as "$B" env AMBER_HEAP="$dir/shared/a.heap" "$app"
echo "rc $?"

echo "== a directory every user can write, without the sticky bit"
mkdir -m 0777 "$dir/open"
as "$B" env AMBER_HEAP="$dir/open/b.heap" "$app"
echo "rc $?"
echo "files: $(ls "$dir/open")"
echo "== B moves its heap there and names it"
as "$B" mv "$dir/shared/b.heap" "$dir/open/b.heap"
as "$B" env AMBER_HEAP="$dir/open/b.heap" "$app"
echo "rc $?"
echo "== opted in"
as "$B" env AMBER_HEAP="$dir/open/b.heap" AMBER_HEAP_SHARED=1 "$app"
echo "rc $?"
