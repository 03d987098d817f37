# -*- coding: utf-8 -*-
"""Where the pods landed and what it cost GPU jobs (docs/metrics.md, "placement"): GPUs allocated and stranded, the
topology groups a job's pods span, the wait by job size and of the largest GPU jobs; over the scenario's window, so
after the scenario measurement."""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.measurements.contract import Measurement
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import placement as scenario_placement

KEYS = ("placement",)


def gather(context, summary):
    window = summary["scenario_metrics"]["window"]
    return {"placement": scenario_placement.placement(context.run["scenario"]["cluster"], context.jobs, context.pods,
                                                      window["start_us"], window["end_us"])}


MEASUREMENT = Measurement("placement", KEYS, gather)
