"""bench_audit_policy off (issue 53): the API server runs without an audit log, the load test times every pod from
its own watch and says so, and env.json records the knob; the light policy is the default and every other e2e run
uses it."""
import os

from conftest import kept_run, scheduler_results


def test_without_an_audit_log_the_pods_are_timed_from_the_watch(tmp_path, bench_vars):
    with kept_run(tmp_path, bench_vars, "audit-off", bench_audit_policy="off") as kept:
        with open(os.path.join(kept.cluster, "run", "kube-apiserver.pid"), encoding="ascii") as handle:
            pid = int(handle.read())
        with open("/proc/%d/cmdline" % pid, "rb") as handle:
            args = handle.read().decode().split("\0")
        assert [arg for arg in args if arg.startswith("--audit")] == [], args
        assert os.listdir(os.path.join(kept.cluster, "audit")) == []
    out, summary, env = scheduler_results(bench_vars, "default")
    assert summary["complete"] is True, summary.get("reason")
    assert summary["timing_source"] == "watch"
    assert summary["pods_bound"] == summary["pods_created"] == 5
    assert env["knobs"]["audit_policy"] == "off"
    assert not [name for name in os.listdir(out) if name.startswith("audit")], os.listdir(out)
