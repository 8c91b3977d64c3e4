#!/bin/sh
# heaps.sh AMBER_RUN AMBER PROGRAM N PREFIX: creates N heaps PREFIX.I.heap
# with PROGRAM and writes `amber ordo PREFIX.I.heap --json` to PREFIX.I.json.
# A heap whose stored boundary is provisional is opened again (at most 3
# times): the documented promise is that an open replaces it.
set -eu
run=$1 amber=$2 prog=$3 n=$4 prefix=$5
i=0
while [ "$i" -lt "$n" ]; do
  heap=$prefix.$i.heap
  "$run" --fresh "$heap" "$prog"
  "$amber" ordo "$heap" --json > "$prefix.$i.json"
  k=0
  while grep -q '"provisional": true' "$prefix.$i.json" && [ "$k" -lt 3 ]; do
    "$run" "$heap" "$prog"
    "$amber" ordo "$heap" --json > "$prefix.$i.json"
    k=$((k + 1))
  done
  i=$((i + 1))
done
