# -*- coding: utf-8 -*-
"""Apache YuniKorn: the k8shim with yunikorn-core in one process, hierarchical queues and task-group gangs.

A scheduler's own file (docs/adding-a-scheduler.md): its descriptor and its workload forms. A job is a batch Job
whose pods are one YuniKorn application in its queue. A scenario (its v1.6 defaults otherwise) gives each tenant a
queue under root guaranteed its weight's part of the queues' CPU, with the queues' capability as max (config_queues,
in its yunikorn-configs at deploy time: the scheduler_queues filter), a task group per gang job (placeholders reserve
the whole gang first) and a PriorityClass per priority value: it orders a queue's applications by priority, but
preempts only across queues (a pod waiting preemption.delay, 30 s, in a queue below its guarantee, victims of equal
or lower priority in queues above theirs); within one queue, as with a single tenant, a high priority never preempts.
"""
from __future__ import annotations

import copy
import json

from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.node_pools import extended_totals
from ansible_collections.kube_sched_bench.core.plugins.module_utils.objects.builders import (
    JOB_LABEL,
    base_pod_template,
    batch_job,
    direct_pods,
    job_topology_affinity,
    priority_classes,
    tenant_queue_name,
    tenant_quotas,
)
from ansible_collections.kube_sched_bench.core.plugins.module_utils.schedulers import views

# Its gangs (yunikorn-k8shim v1.6 pkg/common/constants): a pod's task group, the application's task groups (on each
# pod, the first one seen defines them) and its scheduling parameters; the shim creates a placeholder pod per member,
# annotated as such, and swaps each for a real pod.
TASK_GROUP_NAME = "yunikorn.apache.org/task-group-name"
TASK_GROUPS = "yunikorn.apache.org/task-groups"
POLICY_PARAMETERS = "yunikorn.apache.org/schedulingPolicyParameters"
# The one task group of a gang job: all its pods, alike.
GANG_TASK_GROUP = "gang"
# Hard: a gang whose placeholders are not all placed in time fails instead of falling back to pod-by-pod placement.
GANG_STYLE = "gangSchedulingStyle=Hard"
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
    # Its own knob, checked by roles/scheduler/tasks/yunikorn/knobs.yml: entries of its yunikorn-configs ConfigMap
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
    # Its own roles/scheduler/tasks/yunikorn/binary.yml starts it with its yunikorn-configs and adds its fixed
    # web_port to its ports as yunikorn_web, where yunikorn-core serves pprof and its metrics.
    "local": {
        "processes": ["yunikorn-scheduler"],
        "namespace": True,
        "pprof": "yunikorn_web",
        "metrics": [{"process": "yunikorn-scheduler", "port": "yunikorn_web", "path": "/ws/v1/metrics"}],
    },
    # bench_arrival=backlog: its one process is stopped until the release.
    # yunikorn-core observes its *_milliseconds histograms in seconds (metrics/scheduler.go, SinceInSeconds), one
    # observation per allocation; it counts no cycles of the shim's scheduling interval.
    "internals": {"yunikorn-scheduler": [
        {"key": "allocation_attempts", "view": "counts", "metric": "yunikorn_scheduler_container_allocation_attempt_total",
         "label": "state"},
        {"key": "allocation_latency", "view": "histogram", "metric": "yunikorn_scheduler_scheduling_latency_milliseconds",
         "unit_ms": views.SECONDS},
        {"key": "busiest_sorting", "view": "busiest", "metric": "yunikorn_scheduler_node_sorting_latency_milliseconds",
         "label": "level", "unit_ms": views.SECONDS, "top": 5},
        {"key": "trynode_latency", "view": "histogram", "metric": "yunikorn_scheduler_trynode_latency_milliseconds",
         "unit_ms": views.SECONDS},
    ]},
    "hold": {"processes": ("yunikorn-scheduler",)},
    # bench_scheduler_profile=batch: properties of its burst's queue and of a scenario's tenant queues
    # (yunikorn-configs.yaml.j2); its gangs are Hard under every profile (GANG_STYLE). docs/runtimes-and-schedulers.md.
    "profiles": {"batch": {
        "queue_properties": {
            "value": {"application.sort.policy": "fifo"},
            "source": "https://yunikorn.apache.org/docs/user_guide/gang_scheduling/#prerequisite",
            "what": "FIFO application sorting in the queues that run gangs, so that the placeholders of one application "
                    "are placed before the next one's (v1.6 sorts by FIFO already when nothing is set: written so that the "
                    "configuration says it)",
        },
    }},
    # A scenario group's topology: pod affinity among the job's pods on the level's node label
    # (builders.job_topology_affinity), which its shim checks with
    # kube-scheduler's InterPodAffinity plugin; a gang's placeholders carry the term and the job's label (task group).
    "topology": {"mechanism": "pod-affinity",
                 "source": "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/"
                           "#inter-pod-affinity-and-anti-affinity"},
    "ready": "its web port's /ws/v1/scheduler/healthcheck, then each of its queues over its REST API (binary); the "
             "chart's Deployments and webhook Service endpoints, then each of its queues over its REST API through the API "
             "server's service proxy (kind)",
}


def gang_annotations(spec, members, labels=None):
    """The annotations that make a job's pods (of pod ``spec``) one task group of ``members`` pods: the shim
    reserves room for all of them with placeholder pods (each of the pod's requests, on the nodes the pod may use: its
    node and pod affinity and tolerations; ``labels`` on each, such as the job's label its pod affinity selects)
    before it places any, and swaps each placeholder for a real pod."""
    group = {"name": GANG_TASK_GROUP, "minMember": members,
             "minResource": dict(spec["containers"][0]["resources"]["requests"]),
             "affinity": copy.deepcopy(spec["affinity"]), "tolerations": copy.deepcopy(spec["tolerations"])}
    if labels:
        group["labels"] = dict(labels)
    return {TASK_GROUP_NAME: GANG_TASK_GROUP,
            TASK_GROUPS: json.dumps([group], sort_keys=True, separators=(",", ":")),
            POLICY_PARAMETERS: GANG_STYLE}


def pod_template(name, target, work, native):
    """The pod template of job ``name``: one application per job, in its queue (the burst's or its tenant's); a gang
    job's pods form one task group; its group's topology is pod affinity among its pods and its placeholders."""
    template = job_topology_affinity(name, base_pod_template(
        target, work, scheduler_name=DESCRIPTOR["pod_scheduler_name"], priority_class=native.priority_class,
        extra_labels={"applicationId": "%s-%s" % (target.namespace, name), "queue": native.queue}), work)
    if native.gang:
        labels = {JOB_LABEL: name} if JOB_LABEL in template["metadata"]["labels"] else None
        template["metadata"]["annotations"].update(gang_annotations(template["spec"], native.min_member, labels))
    return template


def job_objects(name, target, work, native, scenario):
    """Job ``name`` when the job controller makes its pods: one batch Job."""
    return [("batch", batch_job(name, target, work, pod_template(name, target, work, native), scenario=scenario))]


def direct_objects(name, target, work, native):
    """Job ``name`` when the load test makes its pods: the pods alone (the shim makes their application)."""
    return direct_pods(name, target, work, pod_template(name, target, work, native))


def tenant_queue(tenant):
    """A tenant's queue path: its queue (tenant_queue_name) under root."""
    return "root." + tenant_queue_name(tenant)


def cluster_objects(scenario, jobs, target, capability, labels):
    """A scenario's objects: a PriorityClass per priority value; its queues are in its configuration, not objects
    (config_queues)."""
    return priority_classes(scenario, jobs, labels)


def config_queues(scenario, capability):
    """The queues a scenario adds under its root (its queues.yaml, at deploy time): per tenant, in name order, its
    tenant queue with its weight's part of ``capability``'s CPU guaranteed (tenant_quotas) and ``capability`` as its
    max (its extended resources, such as nvidia.com/gpu, under their own names). None (the burst) adds none.

    Only the CPU is guaranteed, the resource a scenario's tenants divide: yunikorn-core v1.6 takes preemption victims
    only from a queue over its guarantee in every guaranteed resource, so a memory guarantee that CPU-bound pods never
    exceed would keep it from ever preempting (measured: docs/scenarios.md)."""
    if not scenario:
        return []
    # Its configuration is made at deploy time from bench_queue_quota's CPU and memory: the GPUs are the cluster's.
    capability = dict(capability, **{name: str(count) for name, count in extended_totals(scenario["cluster"]).items()})
    quotas = tenant_quotas(scenario["tenants"], capability)
    limit = dict({"vcore": str(capability["cpu"]), "memory": str(capability["memory"])},
                 **{name: str(value) for name, value in capability.items() if name not in ("cpu", "memory")})
    return [{"name": tenant_queue_name(tenant), "submitacl": "*", "resources": {
        "guaranteed": {"vcore": quotas[tenant]["cpu"]}, "max": dict(limit)}}
        for tenant in sorted(quotas)]
