"""bench_scheduler_profile=batch on the binary runtime (issue 65 item 3): Kueue and Volcano run with their profile's
settings, read back from the configuration each process was given (Volcano's conf file on its kept cluster, which its
running vc-scheduler names on its command line; Kueue's manager configuration, read back into env.json's cycle), and
env.json records the profile with every setting applied. A small run: 5 jobs of one pod each."""
import os

import yaml
from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers
from conftest import kept_run, mirror_vars, scheduler_results


def test_batch_gives_volcano_and_kueue_their_recommended_settings(tmp_path, bench_vars):
    # Volcano last: its cluster is the one kept, so its configuration file and its process are still there.
    with kept_run(tmp_path, bench_vars, "profile-batch", bench_schedulers=["kueue", "volcano"],
                  bench_scheduler_profile="batch", **mirror_vars()) as kept:
        conf_path = os.path.join(kept.cluster, "volcano", "volcano-scheduler.conf")
        with open(conf_path, encoding="utf-8") as handle:
            conf = yaml.safe_load(handle)
        with open(os.path.join(kept.cluster, "run", "vc-scheduler.pid"), encoding="ascii") as handle:
            pid = int(handle.read())
        with open("/proc/%d/cmdline" % pid, "rb") as handle:
            args = handle.read().decode().split("\0")
    assert "--scheduler-conf=" + conf_path in args, args
    assert [action.strip() for action in conf["actions"].split(",")] == [
        "enqueue", "allocate", "backfill", "reclaim", "preempt"]
    # The release's plugins stay: reclaim and preempt consult them.
    plugins = [plugin["name"] for tier in conf["tiers"] for plugin in tier["plugins"]]
    assert {"priority", "gang", "conformance", "drf", "proportion"} <= set(plugins), plugins

    for name in ("kueue", "volcano"):
        _, summary, env = scheduler_results(bench_vars, name)
        assert summary["complete"] is True and summary["pods_bound"] == 5, (name, summary.get("reason"))
        assert env["knobs"]["scheduler_profile"] == "batch"
        assert env["profile"]["name"] == "batch"
        applied = {entry["setting"]: entry["value"] for entry in env["profile"]["settings"]}
        assert applied == schedulers.profile(name, "batch") and applied, env["profile"]
        assert all(entry["source"].startswith("https://") for entry in env["profile"]["settings"])
        assert env["versions"]["scheduler"]["profile"] == env["profile"]
    # Kueue's manager ran with all-or-nothing admission: read back from the configuration file it was given.
    _, _, kueue_env = scheduler_results(bench_vars, "kueue")
    assert kueue_env["cycle"]["wait_for_pods_ready"] is True, kueue_env["cycle"]
