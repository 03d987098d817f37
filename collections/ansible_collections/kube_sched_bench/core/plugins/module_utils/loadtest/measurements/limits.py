# -*- coding: utf-8 -*-
"""The held backlog at its release, and the stage that limited the throughput (docs/metrics.md, "What limited the
throughput"), from the timeline, the makespan bound and the host's load."""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.cluster import capacity
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.measurements.contract import Measurement
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import audit

KEYS = ("backlog", "throughput_limited_by")


def gather(context, summary):
    backlog = context.measured.get("backlog")
    held_all = bool(backlog) and backlog["pods_held"] == summary["pods_created"]
    # A held backlog was submitted before the release, which starts the makespan: submission cannot limit it.
    window_s = None if backlog else context.submission["window_s"]
    made_by = "held backlog" if held_all else capacity.pods_made_by(context.run["scheduler"],
                                                                    context.run["workload"]["pod_creation"])
    stage = audit.limiting_stage(context.timeline, summary["makespan_s"], window_s,
                                 summary["makespan_bound"]["seconds"], made_by)
    return {"backlog": backlog, "throughput_limited_by": audit.with_host_cpu(stage, summary["host_load"])}


MEASUREMENT = Measurement("limits", KEYS, gather)
