"""A second opinion: the figures of a result directory recomputed from its files alone (pods.csv, jobs.csv,
scenario.json), by the definitions of docs/metrics.md, without the toolkit's code.

Written from the document, not from module_utils: it evaluates every quantity afresh on each stretch between two
events instead of updating running totals, and rounds only where the document says."""
import csv
import datetime
import gzip
import io
import json
import math
import os
import re

import recompute_figures as figures
import recompute_placement

US = 1_000_000
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def micros(text):
    """RFC 3339 in UTC with microseconds -> integer microseconds since the epoch; None for an empty cell."""
    if not text:
        return None
    moment = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
    delta = moment - EPOCH
    return (delta.days * 86400 + delta.seconds) * US + delta.microseconds


def text(us):
    """Integer microseconds since the epoch -> RFC 3339 in UTC with microseconds; None for None."""
    if us is None:
        return None
    return (EPOCH + datetime.timedelta(microseconds=us)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def rows(directory, name):
    path = os.path.join(directory, name + ".gz")
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return list(csv.DictReader(io.StringIO(handle.read())))


def load(directory):
    """(jobs, pods, scenario) of a result directory, with times in microseconds."""
    with open(os.path.join(directory, "scenario.json"), encoding="utf-8") as handle:
        scenario = json.load(handle)
    jobs = {}
    for row in rows(directory, "jobs.csv"):
        jobs[row["job"]] = {"name": row["job"], "tenant": row["tenant"], "priority": int(row["priority"]),
                            "gang": row["gang"] == "true", "pods": int(row["pods"]),
                            "cpu": int(row["pod_millicores"]), "memory": int(row["pod_memory_bytes"]),
                            "duration_us": int(round(float(row["pod_duration"]) * US)),
                            "arrival_s": float(row["arrival_s"]), "created": micros(row["created"]),
                            "admitted": micros(row["admitted"]), "held_created": micros(row.get("held_created"))}
    pods = []
    for row in rows(directory, "pods.csv"):
        deleted = micros(row["ended"]) if row["how_ended"] in ("preempted", "deleted") else None
        pods.append({"name": row["pod"], "job": row["job"], "node": row["node"], "created": micros(row["created"]),
                     "bound": micros(row["bound"]), "deleted": deleted, "how_ended": row["how_ended"],
                     "completed": micros(row.get("completed")), "held_created": micros(row.get("held_created"))})
    return jobs, pods, scenario


def nearest_rank(values, q):
    ordered = sorted(values)
    return ordered[max(1, math.ceil(round(q * len(ordered), 9))) - 1]


def latency(values):
    if not values:
        return {key: None for key in ("p50", "p90", "p99", "max", "mean")}
    out = {"p%d" % (q * 100): round(nearest_rank(values, q), 3) for q in (0.5, 0.9, 0.99)}
    out.update(max=round(max(values), 3), mean=round(sum(values) / len(values), 3))
    return out


def hold(pod, job):
    """[from, to) during which a bound pod holds its requests, or None."""
    if pod["bound"] is None:
        return None
    end = pod["bound"] + job["duration_us"]
    if pod["deleted"] is not None:
        end = min(end, pod["deleted"])
    return pod["bound"], end


def is_preempted(pod, job):
    return pod["bound"] is not None and pod["deleted"] is not None and pod["deleted"] < pod["bound"] + job["duration_us"]


def window(jobs, pods):
    created = [job["created"] for job in jobs.values() if job["created"] is not None]
    events = created + [t for pod in pods for t in (pod["created"], pod["bound"], pod["deleted"]) if t is not None]
    return (min(created) if created else min(events)), max(events)


def all_bound(job, pods):
    kept = sorted(pod["bound"] for pod in pods if pod["job"] == job["name"] and pod["bound"] is not None
                  and not is_preempted(pod, job))
    return kept[job["pods"] - 1] if len(kept) >= job["pods"] else None


def held_at(job, pods, moment):
    """Pods of ``job`` holding at ``moment`` (a stretch starting there)."""
    count = 0
    for pod in pods:
        span = hold(pod, job) if pod["job"] == job["name"] else None
        if span and span[0] <= moment < span[1]:
            count += 1
    return count


def top_level(jobs, pods):
    """makespan_s, throughput, peak and latency_ms."""
    start = run_start(jobs, pods)
    bound = sorted(pod["bound"] for pod in pods if pod["bound"] is not None)
    makespan = (bound[-1] - start) / US
    throughput = round(len(bound) / makespan, 3)
    most = max(sum(1 for other in bound if t - US < other <= t) for t in bound)
    return {"makespan_s": round(makespan, 6), "throughput_pods_per_s": throughput,
            "peak_throughput_pods_per_s": round(max(float(most), throughput), 3),
            "latency_ms": latency([(pod["bound"] - pod["created"]) / 1000.0 for pod in pods if pod["bound"] is not None])}


def gang(jobs, pods, end, stuck_partial_s):
    full_ms, partial_jobs, partial_pod_us, stuck = [], 0, 0, []
    gangs = [job for job in jobs.values() if job["gang"]]
    for job in gangs:
        mine = [pod for pod in pods if pod["job"] == job["name"]]
        moments = sorted({t for pod in mine for t in (hold(pod, job) or ()) if t <= end} | {end})
        partial_us, full = 0, None
        for begin, finish in zip(moments, moments[1:] + [None]):
            count = held_at(job, mine, begin)
            if count >= job["pods"]:
                full = begin
                break
            if finish is not None and 0 < count:
                partial_us += finish - begin
                partial_pod_us += count * (finish - begin)
        if full is not None and job["created"] is not None:
            full_ms.append(round((full - job["created"]) / 1000.0, 3))
        partial_jobs += partial_us > 0
        if stuck_partial_s is not None and partial_us > stuck_partial_s * US:
            stuck.append(job["name"])
    return {"gang_jobs": len(gangs), "full_gangs": len(full_ms), "time_to_full_gang_ms": latency(full_ms),
            "partial_gang_jobs": partial_jobs, "partial_gang_pod_s": round(partial_pod_us / US, 3),
            "stuck_partial_jobs": stuck}


def water_fill(total, weights, demands):
    targets, left, open_ = {}, float(total), dict(weights)
    while open_:
        weight_sum = sum(open_.values())
        capped = {name for name in open_ if demands[name] <= left * open_[name] / weight_sum}
        if not capped:
            targets.update({name: left * weight / weight_sum for name, weight in open_.items()})
            break
        for name in capped:
            targets[name] = float(demands[name])
            left -= demands[name]
            del open_[name]
    return targets


def fair_share(jobs, pods, weights, start, end):
    def allocated(tenant, moment):
        return sum(job["cpu"] for pod in pods for job in [jobs[pod["job"]]]
                   if job["tenant"] == tenant and hold(pod, job) and hold(pod, job)[0] <= moment < hold(pod, job)[1])

    def demand(tenant, moment):
        asked = sum(job["pods"] * job["cpu"] for job in jobs.values()
                    if job["tenant"] == tenant and job["created"] is not None and job["created"] <= moment)
        done = sum(job["cpu"] for pod in pods for job in [jobs[pod["job"]]]
                   if job["tenant"] == tenant and hold(pod, job) and not is_preempted(pod, job)
                   and hold(pod, job)[1] <= moment)
        return asked - done

    times = {start, end} | {job["created"] for job in jobs.values() if job["created"] is not None}
    times |= {t for pod in pods for t in (hold(pod, jobs[pod["job"]]) or ())}
    moments = sorted(t for t in times if start <= t <= end)
    covered, error, jain, stretches = 0, 0.0, 0.0, []
    share_sum, target_sum = dict.fromkeys(weights, 0.0), dict.fromkeys(weights, 0.0)
    for begin, finish in zip(moments, moments[1:]):
        held = {tenant: allocated(tenant, begin) for tenant in weights}
        total = sum(held.values())
        if total <= 0:
            continue
        asks = {tenant: max(demand(tenant, begin), held[tenant]) for tenant in weights}
        asking = {tenant: weights[tenant] for tenant in weights if asks[tenant] > 0}
        targets = water_fill(total, asking, asks)
        share = {tenant: held[tenant] / total for tenant in weights}
        target = {tenant: targets.get(tenant, 0.0) / total for tenant in weights}
        length = finish - begin
        covered += length
        stretches.append((begin, finish, share, target))
        error += length * sum(abs(share[t] - target[t]) for t in asking) / len(asking)
        ratios = [share[t] / target[t] for t in asking if target[t] > 0]
        jain += length * sum(ratios) ** 2 / (len(ratios) * sum(x * x for x in ratios))
        for tenant in weights:
            share_sum[tenant] += length * share[tenant]
            target_sum[tenant] += length * target[tenant]
    def per_time(value, digits=4):
        return round(value / covered, digits) if covered else None

    return {"covered_s": round(covered / US, 3), "fairness_error": per_time(error), "jain_index": per_time(jain),
            "tenants": {t: {"weight": weights[t], "share": per_time(share_sum[t]), "target": per_time(target_sum[t]),
                            "job_latency_ms": latency([round((all_bound(job, pods) - job["created"]) / 1000.0, 3)
                                                       for job in jobs.values() if job["tenant"] == t
                                                       and job["created"] is not None and all_bound(job, pods)])}
                        for t in weights},
            "series": figures.series(stretches, start)}


def priority(jobs, pods):
    top = max(job["priority"] for job in jobs.values())
    high = [job for job in jobs.values() if job["priority"] == top]
    waits = [(all_bound(job, pods) - job["created"]) / 1000.0 for job in high if all_bound(job, pods) is not None]
    victims = sorted(pod["name"] for pod in pods if is_preempted(pod, jobs[pod["job"]]))
    lost = sum(pod["deleted"] - pod["bound"] for pod in pods if pod["name"] in victims)
    return {"high_priority": top, "high_priority_jobs": len(high), "high_priority_wait_ms": latency(
        [round(wait, 3) for wait in waits]),
        "high_priority_unbound_jobs": [job["name"] for job in high if all_bound(job, pods) is None],
        "pods_preempted": len(victims), "preempted_pods": victims, "work_lost_pod_s": round(lost / US, 3)}


def run_start(jobs, pods):
    """summary.json's `start`: the earliest job creation or pod creation."""
    return min([job["created"] for job in jobs.values() if job["created"] is not None] + [pod["created"] for pod in pods])


def scenario_metrics(jobs, pods, scenario):
    """Every section of scenario_metrics the run's scenario has."""
    start, end = window(jobs, pods)
    thresholds, cluster = scenario["thresholds"], dict(scenario["cluster"], nodes=int(scenario["cluster"]["nodes"]))
    out = {"window": {"start_us": start, "end_us": end}, "breakdown": figures.breakdown(jobs, pods),
           "utilization": figures.utilization(jobs, pods, cluster, start, end)}
    weights = {name: float(weight) for name, weight in scenario["tenants"].items()}
    if any(job["gang"] for job in jobs.values()):
        out["gang"] = dict(gang(jobs, pods, end, thresholds.get("stuck_partial_s")),
                           stuck_partial_s=thresholds.get("stuck_partial_s"))
        if thresholds.get("stall_s"):
            out["gang"].update(figures.stalls(jobs, pods, cluster, start, end, thresholds["stall_s"]))
    if len(weights) > 1:
        out["fair_share"] = fair_share(jobs, pods, weights, start, end)
    if len({job["priority"] for job in jobs.values()}) > 1:
        out["priority"] = priority(jobs, pods)
    if scenario.get("warmup_s") is not None:
        out["steady"] = figures.steady(jobs, pods, start, scenario["warmup_s"])
    return out


def recompute(directory, summary):
    """Every figure of summary.json the document defines from the files; ``summary`` gives only the inputs the
    document lists as measured outside the files (scheduler, workload, makespan_bound)."""
    jobs, pods, scenario = load(directory)
    out = top_level(jobs, pods)
    out.update(figures.run_figures(jobs, pods, scenario, summary, run_start(jobs, pods), out["makespan_s"]))
    out["scenario_metrics"] = scenario_metrics(jobs, pods, scenario)
    out["checks"] = figures.checks(scenario, out["scenario_metrics"], out["unsupported"])
    if "placement" in summary:  # since 2026-12-07, a new key of schema version 3
        out["placement"] = recompute_placement.placement(directory, jobs, pods, scenario)
    return out


# Files before schema version 3 lack scenario.json's events and the `completed` and `held_created` columns.
BEFORE_VERSION_3 = ("pods_completed", "submit_rate_jobs_per_s", "throughput_limited_by.stage", "backlog", "checks")
DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "metrics.md")


def outside():
    """The figures docs/metrics.md lists as measured from outside the files."""
    with open(DOC, encoding="utf-8") as handle:
        section = handle.read().split("### Measured from outside the files", 1)[1].split("\n#", 1)[0]
    return [key for line in section.splitlines() if line.startswith("| `")
            for key in re.findall(r"`([^`]+)`", line.split("|")[1])]


def leaves(value, path=""):
    """Every figure of ``value`` as a path (list items as [i]): the values that are no dict or list, and empty ones."""
    if isinstance(value, dict) and value:
        return [leaf for key, item in value.items() for leaf in leaves(item, (path + "." if path else "") + key)]
    if isinstance(value, list) and value:
        return [leaf for index, item in enumerate(value) for leaf in leaves(item, "%s[%d]" % (path, index))]
    return [path]


def listed(path, keys):
    general = re.sub(r"\[\d+\]", "[]", path)
    return any(general == key or general.startswith(key + ".") or general.startswith(key + "[") for key in keys)


def documented_version():
    """The newest schema_version docs/metrics.md#versions defines: the last row of its table."""
    with open(DOC, encoding="utf-8") as handle:
        section = handle.read().split("\n## Versions\n", 1)[1].split("\n## ", 1)[0]
    return max(int(found) for found in re.findall(r"^\| (?:\(absent\) )?(\d+) \|", section, re.M))


def version_refusal(summary):
    """The one line for a summary.json this page cannot recompute as documented: written by a newer toolkit, or
    with a schema_version that is no version; None when it can (an older version included)."""
    version, newest = summary.get("schema_version", 1), documented_version()
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        return "unreadable: summary.json's schema_version %r is not a version (1 to %d)" % (version, newest)
    if version > newest:
        return "written by a newer toolkit (schema %d, this one reads up to %d)" % (version, newest)
    return None


def differences(directory, summary):
    """Where the recomputed figures differ from ``summary`` (by more than the last rounded digit), and every figure
    of ``summary`` neither recomputed nor listed as measured from outside the files: one line each. A summary it
    cannot read as documented (version_refusal) is that one line, and nothing is recomputed."""
    refusal = version_refusal(summary)
    if refusal is not None:
        return [refusal]
    found, seen = [], set()

    def compare(path, ours, theirs):
        seen.add(path)
        if isinstance(ours, dict) and isinstance(theirs, dict):
            for key, value in ours.items():
                compare(path + "." + key if path else key, value, theirs.get(key))
        elif isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
            for index, (mine, other) in enumerate(zip(ours, theirs)):
                compare("%s[%d]" % (path, index), mine, other)
        elif isinstance(ours, float) and isinstance(theirs, (int, float)) and not isinstance(theirs, bool):
            if not figures.close(ours, theirs):
                found.append("%s: recomputed %r, summary %r" % (path, ours, theirs))
        elif ours != theirs:
            found.append("%s: recomputed %r, summary %r" % (path, ours, theirs))

    ours = recompute(directory, summary)
    skipped = BEFORE_VERSION_3 if summary.get("schema_version", 1) < 3 else ()
    compare("", {key: value for key, value in ours.items() if not listed(key, skipped)}, summary)
    found += timeline_differences(directory, summary)
    found += recompute_placement.column_differences(directory, load(directory)[2])
    found += findings_differences(summary)
    seen |= {"findings[%d]" % index for index in range(len(summary["findings"]))} | {"findings"}
    keys = outside() + list(skipped)
    found += ["%s: neither recomputed nor listed as measured from outside the files" % path
              for path in leaves(summary) if path not in seen and not listed(path, keys)]
    return found


def timeline_differences(directory, summary):
    """timeline.csv against the one pods.csv gives."""
    jobs, pods, _ = load(directory)
    if not os.path.exists(os.path.join(directory, "timeline.csv")):
        return []
    with open(os.path.join(directory, "timeline.csv"), encoding="utf-8") as handle:
        stored = [{key: int(value) for key, value in row.items()} for row in csv.DictReader(handle)]
    ours = figures.timeline(pods, run_start(jobs, pods))
    return [] if stored == ours else ["timeline.csv: %d rows recomputed, %d stored, first difference at second %s" % (
        len(ours), len(stored), next((a["second"] for a, b in zip(ours, stored) if a != b), min(len(ours), len(stored))))]


def findings_differences(summary):
    """`findings` against `checks`: each missed or unchecked check's sentence in order, after the timeout's
    sentence when the run was not complete (a wait that ran out, the load test's own clock)."""
    out = ["checks[%d].finding: a %s check %s a sentence" % (index, record["verdict"], "without" if wanted else "with")
           for index, record in enumerate(summary.get("checks", []))
           for wanted in [record["verdict"] in ("missed", "unchecked")] if wanted != bool(record["finding"])]
    sentences = [record["finding"] for record in summary.get("checks", []) if record["finding"]]
    if "checks" in summary and summary["findings"] != sentences and not (
            summary["complete"] is False and summary["findings"][1:] == sentences):
        out.append("findings: %r, the checks' sentences %r" % (summary["findings"], sentences))
    return out
