# -*- coding: utf-8 -*-
"""Why it was as fast as it was: the scheduler's and the control plane's own metrics scraped just before the load
and once it is done, the host's processes sampled at the same moments, and the API requests by client in between
(docs/metrics.md, "Why: internals, cost per component, API requests"); each None when not observed. The scrapes
and samples are the load test's (observe.py), kept beside the result."""
from __future__ import annotations

import time

from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.measurements.contract import Measurement, look
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.observe import AFTER, BEFORE

KEYS = ("internals", "component_cost", "api_requests")


def gather(context, summary):
    return look(context, "observations", "summary") or {key: None for key in KEYS}


def _before(test, summary):
    test.observe(BEFORE)


def _after(test, summary):
    test.observe(AFTER)


def _summarize(test, summary):
    started = time.monotonic()
    found = test.observations(summary["pods_bound"])
    test.phases["observations"] = round(time.monotonic() - started, 3)
    return found


# Before the hold: a held scheduler's process is stopped and would not answer.
MEASUREMENT = Measurement("observations", KEYS, gather,
                          {"before_load": _before, "after_load": _after, "summary": _summarize})
