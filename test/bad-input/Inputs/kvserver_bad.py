"""Bad input to examples/kvserver.c over raw sockets (test/bad-input/kvserver.test):
each case prints what the server answered ("closed" when it closed the
connection), then a well-formed client checks the server still answers and
that no partial command reached the heap."""
import os, socket, time

port = int(os.environ["KV_PORT"])

def conn():
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(30)
    return s

def answer(s):
    """Everything until the server closes or stops for a moment."""
    data = b""
    s.settimeout(0.5)
    try:
        while True:
            b = s.recv(65536)
            if not b:
                return data, True
            data += b
    except socket.timeout:
        return data, False

def case(name, payload, then_close=False):
    s = conn()
    s.sendall(payload)
    if then_close:
        s.close()
        print("%s: sent %d bytes, disconnected" % (name, len(payload)))
        return
    data, closed = answer(s)
    print("%s: %r%s" % (name, data, " closed" if closed else ""))
    s.close()

def cmd(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out

case("ok", cmd("SET", "base", "1"))
case("inline", b"SET inline 1\r\n")  # Redis's inline form: a command, as telnet sends it
case("inline-unbalanced", b'SET a "b\r\n')
case("inline-too-big", b"x" * (70 * 1024))
case("bad-multibulk", b"*x\r\n")
case("negative-bulk", b"*2\r\n$-5\r\n")
case("huge-bulk", b"*3\r\n$3\r\nSET\r\n$4\r\nhuge\r\n$9999999999\r\n")
case("huge-multibulk", b"*99999999999\r\n")
case("no-dollar", b"*2\r\n+GET\r\n$1\r\nk\r\n")
case("no-crlf", b"*2\r\n$3\r\nGETx\r\n$1\r\nk\r\n")
case("long-number", b"*1" + b"1" * 100)
case("binary-garbage", bytes(range(256)))
case("empty-array", b"*0\r\n" + cmd("PING"))
case("pipelined-then-bad", cmd("SET", "piped", "yes") + b"*2\r\n+GET\r\n")
# A SET whose value never fully arrives: nothing of it may reach the heap.
full = cmd("SET", "partial", "v" * 100000)
case("mid-command", full[: len(full) // 2], then_close=True)
case("mid-header", b"*3\r\n$3\r\nSET\r\n$7\r\npartial", then_close=True)
case("mid-crlf", cmd("SET", "partial", "x")[:-1], then_close=True)
# MSET cut off after its first pair: neither pair may be stored.
m = cmd("MSET", "m1", "1", "m2", "2")
case("mid-mset", m[: m.index(b"m2")], then_close=True)
# Many clients that vanish mid-command at once.
socks = []
for i in range(50):
    s = conn()
    s.sendall(cmd("SET", "gone%d" % i, "v" * 1000)[:-10])
    socks.append(s)
for s in socks:
    s.close()
time.sleep(0.2)
# The server still answers, and holds exactly the whole commands.
s = conn()
def ask(*args):
    s.sendall(cmd(*args))
    data = b""
    while True:  # one reply: a line, a bulk string or an array of bulk strings
        b = s.recv(65536)
        if not b:
            return data
        data += b
        if data[:1] in (b":", b"+", b"-") and data.endswith(b"\r\n"):
            return data
        if data.startswith(b"$-1\r\n") or (data[:1] == b"$" and data.count(b"\r\n") >= 2):
            return data
        if data[:1] == b"*" and data.count(b"\r\n") >= 1 + 2 * int(data[1:data.index(b"\r\n")]):
            return data
print("dbsize: %r" % ask("DBSIZE"))
print("get-partial: %r" % ask("GET", "partial"))
print("get-m1: %r" % ask("GET", "m1"))
print("get-piped: %r" % ask("GET", "piped"))
keys = ask("KEYS", "*").split(b"\r\n")[2::2]
print("keys: %s" % b" ".join(sorted(keys)).decode())
