# -*- coding: utf-8 -*-
"""The load test's Go profiles (bench_scheduler_cpu_profile_seconds): ``bench_cluster | pprof_endpoints(scheduler_deployed)``,
where the scheduler's and kube-apiserver's pprof are read (plugin_utils/cluster/pprof.py);
``endpoints | pprof_profiles(reads, seconds, cpu_fetches, heap_fetches)``, profiles.json from the fetches and
``go tool pprof -top`` outputs; ``pprof_lines``, a phrase per profile; ``pprof_top``, one report parsed
(module_utils/metrics/pprof_top.py)."""
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.pprof_top import (
    document_lines,
    parse_top,
    profiles_document,
)
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.cluster.pprof import pprof_endpoints


class FilterModule:
    def filters(self):
        return {"pprof_endpoints": pprof_endpoints, "pprof_profiles": profiles_document, "pprof_lines": document_lines,
                "pprof_top": parse_top}
