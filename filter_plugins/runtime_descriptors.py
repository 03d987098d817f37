# -*- coding: utf-8 -*-
"""The runtime descriptors (module_utils/runtimes/) for the plays and roles, so that none compares a runtime's name.

``bench_runtime | runtime_has('holds_backlog')`` says whether the runtime has a capability or an optional entry point
(``runtime_has('prepare')``: it has playbooks/tasks/runtimes/<name>/prepare.yml); ``bench_runtime |
runtime_descriptor`` is its whole descriptor; ``bench_runtime | runtime_guard_variables`` names the play variables
its guard commands read and ``bench_runtime | runtime_guard_commands(values)`` fills them in.
"""
from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible_collections.kube_sched_bench.core.plugins.module_utils import runtimes


def _call(function, *args):
    try:
        return function(*args)
    except ValueError as exc:
        raise AnsibleFilterError(str(exc)) from exc


def runtime_descriptor(name):
    """The descriptor of runtime ``name``."""
    return _call(runtimes.get, str(name))


def runtime_has(name, what):
    """Whether runtime ``name`` has capability or optional entry point ``what``."""
    return _call(runtimes.has, str(name), str(what))


def runtime_guard_variables(name):
    """The play variables runtime ``name``'s guard commands read."""
    return _call(runtimes.guard_variables, str(name))


def runtime_guard_commands(name, values):
    """Runtime ``name``'s guard commands, filled from ``values`` ({variable: value})."""
    return _call(runtimes.guard_commands, str(name), values)


class FilterModule:
    def filters(self):
        return {"runtime_descriptor": runtime_descriptor, "runtime_has": runtime_has,
                "runtime_guard_variables": runtime_guard_variables, "runtime_guard_commands": runtime_guard_commands}
