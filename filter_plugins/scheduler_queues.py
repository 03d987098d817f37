# -*- coding: utf-8 -*-
"""scheduler_queues: the tenant queues a scenario adds to a scheduler's own configuration at deploy time (the
scheduler role's templates), from the scheduler's module (its form config_queues; none without it):
``scheduler_scenario | scheduler_queues(scheduler_name, {'cpu': ..., 'memory': ...})``."""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.workloads import scheduler_queues


class FilterModule:
    def filters(self):
        return {"scheduler_queues": scheduler_queues}
