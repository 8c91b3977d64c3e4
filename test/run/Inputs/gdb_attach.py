"""gdb_attach.py -- COMMAND...: runs COMMAND (a program that prints "ready",
then waits for a line on stdin), attaches gdb to it with the commands of
GDB_COMMANDS (one per line) on gdb's standard input, as a user typing them
would, detaches, lets the program go on, and prints gdb's answers and the
program's output.  Exit status: the program's."""
import os
import subprocess
import sys

cmd = sys.argv[sys.argv.index("--") + 1:]
p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
ready = p.stdout.readline().strip()
if ready != "ready":
    p.kill()
    sys.exit("gdb_attach.py: the program said %r, not ready" % ready)
commands = os.environ["GDB_COMMANDS"].replace(";", "\n") + "\ndetach\nquit\n"
g = subprocess.run(["gdb", "-q", "-nx", "-iex", "set auto-load safe-path /", "-p", str(p.pid)], input=commands,
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
for line in g.stdout.splitlines():
    print("gdb: " + line)
p.stdin.write("go\n")
p.stdin.flush()
out = p.stdout.read()
sys.stdout.write(out)
sys.exit(p.wait())
