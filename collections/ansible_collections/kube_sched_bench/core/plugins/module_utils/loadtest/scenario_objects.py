# -*- coding: utf-8 -*-
"""The objects of a scenario besides its jobs (sched_workloads.cluster_objects: PriorityClasses, the schedulers'
queues and priority classes): created by the load test before its jobs, deleted after them (the namespaced
ones with the test's namespace). Needs the Python kubernetes client."""
from __future__ import annotations

import time

from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.client import drain, error_text, is_status, read_json
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.workloads import (
    CLUSTER_APIS,
    QUEUES_TO_OPEN,
    SCENARIO_NAMESPACED_APIS,
)


def create(custom, objects, acquire):
    """Create ``objects`` ([(api, body)]) in order; return the (api, name) of each cluster-scoped one created, what
    ``delete`` removes. Raises on the first failure, with those created so far in the exception's ``created``."""
    created = []
    for api, body in objects:
        acquire()
        try:
            if api in SCENARIO_NAMESPACED_APIS:
                group, version, plural = SCENARIO_NAMESPACED_APIS[api]
                drain(custom.create_namespaced_custom_object(group, version, body["metadata"]["namespace"], plural, body,
                                                             _preload_content=False))
            else:
                group, version, plural = CLUSTER_APIS[api]
                drain(custom.create_cluster_custom_object(group, version, plural, body, _preload_content=False))
        except Exception as exc:  # noqa: BLE001 - the client raises many types; reported with what was made
            error = RuntimeError("could not create %s %s: %s" % (body["kind"], body["metadata"]["name"],
                                                                 error_text(exc)))
            error.created = created
            raise error from exc
        if api in CLUSTER_APIS:     # the namespaced ones go with the test's namespace
            created.append((api, body["metadata"]["name"]))
    return created


def wait_open(custom, created, deadline):
    """Wait until every queue of ``created`` whose scheduler refuses jobs until it is Open (QUEUES_TO_OPEN) is
    Open; return None or the queues still not open at the deadline."""
    waiting = [(api, name) for api, name in created if api in QUEUES_TO_OPEN]
    while waiting:
        state = {}
        for api, name in waiting:
            group, version, plural = CLUSTER_APIS[api]
            queue = read_json(custom.get_cluster_custom_object(group, version, plural, name, _preload_content=False))
            state[name] = (queue.get("status") or {}).get("state")
        waiting = [(api, name) for api, name in waiting if state[name] != "Open"]
        if not waiting:
            break
        if time.monotonic() > deadline:
            return "queues %s did not open: %s" % (", ".join(name for _, name in waiting), state)
        time.sleep(0.5)
    return None


def delete(custom, created):
    """Delete what ``create`` made, newest first; return one sentence per object left, or an empty list."""
    problems = []
    for api, name in reversed(created):
        group, version, plural = CLUSTER_APIS[api]
        try:
            drain(custom.delete_cluster_custom_object(group, version, plural, name, _preload_content=False))
        except Exception as exc:  # noqa: BLE001 - the client raises many types; each is checked by status or reported
            if not is_status(exc, 404):
                problems.append("%s %s: %s" % (api, name, error_text(exc)))
    return problems
