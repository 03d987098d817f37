# -*- coding: utf-8 -*-
"""``kwok_config_text | kwok_record``: what kwok does for the fake nodes, env.json's ``fake_nodes``
(plugin_utils/cluster/kwok_record.py)."""
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.cluster.kwok_record import kwok_record


class FilterModule:
    def filters(self):
        return {"kwok_record": kwok_record}
