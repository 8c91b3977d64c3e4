"""After a restart on the same heap: what kvserver_py.py left."""
import os
import redis
r = redis.Redis(port=int(os.environ["KV_PORT"]), decode_responses=True)
print("after-restart:", r.get("py:kept"), r.dbsize())
