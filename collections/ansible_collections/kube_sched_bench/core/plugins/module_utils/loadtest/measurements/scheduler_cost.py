# -*- coding: utf-8 -*-
"""The scheduler's own processes' CPU and peak memory over the load test (docs/metrics.md, "Costs"), from their pid
files at the test's start and once the load is measured; absent when no process of the scheduler is known."""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.measurements.contract import Measurement, look
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import cost

KEYS = ("scheduler_cost",)


def gather(context, summary):
    found = look(context, "scheduler_cost", "summary")
    return {} if found is None else {"scheduler_cost": found}


def _start(test, summary):
    pid_files = test.p["scheduler_pid_files"]
    return cost.sample(pid_files) if pid_files else None


def _cost(test, summary):
    pid_files = test.p["scheduler_pid_files"]
    if not pid_files:
        return None
    return cost.cost((test.looks.get("scheduler_cost") or {}).get("begin") or {}, cost.sample(pid_files))


MEASUREMENT = Measurement("scheduler_cost", KEYS, gather, {"begin": _start, "summary": _cost})
