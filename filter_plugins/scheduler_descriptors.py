# -*- coding: utf-8 -*-
"""The scheduler descriptors (module_utils/schedulers/) for the plays and roles.

``name | scheduler_descriptor`` is one scheduler's descriptor; ``key | scheduler_catalog`` maps every scheduler
whose ``key`` is set to that value (``'build' | scheduler_catalog``: what the binary runtime builds);
``runtime | runtime_schedulers`` lists the schedulers a runtime deploys (bench_schedulers' default);
``name | scheduler_profile(profile)`` the settings of a scheduler's profile (bench_scheduler_profile);
``name | scheduler_topology(scenario)`` how it ran a scenario's topology constraints (None: the scenario has none).
"""
from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers as descriptors


def scheduler_descriptor(name):
    """The descriptor of scheduler ``name``."""
    try:
        return descriptors.get(str(name))
    except ValueError as exc:
        raise AnsibleFilterError(str(exc)) from exc


def scheduler_catalog(key, subkey=None):
    """{scheduler: descriptor[key]} for every scheduler whose ``key`` is set, in the descriptors' order; with
    ``subkey``, {scheduler: descriptor[key][subkey]} for those whose ``key`` has it."""
    if key not in descriptors.KEYS and key not in descriptors.OPTIONAL_KEYS:
        raise AnsibleFilterError("%r is no descriptor key; keys: %s" % (key, ", ".join(descriptors.KEYS)))
    values = {name: descriptors.get(name)[key] for name in descriptors.with_key(key)}
    if subkey is None:
        return values
    return {name: value[subkey] for name, value in values.items() if subkey in value}


def runtime_schedulers(runtime):
    """The schedulers whose descriptor says ``runtime`` deploys them, in the descriptors' order; every scheduler for
    a runtime that is not one (the check of bench_runtime then says so in its own words)."""
    return list(descriptors.on_runtime(runtime) if runtime in descriptors.RUNTIMES else descriptors.NAMES)


def scheduler_profile(name, chosen, record=False):
    """{setting: value} of scheduler ``name`` under profile ``chosen`` (bench_scheduler_profile; empty under seed);
    with ``record``, what env.json records of it: its name and each setting with the upstream page it follows."""
    try:
        return descriptors.profile_record(str(name), str(chosen)) if record else descriptors.profile(str(name), str(chosen))
    except ValueError as exc:
        raise AnsibleFilterError(str(exc)) from exc


def scheduler_topology(name, scenario):
    """How scheduler ``name`` runs the topology constraints of ``scenario`` (its descriptor's topology mechanism, or
    "unsupported: <why>"); None when the scenario (None: the burst) has none. env.json records it."""
    try:
        return descriptors.topology_record(str(name), scenario)
    except ValueError as exc:
        raise AnsibleFilterError(str(exc)) from exc


class FilterModule:
    def filters(self):
        return {"scheduler_descriptor": scheduler_descriptor, "scheduler_catalog": scheduler_catalog,
                "runtime_schedulers": runtime_schedulers, "scheduler_profile": scheduler_profile,
                "scheduler_topology": scheduler_topology}
