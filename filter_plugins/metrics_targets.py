# -*- coding: utf-8 -*-
"""``bench_cluster | metrics_targets(scheduler_deployed)``: the metrics endpoints the load test scrapes around the
load (plugin_utils/cluster/metrics_targets.py)."""
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.cluster.metrics_targets import metrics_targets


class FilterModule:
    def filters(self):
        return {"metrics_targets": metrics_targets}
