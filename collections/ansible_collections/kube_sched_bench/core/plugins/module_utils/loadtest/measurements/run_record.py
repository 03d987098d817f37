# -*- coding: utf-8 -*-
"""Which run it was and how it went: the scheduler, the workload, the timing source, whether it completed and why
not, when it ran and how long each phase took (docs/metrics.md, "The run")."""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.measurements.contract import Measurement
from ansible_collections.kube_sched_bench.core.plugins.module_utils.result.schema import SCHEMA_VERSION
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import records as scenario_records

KEYS = ("schema_version", "scheduler", "run_label", "namespace", "workload", "pods_completed", "timing_source",
        "complete", "reason", "submit_errors", "submit_error_count", "started_at", "phases_s", "finished_at",
        "audit_log_bytes")


def gather(context, summary):
    run, outcome, errors = context.run, context.outcome, context.submission["errors"]
    return {
        "schema_version": SCHEMA_VERSION,
        "scheduler": run["scheduler"],
        "run_label": run["run_label"],
        "namespace": run["namespace"],
        # The scenario's jobs replace bench_jobs ... bench_pod_duration: one value each when they are all alike.
        "workload": scenario_records.summary_workload(run["scenario"], run["workload"], run["jobs"]),
        # pods.csv's completed column: the measured pods the watch saw finish.
        "pods_completed": sum(1 for record in context.measured["records"] if record.get("completed_us") is not None),
        "timing_source": context.measured["source"],
        "complete": outcome["complete"],
        "reason": outcome["reason"],
        "submit_errors": errors[:20],
        "submit_error_count": len(errors),
        "started_at": outcome["started_at"],
        # The load test's own dict: its analysis and observations phases are filled in as they end.
        "phases_s": outcome["phases_s"],
        "finished_at": outcome["finished_at"],
        "audit_log_bytes": outcome["audit_log_bytes"],
    }


MEASUREMENT = Measurement("run_record", KEYS, gather)
