# lit configuration for amber: pass IR tests, run tests, crash tests, unit tests.
import os
import lit.formats

config.name = "amber"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ll", ".c", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.amber_obj_root, "test")

tools = config.llvm_tools_dir
bindir = os.path.join(config.amber_obj_root, "bin")
src = config.amber_src_root
config.environment["PATH"] = os.pathsep.join([bindir, tools, config.environment.get("PATH", os.environ["PATH"])])
# Tests never inherit the caller's amber settings.
for k in list(os.environ):
    if k.startswith("AMBER_"):
        config.environment.pop(k, None)
# New heaps are sparse in tests: a run makes hundreds of heaps, tens of GB
# if each reserved its blocks (AMBER_HEAP_RESERVE=1, the default).  Tests of
# reservation set it themselves.
config.environment["AMBER_HEAP_RESERVE"] = "0"
# Test heaps live under the build tree (%t), on the disk, where the default
# AMBER_PM=auto picks msync: a sync per flush, about 30 times slower than the
# pmem backend the suite ran on before auto.  Tests run pmem, and accept
# that it does not cover power loss there; the tests of the medium
# detection (test/run/pm_medium.test, test/docs/durability-table.test)
# unset both.
config.environment["AMBER_PM"] = "pmem"
config.environment["AMBER_PM_POWER_LOSS_OK"] = "1"

# A small tmpfs of the test's own, in a private mount namespace (unshare
# -Urm): tests of a full file system need one.
def _can_mount_tmpfs():
    import subprocess, tempfile
    d = tempfile.mkdtemp()
    try:
        return subprocess.run(["unshare", "-Urm", "sh", "-c", "mount -t tmpfs -o size=1M none '%s'" % d],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=20).returncode == 0
    except Exception:
        return False
    finally:
        os.rmdir(d)

if _can_mount_tmpfs():
    config.available_features.add("tmpfs-mount")

# The medium tests (test/run/pm_medium_*.test) need to know what their heaps
# are on: the build tree on a disk (AMBER_PM=auto picks msync there) and
# /dev/shm on tmpfs (none).  %shm is a per-build-tree prefix under /dev/shm.
def _fs_type(path):
    import subprocess
    try:
        return subprocess.run(["stat", "-f", "-c", "%T", path], capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception:
        return ""

os.makedirs(config.test_exec_root, exist_ok=True)
if _fs_type(config.test_exec_root) not in ("", "tmpfs", "ramfs"):
    config.available_features.add("build-tree-on-disk")
if _fs_type("/dev/shm") == "tmpfs":
    config.available_features.add("shm-tmpfs")
import hashlib
config.substitutions.append(("%shm", "/dev/shm/amber-lit-" + hashlib.sha1(config.amber_obj_root.encode()).hexdigest()[:8]))

# Tests of who may open a heap (test/security) act as other users without
# creating accounts: as root, `setpriv --reuid=U --regid=U --clear-groups`
# with numeric ids that need no /etc/passwd entry.  Each missing condition
# is said once here; lit then reports those tests UNSUPPORTED.
def _other_users_why():
    import shutil, subprocess
    if os.geteuid() != 0:
        return "they need root to act as other users (this runs as uid %d)" % os.geteuid()
    if not shutil.which("setpriv"):
        return "setpriv (util-linux) is missing"
    probe = os.path.join(config.amber_obj_root, "bin", "amber")
    try:
        r = subprocess.run(["setpriv", "--reuid=64000", "--regid=64000", "--clear-groups", "test", "-x", probe],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=20)
    except Exception as e:
        return "setpriv cannot switch to uid 64000 (%s)" % e
    if r.returncode != 0:
        return "uid 64000 cannot run %s (a directory above the build tree is closed to other users)" % probe
    return None

_why = _other_users_why()
if _why is None:
    config.available_features.add("other-users")
    # A set-user-ID program in the build tree runs as its owner only when
    # that file system is not mounted nosuid.
    if os.statvfs(config.amber_obj_root).f_flag & os.ST_NOSUID:
        lit_config.note("set-user-ID tests are UNSUPPORTED: %s is on a nosuid mount" % config.amber_obj_root)
    else:
        config.available_features.add("setuid-exec")
else:
    lit_config.note("tests that act as other users (test/security) are UNSUPPORTED: " + _why)

# test/run/gdb_view.test drives gdb (with its Python) in batch mode, and
# attaches it to a running program where ptrace allows that.
def _gdb_features():
    import shutil, subprocess
    if not shutil.which("gdb"):
        lit_config.note("gdb tests are UNSUPPORTED: gdb is missing (tools/bootstrap installs it)")
        return
    try:
        r = subprocess.run(["gdb", "-nx", "-batch", "-ex", "python print('amber-py')"], capture_output=True, text=True, timeout=60)
    except Exception:
        return
    if "amber-py" not in r.stdout:
        lit_config.note("gdb tests are UNSUPPORTED: this gdb has no Python")
        return
    config.available_features.add("gdb")
    try:
        with open("/proc/sys/kernel/yama/ptrace_scope") as f:
            scope = int(f.read().strip())
    except (OSError, ValueError):
        scope = 0
    if scope == 0 or (scope == 1 and os.geteuid() == 0) or (scope == 2 and os.geteuid() == 0):
        config.available_features.add("gdb-attach")
    else:
        lit_config.note("the gdb attach test is UNSUPPORTED: kernel.yama.ptrace_scope is %d" % scope)

_gdb_features()

# tools/amber-run preloads this build's runtime, not the default build/ one
# (a second build directory must test its own library).
config.environment["AMBER_LIB"] = config.amber_runtime

config.substitutions.append(("%opt_amber", "%s -load-pass-plugin=%s -passes=amber" % (os.path.join(tools, "opt"), config.amber_pass)))
config.substitutions.append(("%opt", os.path.join(tools, "opt")))
config.substitutions.append(("%clang", os.path.join(tools, "clang")))
config.substitutions.append(("%amber_cc", os.path.join(bindir, "amber-cc")))
config.substitutions.append(("%amber_pass", config.amber_pass))
config.substitutions.append(("%libamber", config.amber_runtime))
config.substitutions.append(("%amber_libdir", os.path.dirname(config.amber_runtime)))
config.substitutions.append(("%amber_include", config.amber_include))
# %run: fresh heap at %t.heap, runtime preloaded.  %rerun: same heap again.
config.substitutions.append(("%rerun", "%s %%t.heap" % os.path.join(src, "tools", "amber-run")))
config.substitutions.append(("%run", "%s --fresh %%t.heap" % os.path.join(src, "tools", "amber-run")))
config.substitutions.append(("%amber", os.path.join(bindir, "amber")))
config.substitutions.append(("%python", "python3"))
config.substitutions.append(("%tools", os.path.join(src, "tools")))
config.substitutions.append(("%objroot", config.amber_obj_root))
config.substitutions.append(("%examples", os.path.join(src, "examples")))
# %unit_cc: compile a unit test of runtime internals against the static runtime.
config.substitutions.append(("%unit_cc", "%s -std=gnu11 -O1 -g -Wall -Werror -D_GNU_SOURCE -I%s -I%s" % (
    os.path.join(tools, "clang"), os.path.join(src, "runtime"), config.amber_include)))
config.substitutions.append(("%unit_libs", "%s -lpmem -lunwind -lpthread -ldl" % os.path.join(config.amber_obj_root, "lib", "libamber_static.a")))
# run/exit_race.test: seeded runs per engine (`tools/run-tests build --param
# exit_race_runs=50 --filter exit_race` for the 50-run figure of issue 17).
config.substitutions.append(("%exit_race_runs", lit_config.params.get("exit_race_runs", "20")))
# clang links ThreadSanitizer: lib/tsan/libamber.so is built (test/tsan).
if config.amber_tsan_runtime:
    config.available_features.add("tsan")
# test/run/sanitizers.c: clang links AddressSanitizer, and AddressSanitizer
# with UBSan, into a program (their runtimes come with libclang-rt-16-dev);
# without them that test is UNSUPPORTED.
def _clang_links(flags):
    import subprocess, tempfile
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "probe.c")
        with open(src, "w") as f:
            f.write("int main(void) { return 0; }\n")
        try:
            return subprocess.run([os.path.join(tools, "clang")] + flags + [src, "-o", os.path.join(d, "probe")],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60).returncode == 0
        except Exception:
            return False

for _feature, _flags in (("asan", ["-fsanitize=address"]), ("asan-ubsan", ["-fsanitize=address,undefined"])):
    if _clang_links(_flags):
        config.available_features.add(_feature)
    else:
        lit_config.note("clang cannot link %s (install libclang-rt-16-dev): tests that need it are UNSUPPORTED" % " ".join(_flags))

# The ORDO cache (AMBER_ORDO_CACHE, issue 27 item 5) is off in tests: each
# test measures (or reads its heap's record) as it would on a fresh boot, so
# what tests print about the boundary does not depend on which test ran
# first.  test/run/ordo_cache.test turns it on.
config.environment["AMBER_ORDO_CACHE"] = "0"

# The pointer check (AMBER_CHECK_POINTERS, docs/guide.md "Pointers to
# volatile memory") is on for every test: a commit that leaves a persistent
# word pointing into volatile memory stops the test with an amber: error:.
# Tests that store such pointers on purpose say AMBER_CHECK_POINTERS=off
# in their RUN lines, with the reason.
config.environment["AMBER_CHECK_POINTERS"] = "error"

# examples/kvserver.c's tests drive it with clients nobody here wrote
# (tools/bootstrap installs them): redis-cli and redis-benchmark
# (redis-tools), Debian's redis-server (bench/kvserver's baseline) and the
# Python redis client (python3-redis).  Without them those tests are
# UNSUPPORTED.
def _kvserver_features():
    import shutil, subprocess
    if shutil.which("redis-cli") and shutil.which("redis-benchmark"):
        config.available_features.add("redis-tools")
    else:
        lit_config.note("kvserver tests that use redis-cli are UNSUPPORTED: install redis-tools (tools/bootstrap)")
    if shutil.which("redis-server"):
        config.available_features.add("redis-server")
    # %redis_python: the python3 on PATH when it has redis-py (pip), else
    # Debian's /usr/bin/python3 (python3-redis).
    for py in ("python3", "/usr/bin/python3"):
        try:
            ok = subprocess.run([py, "-c", "import redis"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                timeout=60).returncode == 0
        except Exception:
            ok = False
        if ok:
            break
    if ok:
        config.available_features.add("redis-py")
        config.substitutions.append(("%redis_python", py))
    else:
        lit_config.note("kvserver tests that use redis-py are UNSUPPORTED: install python3-redis (tools/bootstrap)")

_kvserver_features()

# STAMP's sources (third-party, ../shared/stamp beside the repository, never
# copied into it): test/crash/stamp_vacation.test builds vacation from them;
# without them it is UNSUPPORTED (test/bench/lit.local.cfg says the same for
# the benchmark's own tests).
if os.path.isdir(os.path.join(src, "..", "shared", "stamp", "vacation")):
    config.available_features.add("stamp-sources")

# valgrind (not a bootstrap package): test/run/valgrind.c runs a program
# built with amber-cc under it; without it that test is UNSUPPORTED.
import shutil
if shutil.which("valgrind"):
    config.available_features.add("valgrind")
else:
    lit_config.note("test/run/valgrind.c is UNSUPPORTED: valgrind is not installed")
