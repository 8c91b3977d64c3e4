"""Inline commands to examples/kvserver.c (test/run/kvserver_cli.test): lines
of words, as typed into telnet or sent by `nc`, split as Redis splits them
(quotes, escapes); each line prints the server's raw reply."""
import os, socket

s = socket.create_connection(("127.0.0.1", int(os.environ["KV_PORT"])))
s.settimeout(30)


buf = b""


def reply():
    """One RESP reply (a line, or a bulk string), from what arrived."""
    global buf
    while True:
        if buf[:1] in (b"+", b"-", b":") and b"\r\n" in buf:
            k = buf.index(b"\r\n") + 2
        elif buf[:1] == b"$" and b"\r\n" in buf:
            h = buf.index(b"\r\n")
            n = int(buf[1:h])
            k = h + 2 if n < 0 else h + 2 + n + 2
            if len(buf) < k:
                k = 0
        else:
            k = 0
        if k:
            out, buf = buf[:k], buf[k:]
            return out
        b = s.recv(65536)
        if not b:
            out, buf = buf + b" (closed)", b""
            return out
        buf += b


def send(name, line, replies=1):
    s.sendall(line)
    print("%s: %r" % (name, b"".join(reply() for _ in range(replies))))


send("ping", b"PING\r\n")
send("set", b"SET inl hello\r\n")
send("get", b"GET inl\r\n")
send("bare-lf", b"INCR n\nINCR n\n", 2)
send("blanks", b"  SET   spaced\t value  \r\n")
send("get-blanks", b"get spaced\r\n")
send("dquote", b'SET "sp ace" "a b\\x41\\n\\"q\\""\r\n')
send("get-dquote", b'GET "sp ace"\r\n')
send("squote", b"SET q 'it\\'s'\r\n")
send("get-squote", b"GET q\r\n")
send("empty-line", b"\r\n   \r\nPING\r\n")
send("then-resp", b"*2\r\n$3\r\nGET\r\n$3\r\ninl\r\n")
send("unknown", b"FROB x\r\n")
send("unbalanced", b'GET "open\r\n', 2)  # the reply, then the close
