# -*- coding: utf-8 -*-
"""yunikorn_queues: the tenant queues a scenario adds to YuniKorn's queues.yaml (the scheduler role's
yunikorn-configs template), from the pure rule in module_utils/sched_workloads.py."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "module_utils"))

from sched_workloads import yunikorn_queues  # noqa: E402 - module_utils is not a package here


class FilterModule:
    def filters(self):
        return {"yunikorn_queues": yunikorn_queues}
