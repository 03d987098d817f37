# -*- coding: utf-8 -*-
"""Apache YuniKorn: the k8shim with yunikorn-core in one process, hierarchical queues and task-group gangs.

A scheduler descriptor (docs/adding-a-scheduler.md). Data only.
"""
DESCRIPTOR = {
    "name": "yunikorn",
    # Refused by some module proxies: give a mirror first in golang_goproxy (docs/runtimes-and-schedulers.md).
    "version": "v1.6.1",
    "runtimes": ("binary", "kind"),
    "pod_scheduler_name": "yunikorn",
    # The burst's queue path, in the partition below (the yunikorn-configs template makes it).
    "queue": "root.sandbox",
    "partition": "default",
    # Where its yunikorn-configs ConfigMap lives (the shim's NAMESPACE) and its chart's release namespace.
    "namespace": "yunikorn",
    # yunikorn-core v1.6 serves its REST API, health check and pprof on this port of every address, a number it
    # does not let one change (the build binds it to the loopback address: build.source_edits).
    "web_port": 9080,
    # Its own knob, checked by roles/scheduler/tasks/yunikorn-knobs.yml: entries of its yunikorn-configs ConfigMap
    # put over the toolkit's (such as {"service.schedulingInterval": "500ms"}), recorded in env.json.
    "knobs": {"scheduler_yunikorn_configs": "entries of its yunikorn-configs ConfigMap over the toolkit's"},
    "features": ("gang", "fair_share", "priority"),
    "queue_quota": True,
    "whole_job": False,
    "admission": None,
    "direct_pods": "",
    # The shim's placeholder pods (its stand-ins for a gang's members, no job's pods), annotated "true" with one
    # of these (yunikorn-k8shim v1.6 pkg/common/constants): the load test leaves them out.
    "placeholder_annotations": ("internal.yunikorn.apache.org/placeholder", "yunikorn.apache.org/placeholder"),
    "build": {
        "module": "github.com/apache/yunikorn-k8shim",
        "commands": {"yunikorn-scheduler": "github.com/apache/yunikorn-k8shim/pkg/cmd/shim"},
        "version_vars": ["github.com/apache/yunikorn-k8shim/pkg/conf.buildVersion"],
        # go build -overlay with an edited copy of that one file, made from the module cache at build time.
        "source_edits": [{
            "module": "github.com/apache/yunikorn-core",
            "file": "pkg/webservice/webservice.go",
            "find": 'Addr:              ":9080",',
            "replace": 'Addr:              "127.0.0.1:9080",',
        }],
    },
    "release": {"chart": "yunikorn", "chart_repository": "https://apache.github.io/yunikorn-release",
                "module_path": "",
                # Its chart puts the web UI in the scheduler's pod, with no value to leave it out; the UI schedules
                # nothing (the binary runtime runs none), and its image is built with npm, not from a Go module.
                "without_containers": {"yunikorn-scheduler-web": "the web UI, which schedules nothing"}},
    # bench_arrival=backlog: its one process is stopped until the release.
    "hold": {"processes": ("yunikorn-scheduler",)},
    "ready": "its web port's /ws/v1/scheduler/healthcheck, then each of its queues over its REST API (binary); the "
             "chart's Deployments and webhook Service endpoints, then each of its queues over its REST API through the API "
             "server's service proxy (kind)",
}
