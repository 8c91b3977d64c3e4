#!/usr/bin/env python3
"""live_driver.py -- PROGRAM [ARGS...]: starts PROGRAM, waits for its
"ready" line, runs each shell command of $LIVE_COMMANDS (separated by ';;',
{pid} replaced by PROGRAM's pid) while PROGRAM waits on its stdin, and
prints each command, its output and its exit status ("rc=N").  Then closes
PROGRAM's stdin, prints its exit status and runs $LIVE_AFTER's commands
the same way.  No timing is involved: the
program waits until the driver lets it go."""
import os
import subprocess
import sys

argv = sys.argv[sys.argv.index("--") + 1:]
p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
line = p.stdout.readline()
print("program:", line.strip(), flush=True)
if not line.startswith("ready"):
    p.kill()
    sys.exit("live_driver: the program did not say ready")


def run(var):
    for cmd in os.environ.get(var, "").split(";;"):
        cmd = cmd.strip()
        if not cmd:
            continue
        cmd = cmd.replace("{pid}", str(p.pid))
        print("$", cmd, flush=True)
        r = subprocess.run(cmd, shell=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        sys.stdout.write(r.stdout)
        print("rc=%d" % r.returncode, flush=True)


run("LIVE_COMMANDS")
p.stdin.close()
rest = p.stdout.read()
sys.stdout.write(rest)
print("program exit %d" % p.wait(), flush=True)
run("LIVE_AFTER")
