# -*- coding: utf-8 -*-
"""``bench_cluster | metrics_targets(scheduler_deployed)``: the metrics endpoints the load test scrapes around the
load; ``kind_cluster_info | node_metrics_target(process[, url])``: one inside a kind node (plugin_utils/cluster/
metrics_targets.py)."""
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.cluster.metrics_targets import (
    metrics_targets,
    node_target,
)


class FilterModule:
    def filters(self):
        return {"metrics_targets": metrics_targets, "node_metrics_target": node_target}
