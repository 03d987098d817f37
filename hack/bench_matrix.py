#!/usr/bin/env python3
"""The upstream matrix for the chosen schedulers: four shapes of one load, with and without gang (make bench-matrix).

Writes the eight scenarios of plugin_utils/report/matrix.py at --scale into results/<matrix id>/scenarios/, runs
bench.yml once per scenario (run id <matrix id>-<scenario>, the schedulers of --schedulers, the inventory of
--inventory, more ansible-playbook arguments after --), then writes the table scheduler x shape from the runs'
summaries to results/<matrix id>/matrix.md, .csv and .json and prints it. A run that fails is in the table as
what it left (or as missing); the next shapes still run.
"""
import argparse
import csv
import glob
import json
import os
import sys
import time

import yaml
from ansible_collections.kube_sched_bench.core.plugins.module_utils.schedulers.knob_checks import SCHEDULERS
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import matrix
from bench_run import LOCAL, ROOT, bench


def run_bench(args, run_id, scenario_path):
    """The exit code of one run; its plays, tasks, progress and failures, one line each, in <run id>.log."""
    extra = {"bench_run_id": run_id, "bench_scenario": scenario_path, "bench_schedulers": args.schedulers}
    with open(os.path.join(args.directory, "%s.log" % run_id), "w", encoding="utf-8") as log:
        def write(event):
            log.write(event.line + "\n")
            log.flush()
        return bench(extra, args.inventory, args.ansible_args, on_event=write).rc


def collect(results, run_ids):
    rows = []
    for run_id in run_ids:
        for path in sorted(glob.glob(os.path.join(results, run_id, "*", "*", "summary.json"))):
            scheduler_dir = os.path.dirname(path)
            with open(path, encoding="utf-8") as handle:
                summary = json.load(handle)
            rows.append(matrix.row(os.path.basename(os.path.dirname(scheduler_dir)), os.path.basename(scheduler_dir),
                                   run_id, summary))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schedulers", default="default", help="comma-separated, of: %s" % ", ".join(SCHEDULERS))
    parser.add_argument("--scale", type=float, default=1.0, help="0.1: 1,000 pods on 100 nodes per shape")
    parser.add_argument("--inventory", default=LOCAL)
    parser.add_argument("--matrix-id", default="matrix-" + time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()))
    parser.add_argument("ansible_args", nargs="*", help="more ansible-playbook arguments (after --)")
    args = parser.parse_args()
    args.schedulers = [name.strip() for name in args.schedulers.split(",") if name.strip()]
    unknown = [name for name in args.schedulers if name not in SCHEDULERS]
    if unknown or not args.schedulers:
        sys.exit("--schedulers=%s is not allowed: use a comma-separated list of %s" % (",".join(args.schedulers),
                                                                                        ", ".join(SCHEDULERS)))
    if not 0 < args.scale <= 1:
        sys.exit("--scale=%g is not allowed: use a number greater than 0 and at most 1" % args.scale)

    results = os.path.join(ROOT, "results")
    args.directory = os.path.join(results, args.matrix_id)
    os.makedirs(os.path.join(args.directory, "scenarios"), exist_ok=True)
    run_ids, failed = [], []
    for name, document in matrix.scenarios(args.scale).items():
        path = os.path.join(args.directory, "scenarios", name + ".yml")
        with open(path, "w", encoding="utf-8") as handle:
            yaml.safe_dump(document, handle, sort_keys=False)
        run_id = "%s-%s" % (args.matrix_id, name)
        started = time.monotonic()
        print("%s: bench.yml for %s ..." % (name, ", ".join(args.schedulers)), end=" ", flush=True)
        code = run_bench(args, run_id, path)
        print("%s in %.0f s" % ("done" if code == 0 else "failed (exit %d, see %s.log)" % (code, run_id),
                               time.monotonic() - started), flush=True)
        run_ids.append(run_id)
        if code:
            failed.append(name)

    rows = collect(results, run_ids)
    table = matrix.markdown(rows, args.scale)
    with open(os.path.join(args.directory, "matrix.md"), "w", encoding="utf-8") as handle:
        handle.write(table)
    with open(os.path.join(args.directory, "matrix.csv"), "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=matrix.COLUMNS)
        writer.writeheader()
        writer.writerows(matrix.order(rows))
    with open(os.path.join(args.directory, "matrix.json"), "w", encoding="utf-8") as handle:
        json.dump({"scale": args.scale, "schedulers": args.schedulers, "runs": run_ids, "failed": failed,
                   "rows": matrix.order(rows)}, handle, indent=1)
    print()
    print(table)
    print("results/%s/matrix.md, .csv, .json; each run's report under results/<run id>/" % args.matrix_id)
    if failed:
        sys.exit("%d of %d runs failed: %s" % (len(failed), len(run_ids), ", ".join(failed)))


if __name__ == "__main__":
    main()
