"""examples/kvserver.c across table resizes (test/run/kvserver_py.test):
random SET/DEL/GET with KEYS and DBSIZE checked while the table grows, and
FLUSHDB in the middle of a resize; prints one line."""
import os, redis, random
r = redis.Redis(host="127.0.0.1", port=int(os.environ["KV_PORT"]), decode_responses=True)
rng = random.Random(1)
live = {}
ok = True
for rnd in range(3):
    for i in range(3000):
        k = "rz:%d" % rng.randrange(5000)
        op = rng.random()
        if op < 0.6:
            v = str(rng.randrange(10**6)); r.set(k, v); live[k] = v
        elif op < 0.8:
            n = r.delete(k); ok &= n == (1 if k in live else 0); live.pop(k, None)
        else:
            ok &= r.get(k) == live.get(k)
        if i % 500 == 0:
            ok &= sorted(r.keys("rz:*")) == sorted(live)
            ok &= r.dbsize() == len(live)
    ok &= all(r.get(k) == v for k, v in live.items())
    ok &= sorted(r.keys("rz:*")) == sorted(live)
    if rnd < 2:
        # flush in the middle of a resize (the table grows while filling)
        for i in range(700): r.set("fl:%d" % i, "x")
        r.flushdb(); live = {}
        ok &= r.dbsize() == 0 and r.keys("*") == []
print("resize:", ok, r.dbsize())
