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
