# -*- coding: utf-8 -*-
"""What a run writes, by path, for the disk check before anything starts (plugin_utils/preflight/disk_needs.py):
``disk_needs``, ``disk_results_mb``, ``planned_builds`` and ``builds_to_do``."""
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.preflight.disk_needs import (
    builds_to_do,
    disk_needs,
    planned_builds,
    results_mb,
)


class FilterModule:
    def filters(self):
        return {"disk_needs": disk_needs, "disk_results_mb": results_mb, "planned_builds": planned_builds,
                "builds_to_do": builds_to_do}
