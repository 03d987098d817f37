# -*- coding: utf-8 -*-
"""bench_prune_results runs directly, without being packed, on a host that is the controller (plugin_utils/actions/direct_run.py)."""
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.actions.direct_run import (  # noqa: F401 - Ansible loads it by this name
    OwnModuleAction as ActionModule,
)
