# -*- coding: utf-8 -*-
"""bench_history: the history of a results directory, written on the controller (documentation:
library/bench_history.py)."""
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.actions.controller_task import ControllerAction
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.history.task import ARGUMENT_SPEC, write_history


class ActionModule(ControllerAction):
    ARGUMENT_SPEC = ARGUMENT_SPEC
    work = staticmethod(write_history)
