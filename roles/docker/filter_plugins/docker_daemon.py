# -*- coding: utf-8 -*-
"""daemon.json as the docker role writes it: the role's settings merged into the file already there.

A host's daemon.json often holds keys the role knows nothing of (a runtime and the default
runtime, an address pool, a data root) or entries a person added (an insecure registry of
the lab). Overwriting the file would drop them and restart Docker without them, so the role
merges instead: ``docker_daemon_merge(existing, ours)``

- keys only in the file stay as they are;
- objects (``log-opts``, ``runtimes``...) merge key by key, the role's value winning;
- lists (``insecure-registries``, ``registry-mirrors``...) keep the file's entries and add
  the role's after them, without duplicates;
- any other value: the role's wins.

Pure functions; the role reads the file, this filter merges, the role writes the result.
"""
from __future__ import annotations

import json

from ansible.errors import AnsibleFilterError


def merge(existing, ours):
    """The merged daemon configuration (both arguments dicts; neither is changed)."""
    result = dict(existing)
    for key, value in ours.items():
        before = result.get(key)
        if isinstance(before, dict) and isinstance(value, dict):
            result[key] = merge(before, value)
        elif isinstance(before, list) and isinstance(value, list):
            result[key] = before + [item for item in value if item not in before]
        else:
            result[key] = value
    return result


def parse(text, path="/etc/docker/daemon.json"):
    """The object in a daemon.json's text ({} for an empty file); a clear error for anything else."""
    if not text.strip():
        return {}
    try:
        doc = json.loads(text)
    except ValueError as err:
        raise AnsibleFilterError("%s is not valid JSON (%s): fix or remove it, the docker role merges into it" % (path, err)) from err
    if not isinstance(doc, dict):
        raise AnsibleFilterError("%s holds a JSON %s, not an object: fix or remove it, the docker role merges into it"
                                 % (path, type(doc).__name__))
    return doc


def docker_daemon_merge(existing_text, ours, path="/etc/docker/daemon.json"):
    """Jinja filter: the text of a daemon.json (may be empty) merged with the role's settings."""
    if not isinstance(ours, dict):
        raise AnsibleFilterError("docker_daemon_merge: the settings must be a dict, not %s" % type(ours).__name__)
    return merge(parse(existing_text or "", path), ours)


class FilterModule:
    def filters(self):
        return {"docker_daemon_merge": docker_daemon_merge}
