# -*- coding: utf-8 -*-
"""The load test's measurements, one module each, registered here in the order their parts are merged into
summary.json (a measurement may read the parts merged before it). docs/architecture.md, "Adding a figure"."""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.measurements import (
    capacity,
    ceilings,
    host_load,
    limits,
    loadtest_cost,
    observations,
    placement,
    run_record,
    scenario,
    scheduler_cost,
    timing,
)
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.measurements.contract import MOMENTS

REGISTERED = (timing.MEASUREMENT, run_record.MEASUREMENT, host_load.MEASUREMENT, capacity.MEASUREMENT,
              ceilings.MEASUREMENT, limits.MEASUREMENT, scheduler_cost.MEASUREMENT, scenario.MEASUREMENT,
              placement.MEASUREMENT, observations.MEASUREMENT, loadtest_cost.MEASUREMENT)
NAMES = tuple(measurement.name for measurement in REGISTERED)


def keys(measurements=REGISTERED):
    """Every top-level key of summary.json the measurements write."""
    return {key for measurement in measurements for key in measurement.keys}


def take(moment, test, looks, measurements=REGISTERED, summary=None):
    """Take every measurement's look of ``moment`` on the load test ``test`` into ``looks``."""
    assert moment in MOMENTS, moment
    for measurement in measurements:
        hook = measurement.hooks.get(moment)
        if hook is not None:
            looks.setdefault(measurement.name, {})[moment] = hook(test, summary)


def merge(context, measurements=REGISTERED):
    """summary.json: every measurement's part, in order; a part with a key its measurement does not declare is a
    bug, said at once."""
    summary = {}
    for measurement in measurements:
        if context.test is not None:
            take("summary", context.test, context.looks, (measurement,), summary)
        part = measurement.gather(context, summary)
        undeclared = sorted(set(part) - set(measurement.keys))
        if undeclared:
            raise ValueError("measurement %s wrote keys it does not declare: %s" % (measurement.name,
                                                                                   ", ".join(undeclared)))
        summary.update(part)
    return summary
