# -*- coding: utf-8 -*-
"""The ``workload`` option of the load-test modules, from the knob table (module_utils/knobs/table.py)."""
from __future__ import annotations

import yaml
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.table import BY_NAME, names


def _documentation():
    suboptions = {name: {"description": BY_NAME[name].text, "type": BY_NAME[name].type, "required": True}
                  for name in names("workload")}
    return yaml.safe_dump({"options": {"workload": {
        "description": [
            "The workload description the bench role builds from the C(bench_*) variables, each sub-option named as "
            "its variable without C(bench_); recorded whole in summary.json. Its meanings, defaults and rules are "
            "the knob table's (module_utils/knobs/table.py), checked here as the play checks them.",
        ],
        "type": "dict",
        "required": True,
        "suboptions": suboptions,
    }}}, sort_keys=False)


class ModuleDocFragment:
    DOCUMENTATION = _documentation()
