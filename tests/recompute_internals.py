"""A second opinion on summary.json's internals, component_cost and api_requests: each recomputed from the result
files alone (metrics-<process>-<before|after>.prom.gz, component-samples.json, audit.log.gz) by the definitions of
docs/metrics.md ("Why: internals, cost per component, API requests"), without the toolkit's code. What each process's
views read (metric, label, unit) is its declaration, the scheduler's descriptor and CONTROL_PLANE: what to compute,
not how. Figures rounded by the document agree to its last digit (one unit of it, for sums taken in another order)."""
import datetime
import gzip
import json
import math
import os
import re

SAMPLE = re.compile(r"^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s+(\S+)")
LABEL = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"')
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def micros(text):
    moment = datetime.datetime.strptime(text.rstrip("Z")[:26], "%Y-%m-%dT%H:%M:%S.%f").replace(
        tzinfo=datetime.timezone.utc)
    delta = moment - EPOCH
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


def read_scrape(path):
    """{(name, frozenset of label pairs): value} of a stored scrape."""
    found = {}
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            match = SAMPLE.match(line)
            if line.startswith("#") or not match:
                continue
            labels = frozenset((name, value.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\"))
                               for name, value in LABEL.findall(match.group(2) or ""))
            found[(match.group(1), labels)] = float(match.group(3))
    return found


def grown(before, after, metric, view):
    """[(labels dict, increase)] of a counter's series that the view selects (``where``, not ``exclude``)."""
    out = []
    for (name, labels), value in after.items():
        if name != metric:
            continue
        found = dict(labels)
        if any(found.get(key) != value_ for key, value_ in (view.get("where") or {}).items()):
            continue
        if any(found.get(key) in values for key, values in (view.get("exclude") or {}).items()):
            continue
        start = before.get((name, labels), 0.0)
        out.append((found, value - start if value >= start else value))
    return out


def quantile(fraction, buckets):
    """docs/metrics.md's histogram estimate over [(le, cumulative count)] ascending, the last +Inf."""
    if not buckets or buckets[-1][1] <= 0:
        return None
    rank = fraction * buckets[-1][1]
    previous_bound, previous_count = 0.0, 0.0
    for index, (bound, count) in enumerate(buckets):
        if count >= rank:
            if math.isinf(bound):
                return buckets[index - 1][0] if index else None
            if count == previous_count:
                return bound
            return previous_bound + (bound - previous_bound) * (rank - previous_count) / (count - previous_count)
        previous_bound, previous_count = bound, count
    return None


def figure(before, after, view):
    unit, metric = view.get("unit_ms", 1.0), view["metric"]
    if view["view"] == "total":
        return round(sum(value for _, value in grown(before, after, metric, view)))
    if view["view"] == "counts":
        totals = {}
        for labels, value in grown(before, after, metric, view):
            totals[labels.get(view["label"], "")] = totals.get(labels.get(view["label"], ""), 0.0) + value
        ordered = sorted(((key, round(value)) for key, value in totals.items() if value > 0), key=lambda i: (-i[1], i[0]))
        return dict(ordered[:view["top"]] if view.get("top") else ordered)
    if view["view"] == "histogram":
        count = sum(value for _, value in grown(before, after, metric + "_count", view))
        total = sum(value for _, value in grown(before, after, metric + "_sum", view)) * unit
        per_bound = {}
        for labels, value in grown(before, after, metric + "_bucket", view):
            bound = math.inf if labels["le"] in ("+Inf", "Inf") else float(labels["le"])
            per_bound[bound] = per_bound.get(bound, 0.0) + value
        buckets = sorted(per_bound.items())
        found = {"count": round(count), "sum_ms": round(total, 3), "mean_ms": round(total / count, 3) if count else None}
        for key, fraction in (("p50_ms", 0.5), ("p90_ms", 0.9), ("p99_ms", 0.99)):
            estimate = quantile(fraction, buckets)
            found[key] = None if estimate is None else round(estimate * unit, 3)
        return found
    label = view["label"]
    sums, counts = {}, {}
    for labels, value in grown(before, after, metric + "_sum", view):
        sums[labels.get(label, "")] = sums.get(labels.get(label, ""), 0.0) + value
    for labels, value in grown(before, after, metric + "_count", view):
        counts[labels.get(label, "")] = counts.get(labels.get(label, ""), 0.0) + value
    rows = sorted(((key, round(value * unit, 3)) for key, value in sums.items() if counts.get(key)),
                  key=lambda i: (-i[1], i[0]))
    return [{label: key, "count": round(counts[key]), "total_ms": total} for key, total in rows[:view.get("top", 5)]]


def close(mine, theirs, key):
    if isinstance(mine, float) and isinstance(theirs, (int, float)):
        return abs(mine - theirs) <= 0.0011
    return mine == theirs


def internals_differences(directory, summary, specs):
    """Sentences for each figure of summary["internals"] that its scrapes give otherwise; [] when all agree."""
    out = []
    for process, figures in summary["internals"]["processes"].items():
        before = read_scrape(os.path.join(directory, "metrics-%s-before.prom.gz" % process))
        after = read_scrape(os.path.join(directory, "metrics-%s-after.prom.gz" % process))
        for view in specs[process]:
            mine, theirs = figure(before, after, view), figures[view["key"]]
            if isinstance(mine, dict) and "p50_ms" in mine:
                pairs = [(key, mine[key], theirs[key]) for key in mine]
            elif isinstance(mine, list):
                pairs = [("rows", [(row[view["label"]], row["count"]) for row in mine],
                          [(row[view["label"]], row["count"]) for row in theirs])]
                pairs += [("total_ms", a["total_ms"], b["total_ms"]) for a, b in zip(mine, theirs)]
            else:
                pairs = [("value", mine, theirs)]
            out += ["%s %s %s: recomputed %r, summary %r" % (process, view["key"], key, a, b)
                    for key, a, b in pairs if not close(a, b, key)]
    return out


def cost_differences(directory, summary):
    """Sentences for each figure of summary["component_cost"] its samples give otherwise."""
    with open(os.path.join(directory, "component-samples.json"), encoding="utf-8") as handle:
        samples = json.load(handle)
    window = samples["after"]["total"] - samples["before"]["total"]
    ticks = {}
    for process in samples["processes"]:
        first, last = process["before"], process["after"]
        same = first is not None and first["started"] == last["started"]
        spent = last["ticks"] - (first["ticks"] if same else 0)
        if process["component"] == "load generator":
            spent += last["children"] - (first["children"] if same else 0)
        ticks[process["component"]] = ticks.get(process["component"], 0) + max(spent, 0)
    out = []
    bound = summary["pods_bound"]
    for row in summary["component_cost"]["components"]:
        seconds = ticks[row["component"]] / samples["ticks_per_second"]
        mine = {"cpu_seconds": round(seconds, 3), "share_of_host_percent": round(100.0 * ticks[row["component"]] / window, 1),
                "cpu_ms_per_pod": round(seconds * 1000 / bound, 3) if bound else None}
        out += ["%s %s: recomputed %r, summary %r" % (row["component"], key, value, row[key])
                for key, value in mine.items() if not close(value, row[key], key)]
    # The harness (kwok and the load generator), from version 3 on.
    if "harness_percent" in summary["component_cost"]:
        harness = round(100.0 * (ticks.get("kwok", 0) + ticks.get("load generator", 0)) / window, 1)
        if not close(harness, summary["component_cost"]["harness_percent"], "harness_percent"):
            out.append("harness_percent: recomputed %r, summary %r" % (harness, summary["component_cost"]["harness_percent"]))
    return out


def requests_differences(audit_path, summary):
    """Sentences for each count of summary["api_requests"] that the audit log gives otherwise."""
    requests = summary["api_requests"]
    start, end = micros(requests["from"]), micros(requests["to"])
    by_component, spans = {}, []
    with gzip.open(audit_path, "rt", encoding="utf-8") as handle:
        for line in handle:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("stage") != "ResponseComplete" or not start <= micros(event["stageTimestamp"]) <= end:
                continue
            agent = event.get("userAgent") or ""
            parts = agent.split("/")
            name = parts[0] if agent else (event.get("user") or {}).get("username", "unknown")
            if len(parts) >= 5 and " kubernetes" in parts[2]:
                name += "/" + parts[-1]
            by_component[name] = by_component.get(name, 0) + 1
            if event["verb"] != "watch":
                spans.append((max(micros(event["requestReceivedTimestamp"]), start), micros(event["stageTimestamp"])))
    mine = {entry["component"]: entry["requests"] for entry in requests["by_component"]}
    out = ["requests of %s: recomputed %r, summary %r" % (name, by_component.get(name), mine.get(name))
           for name in set(mine) | set(by_component) if mine.get(name) != by_component.get(name)]
    moments = sorted([(a, 1) for a, _ in spans] + [(b, -1) for _, b in spans])
    level = peak = 0
    for _, step in moments:
        level += step
        peak = max(peak, level)
    if peak != requests["inflight_peak"]:
        out.append("inflight_peak: recomputed %d, summary %d" % (peak, requests["inflight_peak"]))
    return out
