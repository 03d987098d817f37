# -*- coding: utf-8 -*-
"""What a run prints for each cluster it keeps (bench_keep_cluster): the kubeconfig, one kubectl command that works
as pasted, and the command that stops it.

``kept | kept_cluster_help(hosts, inventories, python)``: ``kept`` is the list of what each host recorded
(run-scheduler.yml's bench_kept_cluster); the other arguments are the play's (how many hosts it has, its inventory
sources, the controller's Python). The text comes from ``help_text``, which does no I/O.
"""
from __future__ import annotations

import os
import shlex

from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.table import BY_NAME

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The Makefile's INVENTORY, and how bench_workspace's default names the host's $HOME.
DEFAULT_INVENTORY = os.path.join("inventories", "local")
HOME = "{{ ansible_env.HOME }}"


def default_workspace(home):
    """bench_workspace's default for a host whose $HOME is ``home``."""
    return BY_NAME["workspace"].default.replace(HOME, home)


def shown_path(path, here):
    """``path`` relative to ``here`` when it lies below it (as a user would type it), else as it is."""
    relative = os.path.relpath(path, here)
    return path if relative.startswith("..") else relative


def kubectl_command(kept, alone, inventories, ansible, config=None):
    """The command that lists the kept cluster's nodes: kubectl itself on a host that is the controller and the
    play's only host, else an ad-hoc Ansible command that runs it on the host the inventory names (raw: no Python
    needed there, as a host whose only Python is too old has none that Ansible can use without the run's
    bootstrap), with the project's ansible.cfg, ``config``, when it is not in the working directory."""
    command = shlex.join([kept["kubectl"], "--kubeconfig", kept["kubeconfig"], "get", "nodes"])
    if alone and kept["local"]:
        return command
    sources = [part for source in inventories for part in ("-i", source)]
    prefix = "ANSIBLE_CONFIG=%s " % shlex.quote(config) if config else ""
    return prefix + shlex.join([ansible, kept["host"]] + sources + ["-m", "raw", "-a", command])


def stop_command(kept, inventories, project, here):
    """`make teardown` (run in the project, where make finds its Makefile), with what the host's run needs that the
    Makefile's defaults do not give."""
    command = ["make"] + ([] if os.path.abspath(here) == os.path.abspath(project) else ["-C", project])
    command.append("teardown")
    if inventories != [os.path.join(project, DEFAULT_INVENTORY)]:
        command.append("INVENTORY=" + " -i ".join(shown_path(source, project) for source in inventories))
    args = []
    if kept["runtime"] != BY_NAME["runtime"].default:
        args += ["-e", "bench_runtime=" + kept["runtime"]]
    if kept["workspace"] != default_workspace(kept["home"]):
        args += ["-e", "bench_workspace=" + kept["workspace"]]
    if args:
        command.append("ARGS=" + shlex.join(args))
    return shlex.join(command)


def help_text(kept_clusters, hosts, inventories, project, here, ansible):
    """The lines for every kept cluster, one block per host. ``inventories``: absolute paths; ``here``: where the
    user is (the controller's working directory)."""
    shown = [shown_path(source, here) for source in inventories]
    elsewhere = os.path.abspath(here) != os.path.abspath(project)
    config = os.path.join(project, "ansible.cfg") if elsewhere else None
    lines = []
    for kept in kept_clusters:
        where = "" if kept["local"] else " (on %s)" % kept["host"]
        lines += [
            "%s: the cluster of %s (%s runtime) is kept running (bench_keep_cluster)." % (
                kept["host"], kept["scheduler"], kept["runtime"]),
            "  kubeconfig: %s%s" % (kept["kubeconfig"], where),
            "  use it:     " + kubectl_command(kept, hosts == 1, shown, ansible, config),
            "  stop it:    " + stop_command(kept, inventories, project, here),
        ]
    return "\n".join(lines)


def kept_cluster_help(kept_clusters, hosts, inventories, python):
    """help_text for this project, with the controller's working directory and the ``ansible`` beside its
    ansible-playbook (``python``: ansible_playbook_python)."""
    ansible = os.path.join(os.path.dirname(python), "ansible")
    inventories = [os.path.abspath(source) for source in inventories]
    return help_text(list(kept_clusters), int(hosts), inventories, PROJECT, os.getcwd(),
                     ansible if os.access(ansible, os.X_OK) else "ansible")


class FilterModule:
    def filters(self):
        return {"kept_cluster_help": kept_cluster_help}
