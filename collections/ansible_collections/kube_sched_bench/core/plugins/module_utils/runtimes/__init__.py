# -*- coding: utf-8 -*-
"""The runtimes: one module per runtime in this package, the one place that says what a runtime can do and needs
(docs/architecture.md#the-runtime-contract). Each module holds its descriptor, DESCRIPTOR, a dict of data; its task
files are playbooks/tasks/runtimes/<name>/, one per entry point. A new runtime is a new module here, listed in the
import below (the load-test module ships only the module_utils it imports by name), and its folder of task files.

Every other part reads them and none compares a runtime's name (tests/lint/test_runtime_files.py): bench_runtime's
rule (module_utils/knobs/table.py), the schedulers' runtimes, the held backlog, the kube-scheduler knobs, the disk
check, and the plays through the runtime_has and runtime_descriptor filters (filter_plugins/runtime_descriptors.py).
Imports nothing of the collection: every package may read it. No I/O here.
"""
from __future__ import annotations

import string

from ansible_collections.kube_sched_bench.core.plugins.module_utils.runtimes import binary, external, kind

# In the order the docs and the knob's rule show them: the default first.
DESCRIPTORS = {module.DESCRIPTOR["name"]: module.DESCRIPTOR for module in (binary, kind, external)}
NAMES = tuple(DESCRIPTORS)

# The entry points every runtime implements, one task file each under playbooks/tasks/runtimes/<name>/.
ENTRY_POINTS = ("start", "stop", "remove")
# The entry points a runtime has when its descriptor's entries name them, and who includes them.
OPTIONAL_ENTRY_POINTS = {
    "check": "its own checks, before anything changes (roles/bench/tasks/validate.yml, after the version set)",
    "prepare": "the host's preparation, once per host before any scheduler (playbooks/benchmark.yml)",
    "finish": "what its prepare started and a kept cluster does not need, stopped after the host's last scheduler "
              "(playbooks/benchmark.yml)",
    "teardown": "what it leaves beside the processes with pid files, removed by playbooks/teardown.yml",
}
# Every key a descriptor has, and what it holds (the check below and docs/architecture.md follow it).
KEYS = {
    "name": "its name: bench_runtime's value and the folder of its task files",
    "entries": "the optional entry points it has (OPTIONAL_ENTRY_POINTS)",
    "local_control_plane": "whether the control plane is the toolkit's processes, built at the version set's pins "
                           "(the binary_cluster role's cluster bench); otherwise that role runs kwok alone (bench-kwok)",
    "scheduler_needs": "the scheduler descriptor key a scheduler with a version of its own needs to run on it "
                       "(build, release; None: it deploys none)",
    "holds_backlog": "whether it can hold a scheduler until the release (bench_arrival=backlog: its processes are "
                     "the toolkit's)",
    "configures_kube_scheduler": "whether it writes kube-scheduler's configuration file (the kube_scheduler_* knobs)",
    "scheduler_profiles": "whether it renders each scheduler's configuration itself, so that bench_scheduler_profile "
                          "may choose another profile than seed (the scheduler descriptors' profiles)",
    "host_audit_log": "whether the API server's audit log is on the host, read and kept with the results",
    "kept_cluster_kubectl": "whether a kept cluster (bench_keep_cluster) needs kubectl installed beside it",
    "disk": "what it writes besides the results, for the disk check: etcd (the path key of etcd's data, None: "
            "none) and images ((path key, what, the preflight role's figure), ...)",
    "guard_commands": "argv lists the run's guard runs should the run die, besides stopping the processes with pid "
                      "files (module_utils/host/guard.py); {name} is the play's variable name",
    "guard_defaults": "the value of a guard command's {name} when the play has no such variable",
}
# The keys runtime_has reads: true or false for each runtime.
CAPABILITIES = ("local_control_plane", "holds_backlog", "configures_kube_scheduler", "scheduler_profiles",
                "host_audit_log", "kept_cluster_kubectl")
# The path keys of disk: the run's workspace, the build cache, Docker's data-root.
DISK_PATHS = ("workspace", "cache_dir", "docker_root")


def problems(descriptor):
    """What is wrong with a descriptor, one sentence each (empty when nothing is)."""
    name = descriptor.get("name", "?")
    out = ["runtime %s: the descriptor has no %s" % (name, key) for key in KEYS if key not in descriptor]
    out += ["runtime %s: the descriptor key %s is unknown" % (name, key) for key in descriptor if key not in KEYS]
    out += ["runtime %s: entry point %s is unknown (use %s)" % (name, entry, ", ".join(OPTIONAL_ENTRY_POINTS))
            for entry in descriptor.get("entries", ()) if entry not in OPTIONAL_ENTRY_POINTS]
    out += ["runtime %s: %s is not true or false" % (name, key)
            for key in CAPABILITIES if key in descriptor and not isinstance(descriptor[key], bool)]
    disk = descriptor.get("disk") or {}
    paths = [disk.get("etcd")] + [image[0] for image in disk.get("images", ())]
    out += ["runtime %s: disk path %s is unknown (use %s)" % (name, path, ", ".join(DISK_PATHS))
            for path in paths if path is not None and path not in DISK_PATHS]
    return out


def get(name):
    """The descriptor of runtime ``name``; ValueError naming the known ones when there is none."""
    if name not in DESCRIPTORS:
        raise ValueError("runtime %r has no descriptor; known: %s" % (name, ", ".join(NAMES)))
    return DESCRIPTORS[name]


def has(name, what):
    """Whether runtime ``name`` has capability ``what`` (CAPABILITIES) or optional entry point ``what``."""
    if what in OPTIONAL_ENTRY_POINTS:
        return what in get(name)["entries"]
    if what not in CAPABILITIES:
        raise ValueError("%r is no runtime capability nor entry point; use %s"
                         % (what, ", ".join(CAPABILITIES + tuple(OPTIONAL_ENTRY_POINTS))))
    return get(name)[what]


def with_capability(what):
    """The names of the runtimes that have ``what`` (see ``has``), in NAMES order."""
    return tuple(name for name in NAMES if has(name, what))


def guard_variables(name):
    """The play variables runtime ``name``'s guard commands name, sorted."""
    return sorted({field for argv in get(name)["guard_commands"] for word in argv
                   for field in _fields(word)})


def guard_commands(name, values):
    """Runtime ``name``'s guard commands with their {name}s filled from ``values`` (empty or missing: the
    descriptor's guard_defaults)."""
    descriptor = get(name)
    filled = dict(descriptor["guard_defaults"], **{key: value for key, value in (values or {}).items() if value})
    return [[word.format(**filled) for word in argv] for argv in descriptor["guard_commands"]]


def _fields(word):
    return [field for _, field, _, _ in string.Formatter().parse(word) if field]
