# Sourced by the scripts of test/security: run a command as another user
# (numeric ids, no account needed; the caller is root, lit checked it) and
# print a file's mode and owner in a form FileCheck can match.
as() {
  u=$1
  shift
  setpriv --reuid="$u" --regid="$u" --clear-groups "$@"
}
modeof() {
  stat -c '%a %U/%u %F' "$1" | sed 's/UNKNOWN\///'
}
# The two-user scripts' set-up, from their arguments APP DIR A B: app,
# dir, A, B, prog (APP's name) and heapname (its default heap's file name) set, both users' private directories and
# DIR removed now and at exit, DIR made again.
two_users() {
  app=$1 dir=$2 A=$3 B=$4
  prog=$(basename "$app")
  heapname=$(basename "$(amber path "$app")") # NAME-KEY.heap, the same for every user
  export AMBER_HEAP_SIZE=4M
  cleanup() { rm -rf "/dev/shm/amber-$A" "/dev/shm/amber-$B" "$dir"; }
  cleanup
  trap cleanup EXIT
  mkdir -p "$dir"
}
