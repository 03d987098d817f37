"""Scheduler cost from /proc (module_utils/metrics/cost.py), on made-up /proc trees."""
import os

import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import cost

STAT = "{pid} (vc-scheduler) S 1 {pid} {pid} 0 -1 4194560 9000 0 12 0 {utime} {stime} 0 0 20 0 14 0 4242 1 2 3\n"
STATUS = "Name:\tvc-scheduler\nVmPeak:\t 900000 kB\nVmHWM:\t {hwm} kB\nVmRSS:\t {rss} kB\nThreads:\t14\n"


def fake_proc(root, pid, utime, stime, hwm, rss=1000, comm=None):
    directory = root / str(pid)
    directory.mkdir(parents=True, exist_ok=True)
    stat = STAT.format(pid=pid, utime=utime, stime=stime)
    if comm:
        stat = stat.replace("(vc-scheduler)", "(%s)" % comm)
    (directory / "stat").write_text(stat)
    (directory / "status").write_text(STATUS.format(hwm=hwm, rss=rss))


def pid_file(tmp_path, name, pid):
    path = tmp_path / ("%s.pid" % name)
    path.write_text("%d\n" % pid)
    return str(path)


def test_parse_stat_adds_user_and_system_ticks_even_with_odd_command_names():
    text = STAT.format(pid=7, utime=150, stime=50).replace("(vc-scheduler)", "(a b) (c))")
    assert cost.parse_stat(text) == 200


def test_parse_status_reads_peak_and_current_resident_memory():
    assert cost.parse_status(STATUS.format(hwm=70000, rss=65000)) == {"VmHWM": 70000, "VmRSS": 65000}


def test_parse_status_reads_the_cpus_the_process_may_use():
    assert cost.parse_status("Cpus_allowed_list:\t1\n") == {"Cpus_allowed_list": "1"}
    assert cost.count_cpus("1") == 1
    assert cost.count_cpus("0-3,6,8-9") == 7
    assert cost.count_cpus("") == 0


def test_the_cpus_a_process_may_use_are_recorded(tmp_path):
    proc = tmp_path / "proc"
    path = pid_file(tmp_path, "kube-scheduler", 301)
    fake_proc(proc, 301, utime=10, stime=0, hwm=1024)
    with open(proc / "301" / "status", "a", encoding="utf-8") as handle:
        handle.write("Cpus_allowed_list:\t2-3\n")
    sampled = cost.sample([path], proc_root=str(proc))
    assert cost.cost(sampled, sampled, ticks_per_second=100)["processes"][0]["cpus_allowed"] == 2


def test_cost_is_the_cpu_used_between_the_samples_and_the_sum_of_the_peaks(tmp_path):
    proc = tmp_path / "proc"
    files = [pid_file(tmp_path, "kueue", 101), pid_file(tmp_path, "kube-scheduler", 102)]
    fake_proc(proc, 101, utime=100, stime=20, hwm=51200)
    fake_proc(proc, 102, utime=300, stime=0, hwm=20480)
    start = cost.sample(files, proc_root=str(proc))
    fake_proc(proc, 101, utime=350, stime=70, hwm=102400)
    fake_proc(proc, 102, utime=310, stime=40, hwm=20480)
    end = cost.sample(files, proc_root=str(proc))

    result = cost.cost(start, end, ticks_per_second=100)

    assert result["cpu_seconds"] == pytest.approx(3.0 + 0.5)
    assert result["peak_rss_mb"] == pytest.approx(100.0 + 20.0)
    by_name = {entry["name"]: entry for entry in result["processes"]}
    assert by_name["kueue"] == {"name": "kueue", "pid": 101, "cpu_seconds": 3.0, "peak_rss_mb": 100.0}
    assert by_name["kube-scheduler"]["cpu_seconds"] == 0.5


def test_a_process_replaced_between_the_samples_counts_from_its_own_start(tmp_path):
    proc = tmp_path / "proc"
    path = pid_file(tmp_path, "vc-scheduler", 201)
    fake_proc(proc, 201, utime=1000, stime=0, hwm=1024)
    start = cost.sample([path], proc_root=str(proc))
    pid_file(tmp_path, "vc-scheduler", 202)
    fake_proc(proc, 202, utime=40, stime=10, hwm=2048)
    result = cost.cost(start, cost.sample([path], proc_root=str(proc)), ticks_per_second=100)
    assert result["cpu_seconds"] == 0.5
    assert result["processes"][0]["pid"] == 202


def test_a_missing_process_is_reported_not_counted(tmp_path):
    proc = tmp_path / "proc"
    proc.mkdir()
    gone = pid_file(tmp_path, "kueue", 999999)
    empty = str(tmp_path / "nothing.pid")
    result = cost.cost({}, cost.sample([gone, empty], proc_root=str(proc)), ticks_per_second=100)
    assert result["cpu_seconds"] == 0
    assert result["peak_rss_mb"] == 0
    assert [entry["name"] for entry in result["processes"]] == ["kueue", "nothing"]
    assert all("error" in entry for entry in result["processes"])


def test_sampling_this_process_reads_real_proc(tmp_path):
    path = pid_file(tmp_path, "self", os.getpid())
    sample = cost.sample([path])[path]
    assert sample["pid"] == os.getpid()
    assert sample["ticks"] >= 0
    assert sample["hwm_kb"] > 1000
    assert sample["cpus"] == len(os.sched_getaffinity(0))
