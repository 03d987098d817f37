# -*- coding: utf-8 -*-
"""audit_policy: the API server's audit policy by the name bench_audit_policy gives it (module_utils/metrics/audit_policies.py's
AUDIT_POLICIES, next to the code that reads the log it writes), for the binary_cluster and kind_cluster roles'
audit-policy.yaml."""
from __future__ import annotations

import copy

from ansible.errors import AnsibleFilterError
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.audit_policies import AUDIT_POLICIES


def audit_policy(name="light"):
    """The policy named ``name`` as a dict (a copy: a template may not change the rule); None for "off"."""
    if name is None:
        name = "light"
    if name not in AUDIT_POLICIES:
        raise AnsibleFilterError("audit_policy: %r is not a policy: use one of %s" % (name, ", ".join(AUDIT_POLICIES)))
    return copy.deepcopy(AUDIT_POLICIES[name])


class FilterModule:
    def filters(self):
        return {"audit_policy": audit_policy}
