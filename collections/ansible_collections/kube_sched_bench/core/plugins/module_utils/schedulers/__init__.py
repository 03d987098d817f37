# -*- coding: utf-8 -*-
"""The scheduler descriptors: one module per scheduler in this package, the one place that says what the toolkit
knows of it (docs/adding-a-scheduler.md). A new scheduler is a new module here, listed in the import below: the
load-test module runs on each host, where Ansible ships only the module_utils a module imports by name.

Every other part reads them: sched_rules (the scheduler names, what each runtime can deploy, who takes bare
pods), sched_capacity (queues, whole jobs, admission), sched_workloads (pod scheduler names, queues, native
features), the version matrix (pins), the scheduler_components role (what to build) and the scheduler role
(releases, names). No I/O here.
"""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.table import BY_NAME
from ansible_collections.kube_sched_bench.core.plugins.module_utils.schedulers import coscheduling, default, kueue, volcano, yunikorn

# In the order reports and lists show them: the baseline first.
DESCRIPTORS = {module.DESCRIPTOR["name"]: module.DESCRIPTOR
               for module in (default, kueue, volcano, yunikorn, coscheduling)}
NAMES = tuple(DESCRIPTORS)

# bench_runtime's values (module_utils/sched_knobs.py).
RUNTIMES = BY_NAME["runtime"].rule
FEATURES = ("gang", "fair_share", "priority")
# Every key a descriptor has, and what it holds (the check below and docs/adding-a-scheduler.md follow it).
KEYS = {
    "name": "its name in bench_schedulers, results/ and the task files <runtime>-<name>.yml",
    "version": "its version pin (None: the control plane's kube-scheduler)",
    "runtimes": "the runtimes that can deploy it",
    "pod_scheduler_name": "the spec.schedulerName of its pods (None: the default scheduler binds them)",
    "queue": "the queue the burst's jobs go to (None: no queue)",
    "namespace": "the namespace of its own objects (None: none)",
    "features": "what it expresses natively of a scenario: gang, fair_share, priority",
    "queue_quota": "whether bench_queue_quota caps its queues",
    "whole_job": "whether it starts a job's pods together (its capacity counts in jobs)",
    "admission": "what it does to admit a job before its pods exist (None: nothing holds the job)",
    "direct_pods": "why it cannot take pods the load test creates itself (empty: it can)",
    "build": "binary runtime: its Go module, commands (binary: package), version_vars and optional source_edits, "
             "graph_only",
    "release": "kind runtime: manifest_url (a URL template with {version}), or chart, chart_repository, module_path; "
               "optional without_containers ({container name: why}: left out of the release's pods) and crd_path (where "
               "in the module the CRDs are that a chart from the module links to)",
    "ready": "what tells the toolkit it is ready, per runtime",
    "hold": "bench_arrival=backlog, binary runtime: how it is held until the release (sched_hold.py): processes (the "
            "pid-file names of the processes stopped) or stop_policy (group/version/plural of the queues set to Hold), "
            "and backlog, the group/version/plural of the objects one per job that make the backlog when its pods "
            "appear only after the release (omitted: the pods)",
}
# Keys only some descriptors have: the scheduler's own settings its task files read, and "knobs", the variables
# only it reads ({name: meaning}), which the check for unknown variables accepts.
OPTIONAL_KEYS = ("partition", "web_port", "plugin_config", "knobs", "admitted_phase", "audited_jobs",
                 "job_name_label", "placeholder_annotations")


def problems(descriptor):
    """What is wrong with a descriptor, one sentence each (empty when nothing is)."""
    name = descriptor.get("name", "?")
    out = ["scheduler %s: the descriptor has no %s" % (name, key) for key in KEYS if key not in descriptor]
    out += ["scheduler %s: the descriptor key %s is unknown" % (name, key)
            for key in descriptor if key not in KEYS and key not in OPTIONAL_KEYS]
    out += ["scheduler %s: runtime %s is unknown (use %s)" % (name, runtime, ", ".join(RUNTIMES))
            for runtime in descriptor.get("runtimes", ()) if runtime not in RUNTIMES]
    out += ["scheduler %s: feature %s is unknown (use %s)" % (name, feature, ", ".join(FEATURES))
            for feature in descriptor.get("features", ()) if feature not in FEATURES]
    if descriptor.get("version") and "binary" in descriptor.get("runtimes", ()) and not descriptor.get("build"):
        out.append("scheduler %s: the binary runtime needs a build" % name)
    if descriptor.get("version") and "kind" in descriptor.get("runtimes", ()) and not descriptor.get("release"):
        out.append("scheduler %s: the kind runtime needs a release" % name)
    return out


def get(name):
    """The descriptor of scheduler ``name``; ValueError naming the known ones when there is none."""
    if name not in DESCRIPTORS:
        raise ValueError("scheduler %r has no descriptor; known: %s" % (name, ", ".join(NAMES)))
    return DESCRIPTORS[name]


def with_key(key):
    """The names of the schedulers whose ``key`` is set (true, non-empty), in NAMES order."""
    return tuple(name for name, descriptor in DESCRIPTORS.items() if descriptor.get(key))


def on_runtime(runtime):
    """The names of the schedulers ``runtime`` can deploy."""
    return tuple(name for name, descriptor in DESCRIPTORS.items() if runtime in descriptor["runtimes"])
