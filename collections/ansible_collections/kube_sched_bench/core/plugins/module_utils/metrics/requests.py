# -*- coding: utf-8 -*-
"""Who asked the API server what during a load test, from its audit log: requests by component (named by the
client's user agent and user), verb and resource, per bound pod, and the peak of requests in flight.
docs/metrics.md ("Who asks the API server what") defines each figure.

Every request the API server answered has one ResponseComplete event in the log (the audit policy logs every
request at least at Metadata level: metrics/audit_policies.AUDIT_POLICY). A line is read with a few regular expressions
instead of a JSON parser: this reads every line of the log, most of which the pod timing skips. The fields
read come before the request and response objects in the API server's encoding (objectRef) or after them
(the two timestamps, read from the end), so an object's content cannot be mistaken for them.
"""
from __future__ import annotations

import re

from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.audit import format_time_us, parse_time_us
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.components import per_pod

_STAGE = re.compile(r'"stage":"([A-Za-z]+)"')
_VERB = re.compile(r'"verb":"([a-z]+)"')
_USER = re.compile(r'"user":\{"username":"((?:[^"\\]|\\.)*)"')
_AGENT = re.compile(r'"userAgent":"((?:[^"\\]|\\.)*)"')
_REF = re.compile(r'"objectRef":\{([^{}]*)\}')
_RESOURCE = re.compile(r'"resource":"([^"]*)"')
_SUBRESOURCE = re.compile(r'"subresource":"([^"]*)"')
_RECEIVED = re.compile(r'"requestReceivedTimestamp":"([^"]+)"')
_STAGE_TIME = re.compile(r'"stageTimestamp":"([^"]+)"')
# Long-running requests: in flight for as long as they watch, not counted in the peak.
LONG_RUNNING = ("watch",)
TOP_PER_COMPONENT = 5
TOP_OVERALL = 10
# Who a component is, by its program: the scheduler's own (its processes' names, given), the rest of the control
# plane, the fake nodes, the load test; anything else is "other".
SCHEDULER, CONTROL_PLANE, KWOK, LOADGEN, OTHER = "scheduler", "control plane", "kwok", "load generator", "other"
ROLES = (SCHEDULER, CONTROL_PLANE, KWOK, LOADGEN, OTHER)
PROGRAM_ROLES = {"kube-apiserver": CONTROL_PLANE, "kube-controller-manager": CONTROL_PLANE, "kwok": KWOK,
                 "sched-bench-loadgen": LOADGEN}


def role(name, scheduler_programs):
    """The role of a component (``component``'s name) given the scheduler's programs."""
    program = name.split("/")[0]
    if program in scheduler_programs:
        return SCHEDULER
    return PROGRAM_ROLES.get(program, OTHER)


def component(user_agent, user):
    """The component a request came from: the program of its user agent, with the controller's name that
    client-go adds after the build (kube-controller-manager/job-controller); the user when there is no agent.

    A client-go agent reads "<program>/<version> (<os>/<arch>) kubernetes/<commit>[/<controller>]"."""
    if not user_agent:
        return user or "unknown"
    parts = user_agent.split("/")
    program = parts[0].strip() or user or "unknown"
    if len(parts) >= 5 and " kubernetes" in parts[2]:
        return "%s/%s" % (program, parts[-1].strip())
    return program


def parse_line(line):
    """(component, user, verb, resource, received_us, completed_us) of a ResponseComplete audit line, else None."""
    stage = _STAGE.search(line)
    if stage is None or stage.group(1) != "ResponseComplete":
        return None
    verb, ref = _VERB.search(line), _REF.search(line)
    user, agent = _USER.search(line), _AGENT.search(line)
    received, completed = _last(_RECEIVED, line), _last(_STAGE_TIME, line)
    if verb is None or completed is None:
        return None
    resource = ""
    if ref is not None:
        found = _RESOURCE.search(ref.group(1))
        sub = _SUBRESOURCE.search(ref.group(1))
        resource = (found.group(1) if found else "") + ("/" + sub.group(1) if sub else "")
    username = user.group(1) if user else ""
    completed_us = parse_time_us(completed)
    return (component(agent.group(1) if agent else "", username), username, verb.group(1), resource or "(none)",
            parse_time_us(received) if received else completed_us, completed_us)


def _last(pattern, line):
    """The field near the end of the line (after the objects), else anywhere in it."""
    found = pattern.search(line, max(0, len(line) - 600)) or pattern.search(line)
    return found.group(1) if found else None


class RequestCounts:
    """Counts the requests completed within [from_us, to_us] as audit lines are added."""

    def __init__(self, from_us, to_us, scheduler_programs=()):
        self.from_us, self.to_us = from_us, to_us
        self.scheduler_programs = frozenset(scheduler_programs)
        self.by_component = {}   # component -> {(verb, resource): count}
        self.users = {}          # component -> set of users
        self.spans = []          # (received, completed) of the requests that are not long-running
        self.lines = 0

    def add_line(self, line):
        self.lines += 1
        request = parse_line(line)
        if request is None:
            return
        name, user, verb, resource, received, completed = request
        if not self.from_us <= completed <= self.to_us:
            return
        counts = self.by_component.setdefault(name, {})
        counts[(verb, resource)] = counts.get((verb, resource), 0) + 1
        self.users.setdefault(name, set()).add(user)
        if verb not in LONG_RUNNING:
            self.spans.append((max(received, self.from_us), completed))

    def summary(self, bound_pods):
        """summary.json's ``api_requests``."""
        components = []
        overall = {}
        for name, counts in self.by_component.items():
            total = sum(counts.values())
            for key, count in counts.items():
                overall[key] = overall.get(key, 0) + count
            top = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:TOP_PER_COMPONENT]
            components.append({"component": name, "role": role(name, self.scheduler_programs),
                               "users": sorted(self.users.get(name, ())), "requests": total,
                               "per_bound_pod": per_pod(total, bound_pods),
                               "top": [{"verb": verb, "resource": resource, "requests": count}
                                       for (verb, resource), count in top]})
        components.sort(key=lambda entry: (-entry["requests"], entry["component"]))
        total = sum(entry["requests"] for entry in components)
        by_role = {}
        for entry in components:
            by_role[entry["role"]] = by_role.get(entry["role"], 0) + entry["requests"]
        return {
            "from": format_time_us(self.from_us),
            "to": format_time_us(self.to_us),
            "window_s": round((self.to_us - self.from_us) / 1e6, 3),
            "requests": total,
            "per_bound_pod": per_pod(total, bound_pods),
            "inflight_peak": inflight_peak(self.spans),
            "by_role": {name: {"requests": count, "per_bound_pod": per_pod(count, bound_pods)}
                        for name, count in sorted(by_role.items(), key=lambda item: ROLES.index(item[0]))},
            "by_component": components,
            "by_verb_resource": [{"verb": verb, "resource": resource, "requests": count,
                                  "per_bound_pod": per_pod(count, bound_pods)}
                                 for (verb, resource), count in sorted(overall.items(),
                                                                       key=lambda item: (-item[1], item[0]))
                                 [:TOP_OVERALL]],
        }


def inflight_peak(spans):
    """The most requests in flight at once: a sweep over their (received, completed) times, a completion before an
    arrival at the same microsecond."""
    events = sorted([(start, 1) for start, _ in spans] + [(end, -1) for _, end in spans])
    peak = current = 0
    for _, change in events:
        current += change
        peak = max(peak, current)
    return peak


def count_requests(paths, from_us, to_us, bound_pods, scheduler_programs=()):
    """summary.json's ``api_requests`` from the audit log files (oldest first)."""
    counts = RequestCounts(from_us, to_us, scheduler_programs)
    for path in paths:
        with open(path, "r", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                counts.add_line(line)
    return counts.summary(bound_pods)
