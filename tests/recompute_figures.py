"""The rest of the second opinion of tests/recompute.py: the breakdown, utilization, stalls, fair-share series and
steady figures of scenario_metrics, and the run's own figures (counts, submission rate, held backlog, the stage that
limited it, unsupported, checks), each from the result's files by docs/metrics.md's definitions, not from the
toolkit's code. Times in microseconds; ``jobs`` and ``pods`` as recompute.load gives them."""
import math

import recompute

US = 1_000_000
STAGES = ("admitted", "first_pod_created", "first_bound", "all_bound")
# docs/metrics.md, `unsupported`: what each scheduler expresses natively.
EXPRESSES = {"default": {"priority"}, "coscheduling": {"gang", "priority"}, "kueue": {"fair_share", "priority"},
             "volcano": {"gang", "fair_share", "priority"}, "yunikorn": {"gang", "fair_share", "priority"}}
# docs/metrics.md, `throughput_limited_by.stage`: the schedulers whose pods appear only once admitted.
ADMITTING = {"kueue", "volcano"}
# docs/metrics.md, `checks[].verdict`: each threshold's feature (None: every scheduler is held to it).
FEATURE = {"stuck_partial_s": "gang", "stall_s": "gang", "fairness_error": "fair_share",
           "high_priority_wait_s": "priority", "latency_p99_ms": None, "rate_shortfall": None, "peak_cpu_share": None}
SUFFIX = {"m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30, "Ti": 2 ** 40}


def quantity(text):
    """A Kubernetes quantity ("4", "500m", "16Gi") as a number of units."""
    text = str(text)
    for suffix in sorted(SUFFIX, key=len, reverse=True):
        if text.endswith(suffix):
            return float(text[:-len(suffix)]) * SUFFIX[suffix]
    return float(text)


def breakdown(jobs, pods):
    stages = {stage: [] for stage in STAGES}
    unbound = []
    for job in jobs.values():
        mine = [pod for pod in pods if pod["job"] == job["name"]]
        reached = {"admitted": job["admitted"], "first_pod_created": min([pod["created"] for pod in mine], default=None),
                   "first_bound": min([pod["bound"] for pod in mine if pod["bound"] is not None], default=None),
                   "all_bound": recompute.all_bound(job, pods)}
        for stage, when in reached.items():
            if when is not None and job["created"] is not None:
                stages[stage].append(round((when - job["created"]) / 1000.0, 3))
        if reached["all_bound"] is None or job["created"] is None:
            unbound.append(job["name"])
    out = {stage + "_ms": recompute.latency(values) for stage, values in stages.items()}
    out.update(jobs=len(jobs), jobs_all_bound=len(jobs) - len(unbound), jobs_not_all_bound=unbound)
    return out


def held_at(jobs, pods, moment):
    """{node: [cpu, memory, pods]} held at ``moment`` and the names of the jobs holding something then."""
    used, holding = {}, set()
    for pod in pods:
        span = recompute.hold(pod, jobs[pod["job"]]) if pod["job"] in jobs else None
        if span and span[0] <= moment < span[1]:
            job = jobs[pod["job"]]
            room = used.setdefault(pod["node"], [0, 0, 0])
            room[0], room[1], room[2] = room[0] + job["cpu"], room[1] + job["memory"], room[2] + 1
            holding.add(job["name"])
    return used, holding


def node_sizes(cluster):
    """Each fake node's (millicores, memory bytes) in order: its pool's, or the one size of all."""
    pools = cluster.get("pools") or [{"count": cluster["nodes"], "cpu": cluster["node_cpu"], "memory": cluster["node_memory"]}]
    return [(quantity(pool["cpu"]) * 1000, quantity(pool["memory"])) for pool in pools for _ in range(pool["count"])]


def utilization(jobs, pods, cluster, start, end):
    sizes = node_sizes(cluster)
    cpu_total, memory_total = sum(size[0] for size in sizes), sum(size[1] for size in sizes)
    moments = sorted({start} | {pod["bound"] for pod in pods if pod["bound"] is not None and start <= pod["bound"] <= end})
    peak_cpu = peak_memory = 0
    for moment in moments:
        used = held_at(jobs, pods, moment)[0].values()
        peak_cpu, peak_memory = max(peak_cpu, sum(u[0] for u in used)), max(peak_memory, sum(u[1] for u in used))
    integral = 0
    for pod in pods:
        span = recompute.hold(pod, jobs[pod["job"]]) if pod["job"] in jobs else None
        if span:
            integral += jobs[pod["job"]]["cpu"] * max(0, min(span[1], end) - max(span[0], start))
    return {"peak_cpu_share": round(peak_cpu / cpu_total, 4), "peak_memory_share": round(peak_memory / memory_total, 4),
            "mean_cpu_share": round(integral / cpu_total / (end - start), 4) if end > start else None}


def first_full(job, pods, end):
    mine = [pod for pod in pods if pod["job"] == job["name"]]
    for moment in sorted({pod["bound"] for pod in mine if pod["bound"] is not None and pod["bound"] <= end}):
        if recompute.held_at(job, mine, moment) >= job["pods"]:
            return moment
    return None


def stalls(jobs, pods, cluster, start, end, stall_s):
    """docs/metrics.md's `stalls`: gaps >= stall_s between bindings (the window's ends count) when, stall_s before
    the gap's end, a waiting gang job fit the nodes' free room node by node."""
    node = (quantity(cluster["node_cpu"]) * 1000, quantity(cluster["node_memory"]), cluster["node_pods"])
    full = {job["name"]: first_full(job, pods, end) for job in jobs.values() if job["gang"]}
    edges = [start] + sorted(pod["bound"] for pod in pods if pod["bound"] is not None and start <= pod["bound"] <= end)
    found = []
    for begin, finish in zip(edges, edges[1:] + [end]):
        if finish - begin < stall_s * US:
            continue
        moment = finish - int(stall_s * US)
        used, holding = held_at(jobs, pods, moment)
        for job in jobs.values():
            if not job["gang"] or job["created"] is None or job["created"] > moment or job["name"] in holding \
                    or (full[job["name"]] is not None and full[job["name"]] <= moment):
                continue
            loads = list(used.values()) + [[0, 0, 0]] * (cluster["nodes"] - len(used))
            room = sum(max(0, min(int((node[0] - u[0]) // job["cpu"]), int((node[1] - u[1]) // job["memory"]),
                                  node[2] - u[2])) for u in loads)
            if room >= job["pods"]:
                found.append({"from_s": round((begin - start) / US, 3), "to_s": round((finish - start) / US, 3),
                              "job": job["name"]})
                break
    return {"stall_s": stall_s, "stalled": bool(found), "stalls": found}


def series(stretches, start):
    """docs/metrics.md's `series` from the fair-share stretches [(begin, finish, shares, targets)] with covered time."""
    seconds = {}
    for begin, finish, shares, targets in stretches:
        for second in range((begin - start) // US, (finish - start - 1) // US + 1):
            piece = min(finish, start + (second + 1) * US) - max(begin, start + second * US)
            entry = seconds.setdefault(second, [0, {}, {}])
            entry[0] += piece
            for tenant in shares:
                entry[1][tenant] = entry[1].get(tenant, 0.0) + piece * shares[tenant]
                entry[2][tenant] = entry[2].get(tenant, 0.0) + piece * targets[tenant]
    return [{"second": second, "shares": {t: round(v / part[0], 4) for t, v in part[1].items()},
             "targets": {t: round(v / part[0], 4) for t, v in part[2].items()}} for second, part in sorted(seconds.items())]


def steady(jobs, pods, start, warmup_s):
    to_s = max(job["arrival_s"] for job in jobs.values())
    begin, finish = start + round(warmup_s * US), start + round(to_s * US)
    out = {"window": {"from_s": warmup_s, "to_s": to_s, "warmup_s": warmup_s}, "latency_ms": recompute.latency([]),
           "pods_unbound": None, "offered_pods_per_s": None, "bound_pods_per_s": None}
    if finish <= begin:
        return out
    length = (finish - begin) / US
    made = [pod for pod in pods if begin <= pod["created"] < finish]
    out.update(latency_ms=recompute.latency([(pod["bound"] - pod["created"]) / 1000.0 for pod in made
                                             if pod["bound"] is not None]),
               pods_unbound=sum(pod["bound"] is None for pod in made),
               offered_pods_per_s=round(sum(job["pods"] for job in jobs.values() if warmup_s <= job["arrival_s"] < to_s)
                                        / length, 3),
               bound_pods_per_s=round(sum(1 for pod in pods if pod["bound"] is not None and begin <= pod["bound"] < finish)
                                      / length, 3))
    return out


def features(jobs, scenario):
    found = {"gang"} if any(job["gang"] for job in jobs.values()) else set()
    if len(scenario["tenants"]) > 1:
        found.add("fair_share")
    if len({job["priority"] for job in jobs.values()}) > 1:
        found.add("priority")
    return found


def check(name, limit, metrics):
    """(measured, verdict) of one threshold by docs/metrics.md's `checks[]`, before `unsupported` is applied."""
    gang, steady_ = metrics.get("gang") or {}, metrics.get("steady") or {}
    if name in ("stuck_partial_s", "stall_s"):
        count = len(gang.get("stuck_partial_jobs" if name == "stuck_partial_s" else "stalls") or [])
        return count, "missed" if count else "met"
    if name == "high_priority_wait_s":
        priority = metrics.get("priority") or {}
        longest = (priority.get("high_priority_wait_ms") or {}).get("max")
        measured = round(longest / 1000.0, 6) if longest is not None else None
        if priority.get("high_priority_unbound_jobs"):
            return measured, "missed"
        return measured, "unchecked" if longest is None else ("missed" if longest > limit * 1000 else "met")
    if name == "rate_shortfall":
        offered, bound = steady_.get("offered_pods_per_s"), steady_.get("bound_pods_per_s")
        if offered is None or bound is None:
            return None, "unchecked"
        return (round(1 - bound / offered, 4) if offered else None), "missed" if bound < offered * (1 - limit) else "met"
    measured = {"fairness_error": (metrics.get("fair_share") or {}).get("fairness_error"),
                "latency_p99_ms": (steady_.get("latency_ms") or {}).get("p99"),
                "peak_cpu_share": (metrics.get("utilization") or {}).get("peak_cpu_share")}[name]
    if measured is None:
        return None, "unchecked"
    missed = measured < limit if name == "peak_cpu_share" else measured > limit
    return measured, "missed" if missed else "met"


def checks(scenario, metrics, unsupported):
    out = []
    for name in FEATURE:
        if name in scenario["thresholds"]:
            limit = scenario["thresholds"][name]
            measured, verdict = check(name, limit, metrics)
            out.append({"threshold": name, "measured": measured, "limit": limit,
                        "verdict": "unsupported" if FEATURE[name] in unsupported else verdict})
    return out


def expected_pods(scenario):
    return sum(sum(row["pods_per_job"] for row in group["trace"]) if group.get("trace")
               else group["jobs"] * group["pods_per_job"] for phase in scenario["phases"] for group in phase["groups"])


def events(scenario):
    return {event["event"]: recompute.micros(event["at"]) for event in scenario.get("events", [])}


def backlog(jobs, pods, release):
    held = [job["held_created"] for job in jobs.values() if job["held_created"] is not None]
    held_pods = [pod["held_created"] for pod in pods if pod["held_created"] is not None]
    return {"release": recompute.text(release), "pods_held": len(held_pods), "jobs_held": len(held),
            "created_from": recompute.text(min(held + held_pods)) if held + held_pods else None,
            "created_until": recompute.text(max(held + held_pods)) if held + held_pods else None,
            "bound_before_release": sum(1 for pod in pods if pod["bound"] is not None and pod["bound"] < release)}


def timeline(pods, start):
    """timeline.csv's rows from pods.csv."""
    created, bound = {}, {}
    for pod in pods:
        second = max(0, (pod["created"] - start) // US)
        created[second] = created.get(second, 0) + 1
        if pod["bound"] is not None:
            second = max(0, (pod["bound"] - start) // US)
            bound[second] = bound.get(second, 0) + 1
    rows, made, placed = [], 0, 0
    for second in range(max(list(created) + list(bound)) + 1 if created or bound else 0):
        made, placed = made + created.get(second, 0), placed + bound.get(second, 0)
        rows.append({"second": second, "created": created.get(second, 0), "created_total": made,
                     "bound": bound.get(second, 0), "bound_total": placed, "backlog": made - placed})
    return rows


def limited_by(rows, makespan, bound_s, window_s, made_by):
    """throughput_limited_by without its evidence; ``made_by``: the stage the scheduler's pods came from, or
    "held backlog" when every pod existed at the release."""
    if not rows or not makespan:
        return {"stage": None, "backlog_max": None, "backlog_mean": None, "created_per_s": None, "bound_per_s": None}
    creating = [row["second"] for row in rows if row["created"]]
    created_per_s = rows[-1]["created_total"] / (creating[-1] - creating[0] + 1) if creating else None
    bound_per_s = rows[-1]["bound_total"] / makespan
    mean = sum(row["backlog"] for row in rows) / len(rows)
    if bound_s and bound_s >= 0.5 * makespan:
        stage = "capacity"
    elif window_s and window_s >= 0.5 * makespan:
        stage = "submission"
    elif made_by == "held backlog":
        stage = "scheduling"
    else:
        stage = made_by if mean <= 1.0 * bound_per_s else "scheduling"
    return {"stage": stage, "backlog_max": max(row["backlog"] for row in rows), "backlog_mean": round(mean, 3),
            "created_per_s": round(created_per_s, 3) if created_per_s else None, "bound_per_s": round(bound_per_s, 3)}


def run_figures(jobs, pods, scenario, summary, start, makespan):
    """The run's own figures; ``summary`` gives only the inputs docs/metrics.md lists as measured outside the
    files (scheduler, workload, makespan_bound)."""
    moments = events(scenario)
    window_s = ((moments["submit_end"] - moments["submit_start"]) / US
                if "submit_end" in moments and "submit_start" in moments else None)
    out = {"pods_expected": expected_pods(scenario), "pods_created": len(pods),
           "pods_bound": sum(pod["bound"] is not None for pod in pods),
           "pods_completed": sum(pod["completed"] is not None for pod in pods), "jobs_submitted": len(jobs),
           "submit_rate_jobs_per_s": round(len(jobs) / window_s, 3) if window_s else None,
           "start": recompute.text(start), "scenario": scenario["name"], "scenario_scale": scenario.get("scale", 1)}
    bound = sorted(pod["bound"] for pod in pods if pod["bound"] is not None)
    out["end"] = recompute.text(bound[-1]) if bound else None
    release = moments.get("release")
    out["backlog"] = backlog(jobs, pods, release) if release is not None else None
    seconds = summary["makespan_bound"]["seconds"]
    out["efficiency"] = round(seconds / makespan, 3) if seconds and makespan else None
    if release is not None and out["backlog"]["pods_held"] == len(pods):
        made_by = "held backlog"
    elif summary["workload"]["pod_creation"] == "direct":
        made_by = "submission"
    else:
        made_by = "admission" if summary["scheduler"] in ADMITTING else "pod creation"
    out["throughput_limited_by"] = limited_by(timeline(pods, start), makespan, seconds,
                                              None if release is not None else window_s, made_by)
    out["unsupported"] = sorted(features(jobs, scenario) - EXPRESSES[summary["scheduler"]])
    return out


def close(ours, theirs):
    return math.isclose(ours, theirs, rel_tol=1e-6, abs_tol=2e-4)
