#!/bin/sh
# heap_full.sh PROG AMBER LIBAMBER DIR: run inside `unshare -Urm` (a mount
# namespace of its own).  Mounts a 12 MiB tmpfs at DIR and shows, on both
# engines: a reserved heap larger than the file system is refused at
# creation and leaves no file; a sparse heap that outgrows it stops the
# program with an amber: error: at the write that needed a page; amber
# info/check refuse it with an error while the file system is full; once
# space is freed, the next open recovers every acknowledged commit.
set -u
prog=$1 amber=$2 lib=$3 dir=$4
mkdir -p "$dir"
mount -t tmpfs -o size=12M none "$dir" || exit 99
echo "== reserve"
AMBER_HEAP_RESERVE=1 AMBER_HEAP=$dir/big.heap AMBER_HEAP_SIZE=64M LD_PRELOAD=$lib "$prog" show
echo "rc $?"
AMBER_HEAP_RESERVE=1 "$amber" create "$dir/big.heap" --size 64M
echo "rc $?"
echo "files $(ls -A "$dir" | wc -l)"
for engine in mvcc romulus; do
  echo "== sparse $engine"
  dd if=/dev/zero of="$dir/filler" bs=1M count=2 2>/dev/null
  AMBER_HEAP_RESERVE=0 AMBER_ENGINE=$engine AMBER_HEAP=$dir/s.heap AMBER_HEAP_SIZE=32M LD_PRELOAD=$lib "$prog" > "$dir.acks"
  echo "rc $?"
  last=$(tail -n 1 "$dir.acks" | cut -d' ' -f2)
  [ "${last:-0}" -gt 10 ] && echo "acked more than 10"
  "$amber" check "$dir/s.heap" > /dev/null
  echo "check rc $?"
  rm "$dir/filler"
  n=$(AMBER_HEAP=$dir/s.heap LD_PRELOAD=$lib "$prog" show | cut -d' ' -f2)
  if [ "$n" -ge "$last" ]; then echo "recovered every ack"; else echo "LOST: $n of $last"; fi
  "$amber" check "$dir/s.heap"
  rm "$dir/s.heap"
done
