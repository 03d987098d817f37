# -*- coding: utf-8 -*-
"""The runtime contract's filters: ``bench_cluster | cluster_record_problems(runtime)``, what a runtime's start
returned that is not the cluster record (plugin_utils/cluster/record.py), and
``'kube-apiserver' | component_flags(settings)``, a component's shared flags (plugin_utils/cluster/components.py)."""
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.cluster.components import component_flags
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.cluster.record import record_problems


class FilterModule:
    def filters(self):
        return {"cluster_record_problems": record_problems, "component_flags": component_flags}
