# -*- coding: utf-8 -*-
"""The schedulers: one module per scheduler in this package, the one place that says what the toolkit knows of it
and how its workload is made (docs/adding-a-scheduler.md). Each module holds its descriptor, DESCRIPTOR, a dict of
data, and its workload forms, functions (FORMS) that build its jobs, pod groups, queues and scenario objects on the
generic builders (module_utils/objects/builders.py), with the api names of the objects they make (API_TABLES). A new
scheduler is a new module here, listed in the import below: the load-test module runs on each host, where Ansible
ships only the module_utils a module imports by name. Beside them: views.py, the metric views the descriptors share,
and knob_checks.py, the checks of the bench_* values that read the descriptors.

Every other part reads them and none branches on a scheduler's name: knob_checks.py (the scheduler names, what each
runtime can deploy, who takes bare pods), cluster/capacity.py (queues, whole jobs, admission), the load test's
workloads.py (each scheduler's forms, its pod scheduler name, queues, native features), the version matrix (pins),
the scheduler_components role (what to build) and the scheduler role (releases, names, the scheduler_queues filter).
No I/O here.
"""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils import runtimes
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.table import BY_NAME
from ansible_collections.kube_sched_bench.core.plugins.module_utils.schedulers import coscheduling, default, kueue, volcano, yunikorn

# In the order reports and lists show them: the baseline first.
MODULES = {module.DESCRIPTOR["name"]: module for module in (default, kueue, volcano, yunikorn, coscheduling)}
DESCRIPTORS = {name: module.DESCRIPTOR for name, module in MODULES.items()}
NAMES = tuple(DESCRIPTORS)

# bench_runtime's values (module_utils/runtimes/).
RUNTIMES = runtimes.NAMES
FEATURES = ("gang", "fair_share", "priority")
# Every key a descriptor has, and what it holds (the check below and docs/adding-a-scheduler.md follow it).
KEYS = {
    "name": "its name in bench_schedulers, results/ and its task folder roles/scheduler/tasks/<name>/",
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
    "internals": "the series of its processes' metrics that explain it, {process: [view, ...]} "
                 "(metrics/internals.py), read around every load test into summary.json's internals",
    "local": "binary runtime: what the shared steps (roles/scheduler/tasks/binary.yml) do around its own file "
             "<name>/binary.yml, which starts its processes: LOCAL_KEYS (None: it does not run as local processes)",
    "hold": "bench_arrival=backlog, binary runtime: how it is held until the release (sched_hold.py): processes (the "
            "pid-file names of the processes stopped) or stop_policy (group/version/plural of the queues set to Hold), "
            "and backlog, the group/version/plural of the objects one per job that make the backlog when its pods "
            "appear only after the release (omitted: the pods)",
}
# What a descriptor's local holds (only processes is needed), in the order the shared steps use them.
LOCAL_KEYS = {
    "processes": "the pid-file names of the processes its own file starts, in the order recorded",
    "ports": "the names of its listeners' ports, picked free before anything starts (scheduler_ports.<name>)",
    "crds": "the folders of its CRDs, relative to its Go module",
    "namespace": "whether its descriptor's namespace is created before its processes start",
    "webhooks": "its admission webhooks, served with a certificate of the cluster CA: manifest (the file of their "
                "configurations, relative to its Go module), port (a port name), optional prefix (put before their "
                "names) and first (registered before its processes start; otherwise once they are ready)",
    "init": "whether its init objects, <name>/init.yml, are created once its processes and webhooks are",
    "pprof": "the port name where it serves net/http/pprof (http, the local address); omitted: the profile its own "
             "file records, as kube-scheduler.yml does",
    "metrics": "its processes' metrics endpoints, [{process, port (a port name), path}] (http, the local address), "
               "besides those its own file records",
}
# Keys only some descriptors have: the scheduler's own settings its task files read, and "knobs", the variables
# only it reads ({name: meaning}), which the check for unknown variables accepts.
OPTIONAL_KEYS = ("partition", "web_port", "plugin_config", "knobs", "admitted_phase", "audited_jobs",
                 "job_name_label", "placeholder_annotations", "profiles", "topology")
# A descriptor's "topology": how it keeps a job's pods in one domain of a topology level when a scenario's group asks
# (docs/scenarios.md#topology-constraints): {"mechanism": its name, "source": the upstream page it follows, and
# optionally "gives_up": {feature: why}, the features it cannot express beside it} or {"unsupported": why}. Without the
# key it is unsupported, and says so (TOPOLOGY_UNDECLARED).
TOPOLOGY_KEYS = ("mechanism", "source", "gives_up", "feature_gates", "unsupported")
UNSUPPORTED = "unsupported"
TOPOLOGY_UNDECLARED = "its descriptor declares no topology mechanism"
# bench_scheduler_profile's values; the first, seed, is the configuration as each release ships it. A descriptor's
# "profiles" gives, for each other profile it has, {setting: {"value", "source" (the upstream page that recommends
# it), "what"}}, read where its configuration is rendered; a scheduler without one runs every profile as seed.
PROFILES = BY_NAME["scheduler_profile"].rule
SEED = PROFILES[0]
PROFILE_SETTING_KEYS = ("value", "source", "what")


# Every workload form a scheduler's module may have, {name: (when it must have it, what it returns)}: functions of
# ``name`` (the job's), ``target`` (builders.Target), ``work`` (the job's workload values), ``native`` (the job's
# builders.Native), ``scenario`` (whether a scenario's job, not the burst's) and, for a scenario's objects, its
# ``jobs``, the queues' ``capability`` ({cpu, memory}) and the ``labels`` of its objects. Each returns new objects.
FORMS = {
    "pod_template": ("always", "the pod template of job name, whoever creates its pods"),
    "job_objects": ("always", "[(api, body)]: the objects of job name when its controller makes its pods "
                              "(name, target, work, native, scenario), a group first"),
    "direct_objects": ("direct_pods empty", "[(api, body)]: the objects of job name when the load test makes its pods "
                                            "(bench_pod_creation=direct): a group first, then the pods"),
    "cluster_objects": ("always", "[(api, body)]: a scenario's objects besides its jobs, made before them "
                                  "(scenario, jobs, target, capability, labels)"),
    "tenant_queue": ("fair_share in features", "a scenario tenant's queue, the queue of its jobs (tenant)"),
    "config_queues": ("never", "the queues a scenario adds to its own configuration at deploy time (scenario, "
                               "capability; the scheduler_queues filter); without it, none"),
}
# The api names of the objects its forms make, module attributes {api name: (group, version, plural)}: CUSTOM_APIS
# (namespaced, its jobs' own), CLUSTER_APIS (cluster-scoped, its scenarios'), SCENARIO_NAMESPACED_APIS (namespaced,
# its scenarios'); and QUEUES_TO_OPEN, the api names among CLUSTER_APIS it refuses jobs into until their
# status.state is Open. Each optional.
API_TABLES = ("CUSTOM_APIS", "CLUSTER_APIS", "SCENARIO_NAMESPACED_APIS", "QUEUES_TO_OPEN")


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
    # What a scheduler with a version of its own must describe to run on each of its runtimes (a build, a release).
    needs = [(runtime, runtimes.get(runtime)["scheduler_needs"]) for runtime in descriptor.get("runtimes", ())
             if runtime in RUNTIMES]
    out += ["scheduler %s: the %s runtime needs a %s" % (name, runtime, need)
            for runtime, need in needs if descriptor.get("version") and need and not descriptor.get(need)]
    return (out + _local_problems(name, descriptor.get("local"), descriptor) + _profile_problems(name, descriptor)
            + _topology_problems(name, descriptor.get("topology")))


def _topology_problems(name, topology):
    """What is wrong with a descriptor's topology (TOPOLOGY_KEYS): a mechanism with its upstream page, or why not."""
    if topology is None:
        return []
    out = ["scheduler %s: the topology key %s is unknown" % (name, key) for key in topology if key not in TOPOLOGY_KEYS]
    if bool(topology.get("mechanism")) == bool(topology.get("unsupported")):
        out.append("scheduler %s: topology names either its mechanism or why it is unsupported, not both" % name)
    if topology.get("mechanism") and not str(topology.get("source", "")).startswith("https://"):
        out.append("scheduler %s: topology mechanism %s names no https page as its source" % (name, topology["mechanism"]))
    out += ["scheduler %s: topology gives up feature %s, which is unknown (use %s)" % (name, feature, ", ".join(FEATURES))
            for feature in topology.get("gives_up") or () if feature not in FEATURES]
    return out


def _profile_problems(name, descriptor):
    """What is wrong with a descriptor's profiles: a profile bench_scheduler_profile does not offer (or seed, which
    is the configuration as it ships), a setting without its value, upstream page or meaning."""
    out = []
    for profile, settings in (descriptor.get("profiles") or {}).items():
        if profile not in PROFILES[1:]:
            out.append("scheduler %s: profile %s is unknown (use %s)" % (name, profile, ", ".join(PROFILES[1:])))
            continue
        out += ["scheduler %s: profile %s setting %s lacks %s" % (name, profile, setting, key)
                for setting, entry in settings.items() for key in PROFILE_SETTING_KEYS if key not in entry]
        out += ["scheduler %s: profile %s setting %s names no https page as its source" % (name, profile, setting)
                for setting, entry in settings.items() if not str(entry.get("source", "")).startswith("https://")]
    return out


def _local_problems(name, local, descriptor):
    """What is wrong with a descriptor's local (LOCAL_KEYS); its processes are those held and explained."""
    if local is None:
        return []
    out = ["scheduler %s: the local key %s is unknown" % (name, key) for key in local if key not in LOCAL_KEYS]
    processes = local.get("processes") or []
    if not processes:
        out.append("scheduler %s: local names no processes" % name)
    named = [("hold", process) for process in (descriptor.get("hold") or {}).get("processes", ())]
    named += [("internals", process) for process in descriptor.get("internals") or {}]
    named += [("local metrics", entry.get("process")) for entry in local.get("metrics", ())]
    out += ["scheduler %s: %s names the process %s, which local does not start" % (name, where, process)
            for where, process in named if process not in processes]
    return out


def get(name):
    """The descriptor of scheduler ``name``; ValueError naming the known ones when there is none."""
    if name not in DESCRIPTORS:
        raise ValueError("scheduler %r has no descriptor; known: %s" % (name, ", ".join(NAMES)))
    return DESCRIPTORS[name]


def profile(name, chosen):
    """{setting: value} of scheduler ``name`` under profile ``chosen`` (bench_scheduler_profile): empty for seed
    and for a scheduler without that profile, which then runs as with seed."""
    settings = (get(name).get("profiles") or {}).get(chosen) or {}
    return {setting: entry["value"] for setting, entry in settings.items()}


def profile_record(name, chosen):
    """What env.json records of the profile scheduler ``name`` ran with: its name and each setting applied, with the
    upstream page it follows (none under seed)."""
    settings = (get(name).get("profiles") or {}).get(chosen) or {}
    return {"name": chosen, "settings": [dict({"setting": setting}, **entry) for setting, entry in settings.items()]}


def topology_mechanism(name):
    """(mechanism, why): how scheduler ``name`` keeps a job's pods in one topology domain (its descriptor's
    topology), or (UNSUPPORTED, why it cannot)."""
    topology = get(name).get("topology") or {"unsupported": TOPOLOGY_UNDECLARED}
    return (topology["mechanism"], "") if topology.get("mechanism") else (UNSUPPORTED, topology["unsupported"])


def topology_record(name, scenario):
    """How scheduler ``name`` ran the jobs of ``scenario`` whose group asks for a topology, as env.json records it:
    its mechanism (topology_mechanism), "unsupported: <why>", or None when no group of the scenario (None: the
    burst) asks for one."""
    if not scenario or not any(group.get("topology") for phase in scenario["phases"] for group in phase["groups"]):
        return None
    mechanism, why = topology_mechanism(name)
    return "%s: %s" % (mechanism, why) if why else mechanism


def with_key(key):
    """The names of the schedulers whose ``key`` is set (true, non-empty), in NAMES order."""
    return tuple(name for name, descriptor in DESCRIPTORS.items() if descriptor.get(key))


def on_runtime(runtime):
    """The names of the schedulers ``runtime`` can deploy."""
    return tuple(name for name, descriptor in DESCRIPTORS.items() if runtime in descriptor["runtimes"])


def forms(name):
    """The module of scheduler ``name``, whose functions are its workload forms (FORMS); ValueError naming the
    known ones when there is none."""
    get(name)
    return MODULES[name]


def form_problems(name):
    """What a scheduler's module lacks of the forms it needs (FORMS), one sentence each (empty when nothing)."""
    descriptor, module = get(name), MODULES[name]
    needed = {"always": True, "never": False, "direct_pods empty": not descriptor["direct_pods"],
              "fair_share in features": "fair_share" in descriptor["features"]}
    return ["scheduler %s: its module has no %s (%s)" % (name, form, meaning)
            for form, (when, meaning) in FORMS.items() if needed[when] and not callable(getattr(module, form, None))]


def gathered(table):
    """Every scheduler module's ``table`` (one of API_TABLES), in NAMES order: a dict's items merged, a tuple's
    values joined."""
    parts = [getattr(module, table) for module in MODULES.values() if hasattr(module, table)]
    if all(isinstance(part, dict) for part in parts):
        return {api: where for part in parts for api, where in part.items()}
    return tuple(api for part in parts for api in part)


# The annotations that mark a scheduler's placeholder pods (its stand-ins, no job's pods): descriptors'
# placeholder_annotations.
PLACEHOLDER_ANNOTATIONS = tuple(key for descriptor in DESCRIPTORS.values()
                                for key in descriptor.get("placeholder_annotations") or ())


def is_placeholder(meta):
    """Whether pod metadata is a scheduler's placeholder's (its stand-in, not a job's pod)."""
    annotations = meta.get("annotations") or {}
    return any(annotations.get(key) == "true" for key in PLACEHOLDER_ANNOTATIONS)


def own_version(name):
    """Whether scheduler ``name`` has a version of its own, not the control plane's kube-scheduler's (its
    descriptor's version set); a name without a descriptor (an older run's) is taken to have one."""
    return name not in DESCRIPTORS or DESCRIPTORS[name]["version"] is not None
