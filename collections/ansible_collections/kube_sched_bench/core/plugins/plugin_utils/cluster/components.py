# -*- coding: utf-8 -*-
"""Each control-plane component's flags that are the benchmark's own, the same on every runtime: the API server's
audit log, the controller manager's client rate, job syncs and node grace period. A runtime renders them beside its own wiring
(addresses, ports, certificates): the binary runtime as the process's arguments
(roles/binary_cluster/templates/components.yaml.j2), kind as kubeadm's extraArgs
(roles/kind_cluster/templates/kind-config.yaml.j2). A flag added here reaches the component on both."""
from __future__ import annotations

NODE_MONITOR_GRACE = "5m"
# component: ((flag, the setting it takes, or a fixed value), ...), in the order the binary runtime passes them. A
# fixed value "with" a setting is left out with it (no audit log: no format either).
FLAGS = {
    "kube-apiserver": (
        ("audit-policy-file", "audit_policy"),
        ("audit-log-path", "audit_log"),
        ("audit-log-format", {"fixed": "json", "with": "audit_log"}),
        ("audit-log-maxsize", "audit_log_maxsize"),
        ("audit-log-maxbackup", "audit_log_maxbackup"),
    ),
    "kube-controller-manager": (
        ("kube-api-qps", "api_qps"),
        ("kube-api-burst", "api_burst"),
        ("concurrent-job-syncs", "job_syncs"),
        # How long a fake node may go without a heartbeat before it is marked Unknown, tainted and its pods NotReady
        # (40 s by default up to 1.31, 50 s since). kwok's heartbeat (kwok-stages.yaml.j2, every 120 to 150 s) lags
        # by tens of seconds when the host is saturated: this leaves it more than twice its interval.
        ("node-monitor-grace-period", {"fixed": NODE_MONITOR_GRACE}),
    ),
}


def component_flags(component, settings):
    """{flag: value} of ``component`` from ``settings`` (the runtime's paths and the run's values), in FLAGS' order;
    a setting that is None leaves its flag out (a component's version that has no such flag)."""
    if component not in FLAGS:
        raise ValueError("no shared flags for component %r: one of %s" % (component, ", ".join(FLAGS)))
    flags = {}
    for flag, source in FLAGS[component]:
        if isinstance(source, dict):
            value = source["fixed"] if source.get("with") is None or settings[source["with"]] is not None else None
        else:
            value = settings[source]
        if value is not None:
            flags[flag] = value
    return flags
