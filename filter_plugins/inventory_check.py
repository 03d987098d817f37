# -*- coding: utf-8 -*-
"""An inventory a run cannot start on, in one line (plugin_utils/preflight/inventory.py): ``inventory_problem``."""
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.preflight.inventory import inventory_problem


class FilterModule:
    def filters(self):
        return {"inventory_problem": inventory_problem}
