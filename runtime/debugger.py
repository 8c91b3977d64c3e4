# amber's gdb support, loaded by gdb from libamber.so's .debug_gdb_scripts
# section (runtime/debugger.c explains the mechanism; docs/guide.md section 9
# how to enable auto-loading).  At every stop, and when another thread is
# selected, it asks the program for a view of the heap as the selected
# thread would read it (its region's snapshot and own writes, or outside
# regions the latest commit), so plain `print` shows that; at every resume
# it hands the view back.  Commands: `info amber` (each thread's region),
# `amber view` (rebuild the view now), `amber off` / `amber on`.
import gdb

_state = {"busy": False, "viewing": False, "thread": None, "on": True}


def _live():
    try:
        return gdb.selected_inferior().pid > 0 and gdb.selected_thread() is not None
    except gdb.error:
        return False


def _has_amber():
    try:
        gdb.parse_and_eval("(long)&__amber_debug_view")
        return True
    except gdb.error:
        return False


def _call(expr):
    """Calls into the program with only the selected thread running: the
    others stay stopped wherever they are (the callee never waits for them)."""
    if _state["busy"]:
        return None
    _state["busy"] = True
    try:
        old = gdb.parameter("scheduler-locking")
        gdb.execute("set scheduler-locking on", to_string=True)
        try:
            return gdb.parse_and_eval(expr)
        finally:
            gdb.execute("set scheduler-locking %s" % old, to_string=True)
    except gdb.error as e:
        gdb.write("amber: warning: %s failed: %s\n" % (expr, e), gdb.STDERR)
        return None
    finally:
        _state["busy"] = False


def _runtime_thread(th):
    """amber's own threads (amber-live, amber-detector) run no program code
    and sleep in futex waits: an inferior call there is never needed, and
    one in the live-statistics thread once left the program to crash after
    detach, so the script never calls into them."""
    return th is not None and (th.name or "").startswith("amber-")


def _view():
    if not _state["on"] or not _live() or not _has_amber():
        return
    th = gdb.selected_thread()
    if _runtime_thread(th):
        return
    if _call("(int)__amber_debug_view()") is not None:
        _state["viewing"] = True
        _state["thread"] = th.global_num


def _on_stop(event):
    if not _state["busy"]:
        _view()


def _before_prompt():
    if _state["busy"] or not _live():
        return
    th = gdb.selected_thread()
    if th is not None and (not _state["viewing"] or th.global_num != _state["thread"]):
        _view()


def _resume():
    if _state["viewing"] and not _state["busy"] and _live():
        _call("(int)__amber_debug_resume()")
    _state["viewing"] = False
    _state["thread"] = None


def _on_exit(event):
    _state["viewing"] = False
    _state["thread"] = None


class InfoAmber(gdb.Command):
    """Each thread's amber state: the region it is in (file:line) or none."""

    def __init__(self):
        super().__init__("info amber", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        if not _live() or not _has_amber():
            gdb.write("amber: this program has no live amber runtime\n")
            return
        sel = gdb.selected_thread()
        try:
            for th in sorted(gdb.selected_inferior().threads(), key=lambda t: t.num):
                if _runtime_thread(th):  # never the program's: not listed
                    continue
                th.switch()
                v = _call("(const char *)__amber_debug_thread()")
                gdb.write("Thread %d (%s): %s\n" % (th.num, th.name or "?", v.string() if v is not None else "?"))
        finally:
            sel.switch()


class Amber(gdb.Command):
    """amber view: rebuild the heap view for the selected thread.
amber off: plain reads of the data area from now on.  amber on: the view again."""

    def __init__(self):
        super().__init__("amber", gdb.COMMAND_DATA, prefix=True)

    def invoke(self, arg, from_tty):
        arg = arg.strip()
        if arg == "view":
            _view()
        elif arg == "off":
            _resume()
            _state["on"] = False
        elif arg == "on":
            _state["on"] = True
            _view()
        else:
            raise gdb.GdbError("amber: error: unknown subcommand %r: use amber view, amber off or amber on" % arg)


if not getattr(gdb, "_amber_loaded", False):  # once per gdb, however many objfiles carry the script
    gdb._amber_loaded = True
    gdb.events.stop.connect(_on_stop)
    gdb.events.exited.connect(_on_exit)
    gdb.events.before_prompt.connect(_before_prompt)
    InfoAmber()
    Amber()
# Loaded while attaching (gdb -p): the process is already stopped, and gdb
# reports no stop for an attach; view it once gdb is done loading.
if _live():
    gdb.post_event(_view)
