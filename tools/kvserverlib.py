"""Starting and stopping examples/kvserver.c for its tools and tests
(tools/kvserver-run, tools/kvserver-crash, bench/kvserver)."""
import os, signal, socket, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)


def build(amber_cc, out, extra=()):
    """Compiles examples/kvserver.c with amber-cc into out; exits on failure."""
    cmd = [amber_cc, "-O2", os.path.join(SRC, "examples", "kvserver.c"), "-o", out, "-lpthread"] + list(extra)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.exit("kvserver: error: %s failed:\n%s" % (" ".join(cmd), r.stdout))
    return out


def built(build_dir):
    """BUILD/bin/kvserver (the normal build makes it) when it is newer than
    examples/kvserver.c, else None."""
    exe = os.path.join(build_dir, "bin", "kvserver")
    src = os.path.join(SRC, "examples", "kvserver.c")
    if os.path.exists(exe) and os.path.getmtime(exe) >= os.path.getmtime(src):
        return exe
    return None


def die_with_parent():
    """In the child before exec: SIGKILL when the tool that started it dies,
    so that no server outlives a killed test."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass


class Server:
    """One kvserver process on a free port (its --port-file says which)."""

    def __init__(self, exe, heap, threads=4, env=None, log=None, timeout=120):
        self.dir = tempfile.mkdtemp(prefix="amber-kvserver-")
        self.port_file = os.path.join(self.dir, "port")
        self.log_path = log or os.path.join(self.dir, "server.log")
        self.log = open(self.log_path, "ab")
        cmd = [exe, "--port", "0", "--port-file", self.port_file, "--heap", heap, "--threads", str(threads)]
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=self.log, env=env, preexec_fn=die_with_parent)
        deadline = time.time() + timeout
        while not os.path.exists(self.port_file):
            if self.proc.poll() is not None:
                raise RuntimeError("kvserver exited with %d before listening:\n%s" % (self.proc.returncode, self.log_text()))
            if time.time() > deadline:
                self.kill()
                raise RuntimeError("kvserver did not start in %d s:\n%s" % (timeout, self.log_text()))
            time.sleep(0.02)
        with open(self.port_file) as f:
            self.port = int(f.read())

    def log_text(self):
        if not self.log.closed:
            self.log.flush()
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def kill(self):
        """SIGKILL: a crash."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self._cleanup()
        return self.proc.returncode

    def stop(self, timeout=120):
        """SIGTERM and wait: the exit status (0 when it stopped cleanly)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._cleanup()
        return self.proc.returncode

    def _cleanup(self):
        self.log.close()
        for p in (self.port_file,):
            try:
                os.unlink(p)
            except OSError:
                pass


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port
