"""The second opinion on summary.json's `placement` and pods.csv's topology columns, from the result's files alone
(pods.csv, jobs.csv, scenario.json) by docs/metrics.md#placement, without the toolkit's code: every quantity evaluated
afresh on each stretch between two events. ``jobs`` and ``pods`` as recompute.load gives them."""
import recompute
import recompute_figures as figures

US = 1_000_000
GPU = "nvidia.com/gpu"


def nodes_of(scenario):
    """Every fake node in number order: (cpu millicores, memory bytes, pod slots, GPUs, {level: group})."""
    cluster = scenario["cluster"]
    pools = cluster.get("pools") or [{"count": int(cluster["nodes"]), "cpu": cluster["node_cpu"],
                                      "memory": cluster["node_memory"], "pods": cluster["node_pods"], "resources": {}}]
    levels = (cluster.get("topology") or {}).get("levels") or []
    total = sum(int(pool["count"]) for pool in pools)
    lowest = 1
    for level in levels:
        lowest *= int(level["count"])
    out = []
    for pool in pools:
        for _ in range(int(pool["count"])):
            group, names = len(out) // (total // lowest), {}
            places = []
            for level in reversed(levels):  # the lowest group's place within each level, from the bottom up
                places.insert(0, group % int(level["count"]) + 1)
                group //= int(level["count"])
            for depth, level in enumerate(levels):
                names[level["name"]] = "-".join("%s-%d" % (above["name"], place)
                                                for above, place in zip(levels[:depth + 1], places))
            out.append((figures.quantity(pool["cpu"]) * 1000, figures.quantity(pool["memory"]), int(pool["pods"]),
                        int((pool.get("resources") or {}).get(GPU, 0)), names))
    return out


def number_of(node):
    digits = len(node) - len(node.rstrip("0123456789"))
    return int(node[-digits:])


def group_gpus(scenario, directory):
    """job name -> GPUs a pod of it asks for: its group's pod_gpu in scenario.json (jobs.csv's group)."""
    per_group = {group["name"]: int(group.get("pod_gpu") or 0) for phase in scenario["phases"] for group in phase["groups"]}
    return {row["job"]: per_group.get(row["group"], 0) for row in recompute.rows(directory, "jobs.csv")}


def pending(pod):
    """[from, to) a pod waited for a node (to None: never bound nor deleted), or None."""
    until = pod["bound"] if pod["bound"] is not None else pod["deleted"]
    if until is not None and until <= pod["created"]:
        return None
    return pod["created"], until


def free_at(jobs, pods, nodes, gpus, moment):
    """Each node's free (cpu, memory, slots, GPUs) over the stretch starting at ``moment``."""
    free = [list(node[:4]) for node in nodes]
    for pod in pods:
        span = recompute.hold(pod, jobs[pod["job"]]) if pod["job"] in jobs else None
        if span and span[0] <= moment < span[1]:
            job, room = jobs[pod["job"]], free[number_of(pod["node"])]
            for index, amount in enumerate((job["cpu"], job["memory"], 1, gpus[pod["job"]])):
                room[index] -= amount
    return free


def gpu(jobs, pods, scenario, gpus, start, end):
    nodes = nodes_of(scenario)
    total = sum(node[3] for node in nodes)
    if not total or not any(gpus.values()):
        return None
    mine = [pod for pod in pods if pod["job"] in jobs]
    times = {start, end} | {t for pod in mine for t in (recompute.hold(pod, jobs[pod["job"]]) or ()) + (pending(pod) or ())
                            if t is not None}
    moments = sorted(t for t in times if start <= t <= end)
    held_us = pending_us = stranded_us = 0
    peak = 0
    for begin, finish in zip(moments, moments[1:] + [None]):
        free = free_at(jobs, mine, nodes, gpus, begin)
        held = total - sum(room[3] for room in free)
        peak = max(peak, held)
        if finish is None:
            break
        waiting = [(jobs[pod["job"]]["cpu"], jobs[pod["job"]]["memory"], 1, gpus[pod["job"]]) for pod in mine
                   if pending(pod) and pending(pod)[0] <= begin and (pending(pod)[1] is None or begin < pending(pod)[1])]
        held_us += held * (finish - begin)
        if waiting:
            pending_us += finish - begin
            stranded = sum(room[3] for room in free
                           if room[3] > 0 and not any(all(room[i] >= ask[i] for i in range(4)) for ask in waiting))
            stranded_us += stranded * (finish - begin)
    return {"total": total, "allocated_share_peak": round(peak / total, 4),
            "allocated_share_mean": round(held_us / total / (end - start), 4) if end > start else None,
            "pending_s": round(pending_us / US, 3),
            "stranded_share": round(stranded_us / total / pending_us, 4) if pending_us else None}


def locality(jobs, pods, scenario):
    levels = [level["name"] for level in (scenario["cluster"].get("topology") or {}).get("levels") or []]
    if not levels:
        return None
    nodes = nodes_of(scenario)
    spans = []
    for job in jobs.values():
        if job["pods"] > 1 and recompute.all_bound(job, pods) is not None:
            kept = [pod for pod in pods if pod["job"] == job["name"] and pod["bound"] is not None
                    and not recompute.is_preempted(pod, job)]
            spans.append([len({nodes[number_of(pod["node"])][4][level] for pod in kept}) for level in levels])
    if not spans:
        return None
    return {"jobs": len(spans), "levels": [
        {"level": level, "one_group_share": round(sum(span[i] == 1 for span in spans) / len(spans), 4),
         "groups_p50": recompute.nearest_rank([span[i] for span in spans], 0.5), "groups_max": max(span[i] for span in spans)}
        for i, level in enumerate(levels)]}


def waits(jobs, pods):
    return {job["name"]: (recompute.all_bound(job, pods) - job["created"]) / 1000.0 for job in jobs.values()
            if job["created"] is not None and recompute.all_bound(job, pods) is not None}


def by_pods(jobs, wait):
    return [{"pods": size, "jobs": sum(job["pods"] == size for job in jobs.values()),
             "jobs_all_bound": sum(job["pods"] == size and job["name"] in wait for job in jobs.values()),
             "all_bound_ms": recompute.latency([wait[job["name"]] for job in jobs.values()
                                                if job["pods"] == size and job["name"] in wait])}
            for size in sorted({job["pods"] for job in jobs.values()})]


def head_of_line(jobs, wait, gpus):
    asks = {name: job["pods"] * gpus[name] for name, job in jobs.items()}
    most = max(asks.values(), default=0)
    if most <= 1 or 1 not in asks.values():
        return None
    largest = recompute.latency([wait[name] for name, count in asks.items() if count == most and name in wait])["p50"]
    single = recompute.latency([wait[name] for name, count in asks.items() if count == 1 and name in wait])["p50"]
    return {"largest_gpus": most, "largest_jobs": sum(count == most for count in asks.values()),
            "single_jobs": sum(count == 1 for count in asks.values()), "largest_wait_p50_ms": largest,
            "single_wait_p50_ms": single, "ratio": round(largest / single, 3) if largest is not None and single else None}


def placement(directory, jobs, pods, scenario):
    """summary.json's placement, recomputed over the scenario_metrics window."""
    start, end = recompute.window(jobs, pods)
    gpus = group_gpus(scenario, directory)
    wait = waits(jobs, pods)
    return {"gpu": gpu(jobs, pods, scenario, gpus, start, end), "locality": locality(jobs, pods, scenario),
            "by_pods": by_pods(jobs, wait), "head_of_line": head_of_line(jobs, wait, gpus)}


def column_differences(directory, scenario):
    """pods.csv's topology columns (one per level, right after node) against the groups of each pod's node."""
    levels = [level["name"] for level in (scenario["cluster"].get("topology") or {}).get("levels") or []]
    stored = recompute.rows(directory, "pods.csv")
    header = list(stored[0]) if stored else []
    if stored and header[header.index("node") + 1:header.index("node") + 1 + len(levels)] != levels:
        return ["pods.csv: the topology columns are not %s right after node: %s" % (levels, header)]
    nodes = nodes_of(scenario) if levels else []
    wrong = [row["pod"] for row in stored if levels and any(
        row[level] != (nodes[number_of(row["node"])][4][level] if row["node"] else "") for level in levels)]
    return ["pods.csv: %d pods whose topology columns are not their node's groups, first %s" % (len(wrong), wrong[0])] if wrong else []
