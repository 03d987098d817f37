"""Progress of a running load test, written to a small JSON file on the host.

The bench_async_wait action reads the file while the module runs asynchronously
and shows it at the terminal (pods bound so far, elapsed, ETA).
"""
from __future__ import annotations

import json
import os
import time

from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.atomic import write_atomically


def eta_seconds(done, total, elapsed):
    """Seconds left at the rate seen so far; None before there is a rate or after the end."""
    if not total or done <= 0 or done >= total or elapsed <= 0:
        return None
    return round(elapsed * (total - done) / done, 1)


class ProgressFile:
    """Writes the test's progress atomically, at most once per `every` seconds unless forced."""

    def __init__(self, path, every=1.0, clock=time.monotonic):
        self.path = path
        self.every = every
        self.clock = clock
        self.start = clock()
        self.last = None
        self.state = {"pid": os.getpid(), "phase": "starting", "done": False}

    def update(self, force=False, **fields):
        self.state.update(fields)
        now = self.clock()
        if not self.path or (not force and self.last is not None and now - self.last < self.every):
            return False
        self.last = now
        elapsed = now - self.start
        self.state["elapsed_s"] = round(elapsed, 1)
        phase_total, phase_done = self.state.get("total"), self.state.get("count", 0)
        self.state["eta_s"] = None if self.state.get("done") else eta_seconds(
            phase_done, phase_total, now - self.state.get("phase_start", self.start))
        self._write()
        return True

    def phase(self, name, total=None):
        """Start a phase (nodes, submit, wait) counting towards `total`."""
        self.state.update(phase=name, total=total, count=0, phase_start=self.clock())
        self.update(force=True)

    def finish(self, outcome):
        self.update(force=True, phase="finished", outcome=outcome, done=True)

    def _write(self):
        try:
            write_atomically(self.path, json.dumps({k: v for k, v in self.state.items() if k != "phase_start"},
                                                   sort_keys=True), make_dirs=True)
        except OSError:
            pass   # progress is a courtesy: never fail the test for it
