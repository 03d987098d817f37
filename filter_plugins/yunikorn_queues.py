# -*- coding: utf-8 -*-
"""yunikorn_queues: the tenant queues a scenario adds to YuniKorn's queues.yaml (the scheduler role's
yunikorn-configs template), from the pure rule in module_utils/sched_workloads.py."""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.workloads import yunikorn_queues


class FilterModule:
    def filters(self):
        return {"yunikorn_queues": yunikorn_queues}
