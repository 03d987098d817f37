"""One bench.yml run from the project's own tools (make bench-loadgen, make bench-matrix), through the Python entry
point (plugin_utils/runner/bench.py: ansible-runner)."""
import os
import shlex

from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.runner.bench import run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOCAL = os.path.join(ROOT, "inventories", "local")


def bench(extra_vars, inventory=LOCAL, more_args=(), on_event=None):
    """bench.yml with ``extra_vars`` on ``inventory``, more ansible-playbook arguments in ``more_args``; each event
    to ``on_event``; the entry point's BenchRun (rc, results_dir, hosts, gate)."""
    return run(inventory, extra_vars, on_event=on_event, cmdline=shlex.join(more_args) if more_args else None)
