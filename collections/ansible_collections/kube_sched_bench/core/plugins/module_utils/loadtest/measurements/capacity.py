# -*- coding: utf-8 -*-
"""What the scheduler may use of the fake cluster, the shortest makespan that allows for one size of job arriving
at once, and the efficiency against it (docs/metrics.md, "Capacity")."""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.cluster import capacity
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.measurements.contract import Measurement
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import records as scenario_records

KEYS = ("capacity", "makespan_bound", "efficiency")


def gather(context, summary):
    run = context.run
    uniform = scenario_records.uniform_work(run["scenario"], run["workload"])
    if uniform:
        return capacity.capacity_summary(uniform, run["scheduler"], summary["makespan_s"])
    # The makespan bound assumes one size of job arriving at once: such a scenario has its own measures.
    return dict(capacity=capacity.capacity(run["workload"], run["scheduler"]),
                makespan_bound={"unit": None, "at_once": None, "waves": None, "seconds": None},
                efficiency=None)


MEASUREMENT = Measurement("capacity", KEYS, gather)
