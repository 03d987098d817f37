"""Pid files of the processes a run starts (the cluster's, the schedulers', the load test's), so
that a teardown after the controller died can stop them."""
import os


def write_pid_file(path, pid):
    """Write ``pid`` to ``path`` atomically: a reader never sees a half-written file."""
    tmp = "%s.%d.tmp" % (path, os.getpid())
    with open(tmp, "w", encoding="ascii") as handle:
        handle.write("%d\n" % pid)
    os.replace(tmp, path)


def remove_pid_file(path):
    """Remove a pid file that may be gone already (the load test removes its own when it ends)."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
