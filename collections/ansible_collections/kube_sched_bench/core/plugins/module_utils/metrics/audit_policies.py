# -*- coding: utf-8 -*-
"""The API server's audit policies, by the name bench_audit_policy gives them (filter_plugins/audit_policy.py renders
them for the binary_cluster and kind_cluster roles), written for what metrics/audit.py and metrics/requests.py read
of the log."""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers as descriptors
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.audit import PHASE_ADMISSIONS

_AUDITED_JOBS = [dict(descriptor["audited_jobs"]) for descriptor in descriptors.DESCRIPTORS.values()
                 if descriptor.get("audited_jobs")]
_ADMITTING = [{"group": rule["group"], "resources": [rule["resource"], rule["resource"] + "/status"]}
              for rule in PHASE_ADMISSIONS]
# The API server's audit policy on every runtime (binary_cluster and kind_cluster render it through the
# audit_policy filter, by the knob bench_audit_policy), at the least level that holds what this module reads,
# without managedFields: a pod's creation with the server's answer (the name of a pod made from generateName, its
# owner, labels and annotations), a binding's request (the node), the request of the updates that admit a job (a
# Job's spec.suspend, the schedulers' job kinds, PHASE_ADMISSIONS' status.phase); everything else as metadata, which
# names the object (its name completed from the request) and the client (api_requests).
AUDIT_POLICY = {
    "apiVersion": "audit.k8s.io/v1",
    "kind": "Policy",
    "omitStages": ["RequestReceived", "ResponseStarted"],
    "omitManagedFields": True,
    "rules": [
        {"level": "RequestResponse", "verbs": ["create"], "resources": [{"group": "", "resources": ["pods"]}]},
        {"level": "Request", "verbs": ["create"], "resources": [{"group": "", "resources": ["pods/binding"]}]},
        {"level": "Request", "verbs": ["patch", "update"],
         "resources": [{"group": "batch", "resources": ["jobs"]}] + _AUDITED_JOBS + _ADMITTING},
        {"level": "Metadata"},
    ],
}
# The policy of schema versions 1 and 2 (bench_audit_policy full): every write of pods, bindings and jobs with its
# request and response, managed fields included. A log written under it reads the same as one under AUDIT_POLICY
# (tests/unit/test_audit_policy_on_real_logs.py).
FULL_AUDIT_POLICY = {
    "apiVersion": "audit.k8s.io/v1",
    "kind": "Policy",
    "omitStages": ["RequestReceived", "ResponseStarted"],
    "rules": [
        {"level": "RequestResponse", "verbs": ["create", "patch", "update", "delete"],
         "resources": [{"group": "", "resources": ["pods", "pods/binding"]},
                       {"group": "batch", "resources": ["jobs"]}] + _AUDITED_JOBS},
        {"level": "Request", "verbs": ["patch", "update"], "resources": _ADMITTING},
        {"level": "Metadata"},
    ],
}
# bench_audit_policy's choices: a policy, or None for no audit log (timing from the load test's watch).
AUDIT_POLICIES = {"light": AUDIT_POLICY, "full": FULL_AUDIT_POLICY, "off": None}
