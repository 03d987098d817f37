# -*- coding: utf-8 -*-
"""The checks of the bench_* values that depend on the schedulers' descriptors: which schedulers there are, which
runtime deploys which, who takes the pods the load test makes itself, and where kube-scheduler's knobs apply. The
rules of each value alone are module_utils/knobs/rules.py. No I/O here."""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils import runtimes
from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers as descriptors
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.rules import (
    DIRECT,
    RULES,
    RUNTIMES,
    as_number,
    rule_problem,
)
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.table import BY_NAME, KNOBS

# bench_schedulers' values: the schedulers with a descriptor (module_utils/schedulers/).
SCHEDULERS = descriptors.NAMES
# The schedulers that cannot take pods the load test creates itself, and why (their descriptors' direct_pods).
NO_DIRECT_PODS = {name: descriptors.get(name)["direct_pods"] for name in descriptors.with_key("direct_pods")}
DIRECT_POD_SCHEDULERS = tuple(name for name in SCHEDULERS if name not in NO_DIRECT_PODS)
# The schedulers each runtime can deploy (roles/scheduler/tasks/<scheduler>/<runtime>.yml).
RUNTIME_SCHEDULERS = {runtime: descriptors.on_runtime(runtime) for runtime in RUNTIMES}

# The knobs of kube-scheduler's configuration file (its builds' too), whose defaults are upstream's: the binary
# runtime writes the file; the cluster's own kube-scheduler of the other runtimes (kind's static pod, configured by
# flags, or an external cluster's) runs with upstream's values, so only those are allowed where it binds the pods.
KUBE_SCHEDULER_KNOBS = tuple(knob.name for knob in KNOBS if knob.name.startswith("kube_scheduler_"))
CONFIGURED_KUBE_SCHEDULER_RUNTIMES = runtimes.with_capability("configures_kube_scheduler")
# The schedulers whose pods the cluster's own kube-scheduler binds (no pod scheduler name of their own).
CLUSTER_BOUND = tuple(name for name in SCHEDULERS if descriptors.get(name)["pod_scheduler_name"] is None)


def kube_scheduler_problems(values, label="%s"):
    """One sentence per kube-scheduler knob of ``values`` (unprefixed names, with runtime and schedulers) set away
    from upstream's value on a runtime whose own kube-scheduler binds some of the schedulers' pods."""
    runtime, schedulers = values.get("runtime"), values.get("schedulers")
    if runtime in CONFIGURED_KUBE_SCHEDULER_RUNTIMES or not isinstance(schedulers, (list, tuple)):
        return []
    bound = [name for name in schedulers if name in CLUSTER_BOUND]
    out = []
    for name in KUBE_SCHEDULER_KNOBS:
        upstream = BY_NAME[name].default
        if not bound or name not in values or rule_problem(RULES[name], values[name]) is not None:
            continue
        if as_number(values[name], int) != upstream:
            out.append("%s=%s is not supported on the %s runtime with %s: the cluster's own kube-scheduler binds "
                       "their pods, with upstream's value; leave it at %s" % (
                           label % name, values[name], runtime, ", ".join(bound), upstream))
    return out


# The runtimes that render each scheduler's configuration themselves, where bench_scheduler_profile may be another
# than seed (the others apply each release's configuration as it ships).
PROFILE_RUNTIMES = runtimes.with_capability("scheduler_profiles")


def profile_problems(values, label="%s"):
    """One sentence when ``values`` (unprefixed names) choose a scheduler profile other than seed on a runtime that
    does not render the schedulers' configurations itself; a value outside the rule is said by the rules."""
    profile, runtime = values.get("scheduler_profile", descriptors.SEED), values.get("runtime")
    if profile == descriptors.SEED or profile not in descriptors.PROFILES or runtime not in RUNTIMES:
        return []
    if runtime in PROFILE_RUNTIMES:
        return []
    return ["%s=%s is not supported on the %s runtime: only %s renders each scheduler's configuration from a profile "
            "(the others apply each release's as it ships); use %s" % (
                label % "scheduler_profile", profile, runtime, ", ".join(PROFILE_RUNTIMES), descriptors.SEED)]


def pod_creation_problems(pod_creation, schedulers, label="%s"):
    """One sentence per scheduler of ``schedulers`` that cannot take its pods the way ``pod_creation`` makes them."""
    if pod_creation != DIRECT:
        return []
    return ["%s=%s is not supported by %s: %s" % (label % "pod_creation", DIRECT, name, NO_DIRECT_PODS[name])
            for name in schedulers if name in NO_DIRECT_PODS]
