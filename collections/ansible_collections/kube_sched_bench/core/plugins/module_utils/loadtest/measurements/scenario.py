# -*- coding: utf-8 -*-
"""A scenario's figures, checks and findings, from the job and pod records (docs/metrics.md, "scenario_metrics";
docs/scenarios.md)."""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import workloads
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.measurements.contract import Measurement
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import records as scenario_records

KEYS = ("scenario", "scenario_scale", "scenario_metrics", "unsupported", "findings", "checks")


def gather(context, summary):
    run = context.run
    unsupported = workloads.unsupported(run["scheduler"], workloads.scenario_features(run["scenario"], run["jobs"]))
    timed_out_s = run["workload"]["timeout"] if context.outcome["timed_out"] else None
    return scenario_records.scenario_summary(run["scenario"], context.jobs, context.pods, unsupported, timed_out_s)


MEASUREMENT = Measurement("scenario", KEYS, gather)
