# -*- coding: utf-8 -*-
"""How busy the host was over the load test: the CPU of every process, the benchmark's own apart
(docs/metrics.md, "Host load"), from /proc at the test's start and when it starts writing its results."""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.measurements.contract import Measurement, look
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import host_load

KEYS = ("host_load",)


def gather(context, summary):
    start, end = look(context, "host_load", "begin"), look(context, "host_load", "end")
    if start is None or end is None:
        return {"host_load": None}
    return {"host_load": host_load.summarize(start, end, context.run.get("busy_threshold"))}


def _sample(test, summary):
    return test.host_load_sample()


def _end_sample(test, summary):
    # None without a start: /proc could not be read then.
    return test.host_load_sample() if (test.looks.get("host_load") or {}).get("begin") else None


MEASUREMENT = Measurement("host_load", KEYS, gather, {"begin": _sample, "end": _end_sample})
