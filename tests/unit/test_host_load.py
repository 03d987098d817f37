"""How busy the host was during a load test (module_utils/metrics/host_load.py), from made-up /proc files whose
figures are worked out by hand below."""
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import host_load

# user nice system idle iowait irq softirq steal guest guest_nice
STAT = """cpu  {user} 0 {system} {idle} {iowait} 0 {softirq} {steal} {guest} 0
cpu0 1 0 1 1 0 0 0 0 0 0
cpu1 1 0 1 1 0 0 0 0 0 0
intr 12345 0 0
ctxt 999
"""


def proc_stat(pid, name, ppid, utime, stime, cutime=0, cstime=0, started=100):
    # Fields after the name: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime
    # cstime priority nice threads itrealvalue starttime ...
    return "%d (%s) S %d 1 1 0 -1 4194304 0 0 0 0 %d %d %d %d 20 0 1 0 %d 1000 10\n" % (
        pid, name, ppid, utime, stime, cutime, cstime, started)


def write_proc(root, stat, loadavg, processes):
    root.mkdir(parents=True, exist_ok=True)
    (root / "stat").write_text(stat)
    (root / "loadavg").write_text(loadavg)
    for line in processes:
        pid = line.split()[0]
        (root / pid).mkdir()
        (root / pid / "stat").write_text(line)
    (root / "self").mkdir()  # not a pid: skipped


def test_the_cpu_line_counts_steal_as_busy_and_guest_not_twice():
    # busy = user 700 + nice 0 + system 200 + irq 0 + softirq 50 + steal 50 = 1000; all = busy + idle 900 + iowait 100
    text = STAT.format(user=700, system=200, idle=900, iowait=100, softirq=50, steal=50, guest=300)
    assert host_load.parse_cpu_line(text) == (1000, 2000, 2)


def test_a_command_name_with_spaces_and_parentheses():
    process = host_load.parse_process(7, proc_stat(7, "my (odd) name", 1, 30, 12, 5, 3, started=4242))
    assert process == host_load.Process(7, 1, "my (odd) name", 42, 8, 4242)


def test_descendants_of_the_roots_only():
    processes = {pid: host_load.Process(pid, ppid, "p", 0, 0, 1) for pid, ppid in
                 ((1, 0), (10, 1), (11, 10), (12, 11), (20, 1), (21, 20))}
    assert host_load.descendants(processes, [10, 99]) == {10, 11, 12}


def test_pid_files_of_a_directory_and_single_ones(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "etcd.pid").write_text("101\n")
    (run / "kwok.pid").write_text("")          # a process being started: skipped
    (run / "notes.txt").write_text("7\n")
    (tmp_path / "kueue.pid").write_text("303")
    assert host_load.pids_of([str(run), str(tmp_path / "missing")],
                             [str(tmp_path / "kueue.pid"), str(tmp_path / "gone.pid")]) == [303, 101]


def two_samples(tmp_path):
    """A 2-CPU host over 10 s (2000 ticks of CPU time): the cluster's API server (pid 101) and its child (pid
    102), the load test (pid 200), a hog (pid 300, 'yes') and a short process that started meanwhile (pid 301)."""
    write_proc(tmp_path / "a", STAT.format(user=1000, system=500, idle=3000, iowait=0, softirq=0, steal=0, guest=0),
               "0.50 0.40 0.30 1/100 400\n",
               [proc_stat(1, "systemd", 0, 50, 50),
                proc_stat(101, "kube-apiserver", 1, 300, 100, cutime=10),
                proc_stat(102, "helper", 101, 20, 0),
                proc_stat(200, "python3", 1, 40, 10),
                proc_stat(300, "yes", 1, 100, 100, started=500)])
    # Busy: 1000 + 500 -> 2200 + 900: +1600 of +2000.
    write_proc(tmp_path / "b", STAT.format(user=2200, system=900, idle=3400, iowait=0, softirq=0, steal=0, guest=0),
               "1.90 0.80 0.40 3/100 420\n",
               [proc_stat(1, "systemd", 0, 52, 50),
                # +300 of its own and +20 of reaped children
                proc_stat(101, "kube-apiserver", 1, 500, 200, cutime=30),
                proc_stat(102, "helper", 101, 30, 0),        # +10
                proc_stat(200, "python3", 1, 150, 30),       # +130
                proc_stat(300, "yes", 1, 800, 200, started=500),  # +800
                proc_stat(301, "cc1", 1, 180, 20, started=900)])   # new: +200
    clock = iter([1000.0, 1010.0])
    start = host_load.sample([101, 200], str(tmp_path / "a"), lambda: next(clock))
    end = host_load.sample([101, 200], str(tmp_path / "b"), lambda: next(clock))
    return start, end


def test_other_processes_are_the_busy_time_less_the_benchmarks_own(tmp_path):
    start, end = two_samples(tmp_path)
    assert (start.own, end.own) == ({101, 102, 200}, {101, 102, 200})
    load = host_load.summarize(start, end, threshold=25)
    # Own: 300 + 20 (apiserver) + 10 (helper) + 130 (load test) = 460 of the 2000 ticks: 23 %.
    # Other: 1600 busy - 460 = 1140: 57 %; the busiest others: yes 800 (40 %), cc1 200 (10 %), systemd 2 (0.1 %).
    assert load == {
        "cpus": 2, "window_s": 10.0, "other_cpu_percent": 57.0, "own_cpu_percent": 23.0,
        "loadavg_before": 0.5, "loadavg_after": 1.9, "busy": True, "threshold_percent": 25,
        "top_other": [{"pid": 300, "name": "yes", "cpu_percent": 40.0},
                      {"pid": 301, "name": "cc1", "cpu_percent": 10.0},
                      {"pid": 1, "name": "systemd", "cpu_percent": 0.1}],
        "own_processes": 3}
    assert host_load.describe(load) == (
        "other processes used 57 % of the host's 2 CPUs (over the 25 % threshold; the busiest: yes 40 %, cc1 10 %), "
        "load average 0.5 before and 1.9 after")


def test_within_the_threshold_and_without_one(tmp_path):
    start, end = two_samples(tmp_path)
    assert host_load.summarize(start, end, threshold=57)["busy"] is False
    assert host_load.summarize(start, end, threshold=56.9)["busy"] is True
    assert host_load.summarize(start, end)["busy"] is None
    assert "within the 57 % threshold" in host_load.describe(host_load.summarize(start, end, threshold=57))


def test_a_pid_used_again_counts_from_the_new_process_start(tmp_path):
    start, end = two_samples(tmp_path)
    replaced = end.processes[300]._replace(started=999, ticks=50)
    end = end._replace(processes={**end.processes, 300: replaced})
    load = host_load.summarize(start, end, threshold=25)
    assert load["top_other"][1] == {"pid": 300, "name": "yes", "cpu_percent": 2.5}


def test_no_window_no_figures(tmp_path):
    start, _ = two_samples(tmp_path)
    load = host_load.summarize(start, start, threshold=25)
    assert (load["other_cpu_percent"], load["busy"], load["top_other"]) == (None, None, [])
    assert host_load.describe(load) is None


def test_over_repeats_takes_the_busiest_busy_repeat():
    quiet = {"other_cpu_percent": 30.0, "busy": False, "cpus": 2}
    busy = {"other_cpu_percent": 40.0, "busy": True, "cpus": 2, "threshold_percent": 35}
    busier = {"other_cpu_percent": 70.0, "busy": True, "cpus": 2, "threshold_percent": 35}
    over = host_load.over_repeats([quiet, busier, None, busy])
    assert over == {"repeats": 3, "busy_repeats": 2, "worst": busier}
    assert host_load.describe_repeats(over) == (
        "other processes used 70 % of the host's 2 CPUs (over the 35 % threshold); busy in 2 of 3 repeats, the figures "
        "are the busiest one's")
    assert host_load.over_repeats([None, {"busy": None}]) is None
    assert host_load.over_repeats([quiet])["busy_repeats"] == 0
