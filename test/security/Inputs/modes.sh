#!/bin/sh
# The mode of every file the runtime creates (issue [1c/7] part 2), as this
# user, under umask 022: heaps (default and named), the stats file, crash
# images and the simulator's durable image are 0600; AMBER_HEAP_MODE gives
# a heap exactly the mode asked for, and one others could write only with
# AMBER_HEAP_SHARED=1; a link at the default heap path is never followed.
#   modes.sh APP DIR
set -u
app=$1 dir=$2
prog=$(basename "$app")
def=$(amber path "$app")
perm() { stat -c '%a' "$1"; }
cleanup() { rm -rf "$dir" "$def"; }
cleanup
trap cleanup EXIT
mkdir -p "$dir/img"
umask 022
export AMBER_HEAP_SIZE=4M

echo "== default heap"
"$app" >/dev/null
echo "dir $(perm "$(dirname "$def")") heap $(perm "$def")"
rm -f "$def"
echo "== named heap, stats file"
AMBER_HEAP="$dir/h.heap" AMBER_STATS_FILE="$dir/s.json" "$app" >/dev/null
echo "heap $(perm "$dir/h.heap") stats $(perm "$dir/s.json")"
echo "== crash images and the durable image"
AMBER_HEAP="$dir/h.heap" AMBER_PM=sim AMBER_CRASH_AT=8 AMBER_SIM_DIR="$dir/img" AMBER_SIM_DURABLE="$dir/durable.heap" \
  "$app" >/dev/null 2>&1
echo "images $(for f in "$dir"/img/*.heap; do perm "$f"; done | sort -u) durable $(perm "$dir/durable.heap")"
echo "== AMBER_HEAP_MODE=0640 under umask 077"
(umask 077 && AMBER_HEAP="$dir/m.heap" AMBER_HEAP_MODE=0640 "$app" >/dev/null)
echo "heap $(perm "$dir/m.heap")"
echo "== AMBER_HEAP_MODE=0660 without AMBER_HEAP_SHARED"
AMBER_HEAP="$dir/g.heap" AMBER_HEAP_MODE=0660 "$app"
echo "rc $? exists $(test -e "$dir/g.heap" && echo yes || echo no)"
echo "== AMBER_HEAP_MODE=0660 with AMBER_HEAP_SHARED=1"
AMBER_HEAP="$dir/g.heap" AMBER_HEAP_MODE=0660 AMBER_HEAP_SHARED=1 "$app"
echo "rc $? heap $(perm "$dir/g.heap")"
echo "== then without AMBER_HEAP_SHARED"
AMBER_HEAP="$dir/g.heap" "$app"
echo "rc $?"
echo "== amber create with AMBER_HEAP_MODE=0660"
AMBER_HEAP_MODE=0660 amber create "$dir/c.heap" --size 1M
amber info "$dir/c.heap" | grep '^owner' | sed 's/uid [0-9]*[^,]*,/uid U,/'
for m in 0400 0x1ff 1777 abc ""; do
  echo "== AMBER_HEAP_MODE=$m"
  AMBER_HEAP="$dir/bad.heap" AMBER_HEAP_MODE=$m "$app"
  echo "rc $?"
done
echo "== a link at the default heap path"
mkdir -p "$(dirname "$def")"
cp "$dir/h.heap" "$dir/target.heap"
ln -s "$dir/target.heap" "$def"
"$app"
echo "rc $?"
cmp "$dir/h.heap" "$dir/target.heap" && echo "target unchanged"
