# -*- coding: utf-8 -*-
"""audit_policy: the API server's audit policy (module_utils/metrics/audit.py's AUDIT_POLICY, next to the code
that reads the log it writes), for the binary_cluster and kind_cluster roles' audit-policy.yaml."""
from __future__ import annotations

import copy

from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.audit import AUDIT_POLICY


def audit_policy(_unused=None):
    """The policy as a dict (a copy: a template may not change the rule)."""
    return copy.deepcopy(AUDIT_POLICY)


class FilterModule:
    def filters(self):
        return {"audit_policy": audit_policy}
