#!/bin/sh
# The default heap is unique per executable (issue [2/7] part 4): two
# programs called app in two directories keep two heaps, a rebuild in place
# keeps its heap, `amber path` names the heap the program opens, and a heap
# of the old shared name (<program>.heap) stays in use, with a warning
# giving the mv that makes it the program's own, never a silently empty one.
#   default_name.sh SRC DIR
set -u
src=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir/a" "$dir/b"
export AMBER_HEAP_SIZE=4M
name=dn-$$-app
amber-cc -O1 "$src" -o "$dir/a/$name" && cp "$dir/a/$name" "$dir/b/$name"
ha=$(amber path "$dir/a/$name") hb=$(amber path "$dir/b/$name")
legacy=$(dirname "$ha")/$name.heap
cleanup() { rm -rf "$dir" "$ha" "$hb" "$legacy"; }
trap cleanup EXIT
echo "== two programs of one name"
"$dir/a/$name"; "$dir/b/$name"; "$dir/a/$name"
[ "$ha" != "$hb" ] && echo "two heaps"
echo "== amber path names the heap the program opens"
AMBER_VERBOSE=1 "$dir/a/$name" 2>&1 | grep -q "opened heap $ha " && echo "same path"
(cd "$dir/a" && [ "$(amber path "./$name")" = "$ha" ] && echo "relative path: same")
(cd "$dir/a" && PATH="$dir/a:$PATH" && [ "$(amber path "$name")" = "$ha" ] && echo "PATH lookup: same")
amber path "$dir/none"; echo "rc $?"
echo "== a rebuild in place keeps the heap"
amber-cc -O2 -DREBUILT "$src" -o "$dir/a/$name" && "$dir/a/$name"
echo "== a heap of the old default name"
rm -f "$ha"
AMBER_HEAP="$legacy" "$dir/a/$name" >/dev/null; AMBER_HEAP="$legacy" "$dir/a/$name"
"$dir/a/$name" 2>&1 | sed "s|$dir|DIR|g; s|$legacy|LEGACY|g; s|$ha|NEW|g"
[ ! -e "$ha" ] && echo "no new heap"
amber path "$dir/a/$name" 2>&1 | sed "s|$dir|DIR|g; s|$legacy|LEGACY|g; s|$ha|NEW|g"
mv "$legacy" "$ha"
"$dir/a/$name" 2>&1
