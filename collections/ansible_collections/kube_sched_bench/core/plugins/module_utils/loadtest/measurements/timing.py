# -*- coding: utf-8 -*-
"""Audit timing: every pod's creation and binding, as the API server's audit log (or the watch) timed them, and
the throughput, latency and makespan they give (docs/metrics.md, "Throughput and latency"); its timeline is the
one timeline.csv and the other measurements read."""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.measurements.contract import Measurement
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import audit

KEYS = ("pods_expected", "pods_created", "pods_bound", "makespan_s", "throughput_pods_per_s",
        "peak_throughput_pods_per_s", "latency_ms", "jobs_submitted", "submit_rate_jobs_per_s", "start", "end")


def gather(context, summary):
    submission = context.submission
    part, context.timeline = audit.summarize(context.measured["records"], list(context.measured["job_created"].values()),
                                             submission["pods_expected"], submission["window_s"],
                                             len(submission["submitted"]))
    return part


MEASUREMENT = Measurement("timing", KEYS, gather)
