# test/run/pm_latency.c: the stats file's emulated delay is exactly
# flushes * WRITE_NS + fences * FENCE_NS (or 0 where the mode ignores it).
import json, sys

s = json.load(open(sys.argv[1]))
w, f = int(sys.argv[2]), int(sys.argv[3])
applied = "--not-applied" not in sys.argv
assert s["pm_write_ns"] == w and s["pm_fence_ns"] == f, (s["pm_write_ns"], s["pm_fence_ns"], w, f)
assert s["flushes"] > 0 and s["fences"] > 0, s
want = s["flushes"] * w + s["fences"] * f if applied else 0
assert s["emulated_delay_ns"] == want, (s["emulated_delay_ns"], want, s["flushes"], s["fences"])
print("ok %s emulated_delay_ns=%d" % (s["pm"], s["emulated_delay_ns"]))
