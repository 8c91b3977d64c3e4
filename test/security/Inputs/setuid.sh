#!/bin/sh
# A set-user-ID root program run by an unprivileged user (issue [1c/7]
# part 4) takes no AMBER_* variable: AMBER_HEAP and AMBER_STATS_FILE point
# into a directory only root can write, and nothing appears there; the
# program uses the private default of its effective user, root.
#   setuid.sh APP DIR U
set -u
app=$1 dir=$2 U=$3
. "$(dirname "$0")/users.sh"
name=$(basename "$app").suid
heap=
cleanup() { rm -rf "$dir" "$heap"; }
cleanup
trap cleanup EXIT
mkdir -m 0755 "$dir" "$dir/victim"
cp "$app" "$dir/$name"
heap=/dev/shm/amber-0/$(basename "$(amber path "$dir/$name")") # root's default for that program
chmod 4755 "$dir/$name"

echo "== uid $U runs the set-user-ID root program with AMBER_* set"
as "$U" env AMBER_HEAP="$dir/victim/planted.heap" AMBER_STATS_FILE="$dir/victim/stats.json" AMBER_CRASH_AT=1 \
  AMBER_HEAP_SIZE=1M AMBER_HEAP_RESERVE=0 AMBER_VERBOSE=1 "$dir/$name"
echo "rc $?"
echo "victim: $(ls -A "$dir/victim")"
modeof "$heap"
amber info "$heap" | grep '^data'
rm -f "$heap"

echo "== the same program, not set-user-ID, takes them"
chmod 0755 "$dir/$name"
mkdir -m 0755 "$dir/u"
chown "$U:$U" "$dir/u"
as "$U" env AMBER_HEAP="$dir/u/mine.heap" AMBER_STATS_FILE="$dir/u/stats.json" AMBER_HEAP_SIZE=1M \
  AMBER_HEAP_RESERVE=0 "$dir/$name"
echo "rc $?"
modeof "$dir/u/mine.heap"
modeof "$dir/u/stats.json"
