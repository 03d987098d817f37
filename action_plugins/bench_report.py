# -*- coding: utf-8 -*-
"""bench_report: the report of a run, written on the controller (documentation: library/bench_report.py)."""
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.actions.controller_task import ControllerAction
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.task import ARGUMENT_SPEC, write_report


class ActionModule(ControllerAction):
    ARGUMENT_SPEC = ARGUMENT_SPEC
    work = staticmethod(write_report)
