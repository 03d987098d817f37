# -*- coding: utf-8 -*-
"""The schedulers' cycle settings (plugin_utils/cluster/cycle.py): ``seconds | go_duration`` as a process or a
configuration takes them, ``text | duration_seconds`` back, ``argv | flag_value(flag, default)`` from a command
line, ``config | kube_scheduler_cycle`` from a KubeSchedulerConfiguration or /configz, ``release | release_cycle``
from the objects a release applies."""
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.cluster.cycle import (
    duration_seconds,
    flag_value,
    go_duration,
    kube_scheduler_cycle,
    release_cycle,
)


class FilterModule:
    def filters(self):
        return {"go_duration": go_duration, "duration_seconds": duration_seconds, "flag_value": flag_value,
                "kube_scheduler_cycle": kube_scheduler_cycle, "release_cycle": release_cycle}
