"""examples/kvserver.c through redis-py, the Python client from PyPI
(test/run/kvserver_py.test): every command, pipelines, several connections
at once; prints one line per check."""
import os, threading
import redis

port = int(os.environ["KV_PORT"])
r = redis.Redis(host="127.0.0.1", port=port, decode_responses=True)
print("ping:", r.ping())
print("set:", r.set("py:a", "alpha"))
print("get:", r.get("py:a"))
print("get-missing:", r.get("py:none"))
print("set-nx:", r.set("py:a", "x", nx=True), r.set("py:b", "beta", nx=True))
print("set-xx:", r.set("py:none", "x", xx=True), r.set("py:b", "beta2", xx=True))
try:
    r.set("py:c", "x", ex=5)
    print("set-ex: accepted")
except redis.ResponseError as e:
    print("set-ex: error:", e)
print("exists:", r.exists("py:a", "py:b", "py:none"))
print("incr:", r.incr("py:n"), r.incr("py:n"), r.incrby("py:n", 100), r.decr("py:n"))
try:
    r.incr("py:a")
except redis.ResponseError as e:
    print("incr-notint: error:", e)
print("mset:", r.mset({"py:m1": "1", "py:m2": "2"}))
print("mget:", r.mget("py:m1", "py:none", "py:m2"))
print("append:", r.append("py:a", "-more"), r.get("py:a"))
print("strlen:", r.strlen("py:a"))
print("keys:", sorted(r.keys("py:m*")))
print("del:", r.delete("py:m1", "py:m2", "py:none"))
print("dbsize:", r.dbsize())
info = r.info()
print("info:", info["kvserver"], info["db0"]["keys"], "amber_commits" in info)
big = "x" * (1 << 20)
print("big:", r.set("py:big", big), len(r.get("py:big")), r.strlen("py:big"))
# binary-safe keys and values
print("binary:", redis.Redis(port=port).set(b"py:\x00\r\n", b"\xff\r\n\x00"),
      redis.Redis(port=port).get(b"py:\x00\r\n") == b"\xff\r\n\x00")
p = r.pipeline(transaction=False)
for i in range(1000):
    p.set("py:p%d" % i, str(i))
    p.incr("py:pc")
res = p.execute()
print("pipeline:", sum(1 for x in res if x is True), res[-1])
print("pipeline-read:", r.get("py:p999"), r.get("py:pc"))

def worker(n):
    c = redis.Redis(host="127.0.0.1", port=port)
    for _ in range(200):
        c.incr("py:shared")
ts = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
for t in ts: t.start()
for t in ts: t.join()
print("threads:", r.get("py:shared"))
print("flushdb:", r.flushdb(), r.dbsize())
r.set("py:kept", "after-restart")
