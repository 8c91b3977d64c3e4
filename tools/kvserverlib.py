"""Starting and stopping examples/kvserver.c for its tools and tests
(tools/kvserver-run, tools/kvserver-crash, bench/kvserver)."""
import os, shutil, signal, socket, subprocess, sys, tempfile, time

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
    """One kvserver process on a free port (its --port-file says which).

    Its port file, and its log unless the caller names one (log=PATH), live
    in a temporary directory (amber-kvserver-*) that stop() and kill()
    remove; log_text() still answers afterwards.  When the server failed (it
    would not start, exited on its own, or stop() saw a nonzero status) the
    directory is kept and its log's path is printed to stderr."""

    def __init__(self, exe, heap, threads=4, env=None, log=None, timeout=120):
        self.dir = tempfile.mkdtemp(prefix="amber-kvserver-")
        self.port_file = os.path.join(self.dir, "port")
        self.own_log = log is None
        self.log_path = log or os.path.join(self.dir, "server.log")
        self.log = open(self.log_path, "ab")
        self.kept_text = None
        cmd = [exe, "--port", "0", "--port-file", self.port_file, "--heap", heap, "--threads", str(threads)]
        try:
            self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=self.log, env=env, preexec_fn=die_with_parent)
        except OSError:
            self._cleanup(failed=False)
            raise
        deadline = time.time() + timeout
        while not os.path.exists(self.port_file):
            if self.proc.poll() is not None:
                self._cleanup(failed=True)
                raise RuntimeError("kvserver exited with %d before listening (log: %s):\n%s" %
                                   (self.proc.returncode, self.log_path, self.log_text()))
            if time.time() > deadline:
                self.kill(failed=True)
                raise RuntimeError("kvserver did not start in %d s (log: %s):\n%s" % (timeout, self.log_path, self.log_text()))
            time.sleep(0.02)
        with open(self.port_file) as f:
            self.port = int(f.read())

    def log_text(self):
        if self.kept_text is not None:
            return self.kept_text
        if not self.log.closed:
            self.log.flush()
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def kill(self, failed=None):
        """SIGKILL: a crash.  A server that had already exited with a
        nonzero status counts as failed (its log is kept)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        elif failed is None:
            failed = self.proc.returncode != 0
        self.proc.wait()
        self._cleanup(failed=bool(failed))
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
        self._cleanup(failed=self.proc.returncode != 0)
        return self.proc.returncode

    def _cleanup(self, failed):
        if self.dir is None:
            return
        if not self.log.closed:
            self.log.close()
        try:
            with open(self.log_path, errors="replace") as f:
                self.kept_text = f.read()
        except OSError:
            self.kept_text = ""
        if failed and self.own_log:
            try:
                os.unlink(self.port_file)
            except OSError:
                pass
            sys.stderr.write("kvserverlib: the server failed; its log is kept in %s\n" % self.log_path)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port
