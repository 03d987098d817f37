# -*- coding: utf-8 -*-
"""The load test's own CPU and peak memory, its analysis included (docs/metrics.md, "Costs")."""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.measurements.contract import Measurement, look
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import cost

KEYS = ("loadtest_cost",)


def gather(context, summary):
    return {"loadtest_cost": look(context, "loadtest_cost", "summary")}


def _own(test, summary):
    return cost.own_cost()


MEASUREMENT = Measurement("loadtest_cost", KEYS, gather, {"summary": _own})
