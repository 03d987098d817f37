"""Pid files of the processes a run starts (the cluster's, the schedulers', the load test's), so
that a teardown after the controller died can stop them."""
import os

from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.atomic import write_atomically


def write_pid_file(path, pid):
    """Write ``pid`` to ``path`` atomically: a reader never sees a half-written file."""
    write_atomically(path, "%d\n" % pid)


def remove_pid_file(path):
    """Remove a pid file that may be gone already (the load test removes its own when it ends)."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def pid_files_in(directories):
    """The *.pid files of the directories, in name order (a missing directory has none)."""
    paths = []
    for directory in directories:
        try:
            paths += [os.path.join(directory, name) for name in sorted(os.listdir(directory)) if name.endswith(".pid")]
        except OSError:
            continue
    return paths
