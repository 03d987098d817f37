# -*- coding: utf-8 -*-
"""coscheduling: scheduler-plugins' kube-scheduler with the Coscheduling plugin, gangs as PodGroups.

A scheduler descriptor (docs/adding-a-scheduler.md). Data only.
"""
DESCRIPTOR = {
    "name": "coscheduling",
    # scheduler-plugins v0.32.x pairs with Kubernetes v1.32; refused by some module proxies (docs/runtimes-and-schedulers.md).
    "version": "v0.32.7",
    "runtimes": ("binary", "kind"),
    # Its profile's name, as upstream's "as a second scheduler" chart installs it.
    "pod_scheduler_name": "scheduler-plugins-scheduler",
    "queue": None,
    "namespace": "scheduler-plugins",
    "features": ("gang", "priority"),
    "queue_quota": False,
    "whole_job": True,
    "admission": None,
    "direct_pods": "",
    # The Coscheduling plugin's arguments, as upstream's chart sets them (a 10 s permit wait); the same on the binary
    # runtime (the profile) and on kind (the chart's values).
    "plugin_config": [{"name": "Coscheduling", "args": {"permitWaitingTimeSeconds": 10}}],
    "build": {
        "module": "sigs.k8s.io/scheduler-plugins",
        # kube-scheduler with the out-of-tree plugins and the controller that keeps PodGroup status.
        "commands": {
            "scheduler-plugins-scheduler": "sigs.k8s.io/scheduler-plugins/cmd/scheduler",
            "scheduler-plugins-controller": "sigs.k8s.io/scheduler-plugins/cmd/controller",
        },
        "version_vars": [],
        # Kubernetes' example modules, which its go.mod lists and the upstream replace directives pin at v0.32.7, a
        # version some module proxies refuse; no package of the build imports them, so an empty local module (only
        # its go.mod) stands in.
        "graph_only": ["k8s.io/sample-apiserver", "k8s.io/sample-cli-plugin", "k8s.io/sample-controller"],
    },
    # scheduler-plugins publishes its chart only inside its Go module.
    "release": {"chart": "as-a-second-scheduler", "chart_repository": "",
                "module_path": "manifests/install/charts/as-a-second-scheduler",
                # The chart's crds/ are links to these (PodGroup, ElasticQuota), which a module zip leaves out.
                "crd_path": "config/crd/bases"},
    # bench_arrival=backlog: the scheduler's process is stopped until the release; its PodGroup controller runs on.
    "hold": {"processes": ("scheduler-plugins-scheduler",)},
    "ready": "the scheduler's /healthz and the controller's /readyz (binary); the chart's Deployments (kind)",
}
