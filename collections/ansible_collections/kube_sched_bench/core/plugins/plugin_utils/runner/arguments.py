# -*- coding: utf-8 -*-
"""run()'s arguments checked before ansible-runner starts anything: each one that no run can start with raises
BenchArgumentError (a ValueError) naming the argument and what is allowed, in one line (docs/ci-and-python.md,
"From Python")."""
from __future__ import annotations

import contextlib
import glob
import io
import os
import shlex
from collections.abc import Mapping

from ansible.inventory.manager import InventoryManager
from ansible.parsing.dataloader import DataLoader
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.preflight.inventory import (
    inventory_problem,
    is_host_list,
    limit_problem,
    source_failure,
)


class BenchArgumentError(ValueError):
    """An argument of run() that no run can start with; ``argument`` is its name."""

    def __init__(self, argument, message):
        super().__init__("%s: %s" % (argument, message))
        self.argument = argument


def inventory_source(inventory):
    """The inventory as ansible-runner gets it: a path made absolute (the run starts in the project), a host list
    as is."""
    if not isinstance(inventory, (str, os.PathLike)) or not str(inventory).strip():
        raise BenchArgumentError("inventory", "%r is not an inventory: give the path of an inventory file or "
                                              "directory, such as inventories/local" % (inventory,))
    inventory = os.fspath(inventory)
    return inventory if is_host_list(inventory) else os.path.abspath(inventory)


def limit_of(cmdline):
    """The --limit (-l) that ``cmdline`` gives ansible-playbook, or ''."""
    words = shlex.split(cmdline or "")
    for index, word in enumerate(words):
        if word in ("--limit", "-l") and index + 1 < len(words):
            return words[index + 1]
        if word.startswith("--limit="):
            return word.split("=", 1)[1]
        if word.startswith("-l") and len(word) > 2:
            return word[2:]
    return ""


def check_inventory(source, cmdline):
    """BenchArgumentError when the inventory ``source`` does not parse, has no host, or ``cmdline``'s limit matches
    none of its hosts: the same lines as the first play of bench.yml."""
    if is_host_list(source):
        return
    failure = source_failure(source)
    hosts, matched, limit = [], [], limit_of(cmdline)
    if failure is None:
        # Ansible's own warnings for what the line below says in full are not shown.
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            manager = InventoryManager(loader=DataLoader(), sources=[source])
            hosts = manager.get_hosts("all")
            if limit:
                manager.subset(limit)
                matched = manager.get_hosts("all")
    problem = inventory_problem([source], hosts, failure=lambda _: failure)
    if problem:
        raise BenchArgumentError("inventory", problem)
    problem = limit_problem(limit, matched, [source])
    if problem:
        raise BenchArgumentError("cmdline", problem)


def check_playbook(playbook, project):
    if not isinstance(playbook, str) or not os.path.isfile(os.path.join(project, playbook)):
        known = ["bench.yml"] + sorted(os.path.relpath(path, project)
                                       for path in glob.glob(os.path.join(project, "playbooks", "*.yml")))
        raise BenchArgumentError("playbook", "%r is not a playbook of %s: give one of %s"
                                             % (playbook, project, ", ".join(known)))


def check_private_data_dir(path):
    """An existing directory this user can read and write (ansible-runner keeps its artifacts there and creates
    none), or None for a temporary one."""
    if path is None:
        return
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise BenchArgumentError("private_data_dir", "%r is not a directory path" % (path,))
    path = os.path.abspath(os.fspath(path))
    if not os.path.isdir(path):
        raise BenchArgumentError("private_data_dir", "%s is %s: give an existing directory, or None for a temporary "
                                                     "one" % (path, "not a directory" if os.path.exists(path)
                                                              else "missing"))
    if not os.access(path, os.R_OK | os.W_OK | os.X_OK):
        raise BenchArgumentError("private_data_dir", "%s is not readable and writable by this user" % path)


def check_values(extravars, on_event, cmdline, timeout, envvars):
    """The arguments whose type alone says whether a run can start with them."""
    if extravars is not None and not isinstance(extravars, Mapping):
        raise BenchArgumentError("extravars", "a mapping of variable to value (such as {'bench_jobs': 50}) or "
                                              "None, not %s" % type(extravars).__name__)
    if envvars is not None and not isinstance(envvars, Mapping):
        raise BenchArgumentError("envvars", "a mapping of environment variable to value or None, not %s"
                                            % type(envvars).__name__)
    if on_event is not None and not callable(on_event):
        raise BenchArgumentError("on_event", "a function of one BenchEvent or None, not %s" % type(on_event).__name__)
    if cmdline is not None and not isinstance(cmdline, str):
        raise BenchArgumentError("cmdline", "ansible-playbook's extra arguments as one string or None, not %s"
                                            % type(cmdline).__name__)
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0):
        raise BenchArgumentError("timeout", "seconds above 0 or None, not %r" % (timeout,))
