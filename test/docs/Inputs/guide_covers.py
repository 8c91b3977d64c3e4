#!/usr/bin/env python3
"""guide_covers.py HELP GUIDE: docs/guide.md documents every command of the
`amber --help` synopsis (plant-sites and help-options are documented in
docs/crashtest.md and docs/options.md), every --json flag, the exit statuses
the manual lists, and each topic a user needs."""
import re
import sys

helptext = open(sys.argv[1]).read()
guide = open(sys.argv[2]).read()
bad = []
syn = helptext.split("SYNOPSIS", 1)[1].split("DESCRIPTION", 1)[0]
for line in syn.splitlines():
    m = re.match(r"\s*amber ([a-z][a-z-]*)(.*)", line)
    if not m or m.group(1) in ("help", "help-options", "plant-sites"):
        continue
    cmd, rest = m.group(1), m.group(2)
    if not re.search(r"amber %s\b" % re.escape(cmd), guide):
        bad.append("command 'amber %s' is not in the guide" % cmd)
    if "--json" in rest and not re.search(r"amber %s [^\n]*--json" % re.escape(cmd), guide):
        bad.append("'amber %s ... [--json]' is not in the guide" % cmd)
status = helptext.split("EXIT STATUS", 1)[1].split("EXAMPLES", 1)[0]
for code in re.findall(r"^  ([0-9])  ", status, re.M):
    if not re.search(r"^\| %s \| " % code, guide, re.M):
        bad.append("exit status %s is not in the guide's table" % code)
for topic in ("isolation", "irrevocable", "outside regions", "roots", "heap sizing", "recovery", "power loss",
              "kill -9", "/dev/shm", "DAX", "AMBER_PM=msync", "AMBER_PM=auto", "AMBER_PM_POWER_LOSS_OK",
              "romulus", "Security", "AMBER_HEAP_SHARED", "AMBER_HEAP_MODE", "set-user-ID"):
    if topic.lower() not in guide.lower():
        bad.append("topic '%s' is not in the guide" % topic)
if bad:
    sys.exit("guide_covers: docs/guide.md is out of date with amber --help:\n  " + "\n  ".join(bad))
print("guide covers amber --help")
