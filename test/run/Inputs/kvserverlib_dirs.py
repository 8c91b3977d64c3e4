"""tools/kvserverlib.py's Server leaves no temporary directory behind
(test/run/kvserverlib_dirs.test): stop() and kill() remove its
amber-kvserver-* directory, unless the server failed, when the log is kept
and its path printed.  Fake servers (shell scripts) stand in for kvserver."""
import os, stat, sys, tempfile

work = sys.argv[2]
os.makedirs(work, exist_ok=True)
tmp = os.path.join(work, "tmp")
os.makedirs(tmp, exist_ok=True)
tempfile.tempdir = tmp
sys.path.insert(0, sys.argv[1])
import kvserverlib


def fake(name, on_term, before=""):
    """A server that writes its port file (unless `before` exits first) and
    exits with on_term on SIGTERM."""
    p = os.path.join(work, name)
    with open(p, "w") as f:
        f.write("#!/bin/sh\n%s\necho fake server says hello\n"
                "while [ $# -gt 0 ]; do [ \"$1\" = --port-file ] && pf=$2; shift; done\n"
                "trap 'exit %d' TERM\necho 6379 > $pf.tmp && mv $pf.tmp $pf\n"
                "while :; do sleep 0.05; done\n" % (before, on_term))
    os.chmod(p, os.stat(p).st_mode | stat.S_IXUSR)
    return p


def left():
    return sorted(os.listdir(tmp))


ok, bad, dead = fake("ok", 0), fake("bad", 3), fake("dead", 0, "echo cannot open; exit 2")
s = kvserverlib.Server(ok, "heap")
print("running:", len(left()), s.port)
print("stop:", s.stop(), left(), "hello" in s.log_text())
s = kvserverlib.Server(ok, "heap")
print("kill:", s.kill(), left())
log = os.path.join(work, "my.log")
s = kvserverlib.Server(ok, "heap", log=log)
print("own log:", s.stop(), left(), os.path.exists(log))
s = kvserverlib.Server(bad, "heap")
rc = s.stop()
kept = left()
print("failed stop:", rc, len(kept), os.listdir(os.path.join(tmp, kept[0])), "hello" in s.log_text())
for d in kept:
    os.unlink(os.path.join(tmp, d, "server.log"))
    os.rmdir(os.path.join(tmp, d))
try:
    kvserverlib.Server(dead, "heap")
except RuntimeError as e:
    print("failed start:", "cannot open" in str(e), len(left()))
