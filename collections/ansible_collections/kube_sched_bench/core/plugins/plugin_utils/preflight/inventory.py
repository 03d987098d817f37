# -*- coding: utf-8 -*-
"""An inventory a run cannot start on, in one line: one that does not exist or does not parse, one without a host,
and a limit that matches no host of it. ``inventory_problem`` is the rule (playbooks/python.yml's first play and
plugin_utils/runner/bench.run both use it); ``source_failure`` asks Ansible's own inventory plugins why a source did
not parse, the way ansible-playbook tried it."""
from __future__ import annotations

import os
import re

from ansible import constants as C
from ansible.inventory.data import InventoryData
from ansible.inventory.manager import IGNORED
from ansible.parsing.dataloader import DataLoader
from ansible.plugins.loader import inventory_loader

# Which plugin's complaint to show for a file that every plugin refused: the one its name says it is written for.
PLUGIN_OF_SUFFIX = {".yml": "yaml", ".yaml": "yaml", ".toml": "toml", ".ini": "ini", "": "ini"}


def is_host_list(source):
    """Ansible's other inventory form: hosts separated by commas ("node1,node2," or "node1,")."""
    return "," in source and not os.path.exists(source)


def shown(source, cwd=None):
    """A source as the user typed it: relative to the working directory when it is inside it."""
    if is_host_list(source):
        return source
    relative = os.path.relpath(source, cwd or os.getcwd())
    return source if relative.startswith("..") else relative


def _first_line(error):
    """An inventory plugin's error in one line: its first line, with where in the file when it says."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    if not lines:
        return type(error).__name__
    where = re.search(r"^Origin: .*?:(\d+)(?::(\d+))?$", str(error), re.M)
    return lines[0].rstrip(".") + (" (line %s)" % where.group(1) if where else "")


def file_failure(path, loader=None):
    """Why no enabled inventory plugin parses the file at ``path``, or None when one does."""
    loader = loader or DataLoader()
    complaints = {}
    for name in C.INVENTORY_ENABLED:
        plugin = inventory_loader.get(name)
        try:
            wanted = plugin is not None and plugin.verify_file(path)
        except Exception:   # noqa: BLE001 - as Ansible's inventory manager: a plugin that cannot tell declines
            wanted = False
        if not wanted:
            continue
        try:
            plugin.parse(InventoryData(), loader, path, cache=False)
            return None
        except Exception as error:  # noqa: BLE001 - any plugin's failure is a reason to show
            complaints[name.split(".")[-1]] = _first_line(error)
    if not complaints:
        return "no inventory plugin accepts it (enabled: %s)" % ", ".join(C.INVENTORY_ENABLED)
    preferred = PLUGIN_OF_SUFFIX.get(os.path.splitext(path)[1].lower())
    return complaints.get(preferred) or next(iter(complaints.values()))


def source_failure(source, loader=None):
    """Why the inventory source ``source`` (a path, or a comma-separated host list) gives no inventory, or None."""
    if is_host_list(source):
        return None
    if not os.path.exists(source):
        return "does not exist"
    if not os.path.isdir(source):
        return file_failure(source, loader)
    entries = [name for name in sorted(os.listdir(source)) if not IGNORED.search(name.encode("utf-8"))]
    failures = []
    for name in entries:
        failure = source_failure(os.path.join(source, name), loader)
        if failure is None:
            return None
        failures.append("%s %s" % (name, failure))
    return failures[0] if failures else "is a directory without an inventory file"


def inventory_problem(sources, hosts, failure=source_failure, cwd=None):
    """The one line saying why a run cannot start on the inventory of ``sources`` (ansible_inventory_sources) that
    gave ``hosts`` (every host of it, groups['all']); '' when it has a host."""
    if hosts:
        return ""
    named = ", ".join(shown(source, cwd) for source in sources) or "(none given)"
    for source in sources:
        why = failure(source)
        if why == "does not exist":
            parent = os.path.dirname(source.rstrip(os.sep)) or "."
            near = sorted(name for name in os.listdir(parent) if not name.startswith(".")) if os.path.isdir(parent) else []
            return "Inventory %s does not exist%s: give -i an inventory file or directory" % (
                shown(source, cwd), " (%s/ holds %s)" % (shown(parent, cwd), ", ".join(near)) if near else "")
        if why is not None:
            return "Inventory %s does not parse: %s" % (shown(source, cwd), why)
    return ("Inventory %s has no host: bench.yml runs on every host of its inventory; list at least one under "
            "all.hosts (inventories/lab/hosts.yml shows how)" % named)


def limit_problem(limit, matched, sources, cwd=None):
    """The one line for a --limit that matches no host of the inventory; '' when it matches one."""
    if not limit or matched:
        return ""
    return "--limit %s matches no host of inventory %s" % (limit, ", ".join(shown(source, cwd) for source in sources))
