#!/usr/bin/env python3
"""expect-exit.py CODE COMMAND...  runs COMMAND (output passed through) and
fails unless it exits with CODE (lit's `not` accepts any non-zero code)."""
import subprocess, sys

r = subprocess.run(sys.argv[2:])
if r.returncode != int(sys.argv[1]):
    sys.exit("expect-exit: %s exited %d, expected %s" % (sys.argv[2], r.returncode, sys.argv[1]))
