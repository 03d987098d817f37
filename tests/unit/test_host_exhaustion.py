"""After a failure, what ran short (module_utils/host/exhaustion.py, bench_exhaustion) and, while the load test runs,
which of the cluster's processes is gone (action_plugins/bench_async_wait.py)."""
import json
import os
import shlex
import subprocess

import bench_async_wait
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host import exhaustion

CGROUP_KILL = ("Memory cgroup out of memory: Killed process 14022 (kube-apiserver) total-vm:2187552kB, "
               "anon-rss:255224kB, file-rss:76644kB, shmem-rss:0kB, UID:0 pgtables:848kB oom_score_adj:0")
HOST_KILL = "Out of memory: Killed process 900 (etcd) total-vm:1000kB, anon-rss:2097152kB, file-rss:0kB"


def test_the_kernels_oom_kills_are_read_with_their_scope_and_memory_since_the_run_began():
    records = [(10.0, HOST_KILL), (50.0, "eth0: link up"), (60.0, CGROUP_KILL)]
    assert exhaustion.oom_kills(records, since_uptime=20.0) == [
        {"pid": 14022, "name": "kube-apiserver", "scope": "cgroup", "memory_mb": 249}]
    assert exhaustion.oom_kills(records)[0] == {"pid": 900, "name": "etcd", "scope": "host", "memory_mb": 2048}


def test_a_dead_component_killed_by_the_oom_killer_is_named_with_what_it_held():
    kills = exhaustion.oom_kills([(60.0, CGROUP_KILL)])
    finding = exhaustion.memory_finding({"kube-apiserver": 14022}, kills, True, 21830)
    assert finding["line"] == ("out of memory: the kernel's OOM killer killed kube-apiserver (pid 14022, 249 MiB "
                               "resident) at its memory cgroup's limit; 21830 MiB of the host's memory is available now")
    assert (finding["kind"], finding["memory_mb"], finding["scope"]) == ("memory", 249, "cgroup")
    # Another pid's kill is not this component's; with the kernel log readable, a death it does not explain is no
    # finding (the failure's own line stays); unreadable, the death is named as such.
    assert exhaustion.memory_finding({"kube-scheduler": 7}, kills, True, 100) is None
    died = exhaustion.memory_finding({"kube-scheduler": 7}, [], False, 100)
    assert died["kind"] == "died" and died["line"].startswith("kube-scheduler (pid 7) is gone and the kernel log cannot")
    assert exhaustion.memory_finding({}, kills, False, 100) is None


def test_a_full_file_system_is_named_with_the_component_whose_write_failed():
    full = [{"mount": "/ws", "fstype": "tmpfs", "free_mb": 0, "total_mb": 300, "needs": [{"path": "/ws/x"}],
             "line": "the disk is full: /ws/x (tmpfs at /ws) has 0 MiB free of 300 MiB"}]
    finding = exhaustion.disk_finding(full, {"etcd": "failed to commit tx: no space left on device"}, "HTTP 500")
    assert finding["line"] == ("the disk is full: /ws/x (tmpfs at /ws) has 0 MiB free of 300 MiB; "
                               "etcd: failed to commit tx: no space left on device")
    assert finding["component"] == "etcd" and finding["paths"] == ["/ws/x"]
    own = exhaustion.disk_finding(full, {}, "write results: [Errno 28] No space left on device")
    assert own["line"].endswith("; write results: [Errno 28] No space left on device") and "component" not in own
    assert exhaustion.disk_finding([], {"etcd": "no space left on device"}, "") is None


def test_a_logs_last_no_space_line_is_read_as_a_person_would(tmp_path):
    log = tmp_path / "etcd.log"
    record = {"level": "fatal", "msg": "failed to commit tx", "error": "write db: no space left on device",
              "stacktrace": "go.etcd.io/..."}
    log.write_text("starting\n" + json.dumps(record) + "\n")
    assert exhaustion.no_space_line(str(log)) == "failed to commit tx: write db: no space left on device"
    (tmp_path / "apiserver.log").write_text("E1206 audit.go] write /ws/audit.log: no space left on device\nok\n")
    assert exhaustion.no_space_line(str(tmp_path / "apiserver.log")).endswith("audit.log: no space left on device")
    assert exhaustion.no_space_line(str(tmp_path / "absent.log")) == ""


def test_components_whose_pid_file_outlives_their_process_are_dead(tmp_path):
    (tmp_path / "etcd.pid").write_text("%d\n" % os.getpid())
    (tmp_path / "kwok.pid").write_text("999999999\n")
    (tmp_path / "broken.pid").write_text("no\n")
    assert exhaustion.dead_components(str(tmp_path)) == {"kwok": 999999999}
    assert exhaustion.dead_components(str(tmp_path / "none")) == {}


def test_the_wait_notices_a_watched_process_gone_replaced_or_its_pid_file_removed(tmp_path):
    check = "etcd 10 1\nkube-apiserver 11 1\nloadtest 12 1\nkwok 13 0\ngarbage\n"
    found = bench_async_wait.parse_pid_check(check, ignore=["loadtest"])
    assert found == {"etcd": (10, True), "kube-apiserver": (11, True), "kwok": (13, False)}
    watched = {name: value for name, value in found.items() if value[1]}
    assert bench_async_wait.gone(watched, found) is None
    assert bench_async_wait.gone(watched, dict(found, etcd=(10, False))) == ("etcd", 10)
    assert bench_async_wait.gone(watched, dict(found, etcd=(99, True))) == ("etcd", 10)
    assert bench_async_wait.gone(watched, {"etcd": (10, True)}) == ("kube-apiserver", 11)
    (tmp_path / "etcd.pid").write_text("%d\n" % os.getpid())
    (tmp_path / "kwok.pid").write_text("999999999\n")
    expected = {"etcd": (os.getpid(), True), "kwok": (999999999, False)}
    assert bench_async_wait.parse_pid_check(bench_async_wait.read_pid_dir(str(tmp_path))) == expected
    # The same check as one shell command, for a remote host.
    remote = subprocess.run(["sh", "-c", bench_async_wait.PID_CHECK % shlex.quote(str(tmp_path))],
                            capture_output=True, text=True, check=True).stdout
    assert bench_async_wait.parse_pid_check(remote) == expected


def test_a_stopped_job_shows_how_far_it_got_before_the_stop(tmp_path, monkeypatch):
    (tmp_path / "kube-scheduler.pid").write_text("999999999\n")
    progress = tmp_path / "progress.json"
    progress.write_text(json.dumps({"pid": 4242, "phase": "wait", "total": 120, "count": 30, "pods_created": 120,
                                    "pods_bound": 30, "elapsed_s": 1.4}))
    shown, stopped = [], []
    monkeypatch.setattr(bench_async_wait.display, "display", shown.append)
    action = object.__new__(bench_async_wait.ActionModule)
    action._local = True
    action._stop = lambda state, signal="TERM": stopped.append(state["pid"])
    args = {"watch_pid_dir": str(tmp_path), "watch_ignore": [], "progress_file": str(progress), "label": "default: "}
    stop, state = action._stop_when_gone({"kube-scheduler": (999999999, True)}, args,
                                         {"inventory_hostname": "node1"}, {}, 7.0)
    assert stop == (7.0, "kube-scheduler (pid 999999999) stopped while the job ran")
    assert stopped == [4242] and state["pods_bound"] == 30
    assert shown == ["[node1] default: wait 30/120 pods bound (120 created, 30 bound, 0 completed), 1.4 s elapsed",
                     "[node1] default: kube-scheduler (pid 999999999) stopped while the job ran: stopping the job"]
