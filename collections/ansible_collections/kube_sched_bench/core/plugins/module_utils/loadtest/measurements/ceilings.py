# -*- coding: utf-8 -*-
"""The throughput as a share of the host's calibrated create and binding ceilings (docs/metrics.md)."""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import calibration
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.measurements.contract import Measurement

KEYS = ("share_of_host_ceiling", "share_of_binding_ceiling")


def gather(context, summary):
    throughput = summary["throughput_pods_per_s"]
    return {"share_of_host_ceiling": calibration.share_of_ceiling(throughput, context.run.get("ceiling_pods_per_s")),
            "share_of_binding_ceiling": calibration.share_of_ceiling(
                throughput, context.run.get("binding_ceiling_pods_per_s"))}


MEASUREMENT = Measurement("ceilings", KEYS, gather)
