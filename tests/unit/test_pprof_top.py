"""go tool pprof -top read into profiles.json (module_utils/metrics/pprof_top.py), and where the profiles are taken
(plugin_utils/cluster/pprof.py).

The fixtures are real outputs of the reading command of roles/loadtest/tasks/profiles.yml run with go1.24.13:
fixtures/pprof/kube-scheduler-read.txt on the four profiles of a binary-runtime run of the default scheduler (50 jobs
on 10 nodes, bench_scheduler_cpu_profile_seconds=5, -nodecount=12); fixtures/pprof/tiny-read.txt on the profiles
fixtures/pprof/tiny.go writes (cpu: busy in sort and sha256 with inlined functions; heap; idle-cpu: nothing sampled),
-nodecount=8."""
import os

import pytest
import yaml
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import pprof_top
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.cluster.pprof import pprof_endpoints

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "pprof")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENDPOINTS = {"scheduler": {"url": "https://127.0.0.1:1/debug/pprof"}, "apiserver": {"url": "https://127.0.0.1:2/debug/pprof"}}


def read_fixture(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as handle:
        return handle.read()


@pytest.fixture(name="real", scope="module")
def fixture_real():
    return pprof_top.split_read(read_fixture("kube-scheduler-read.txt"))


@pytest.fixture(name="tiny", scope="module")
def fixture_tiny():
    return pprof_top.split_read(read_fixture("tiny-read.txt"))


def test_the_reading_command_output_splits_into_its_profiles(real, tiny):
    assert list(real) == ["scheduler-cpu", "scheduler-heap", "apiserver-cpu", "apiserver-heap"]
    assert list(tiny) == ["cpu", "heap", "idle-cpu"]


def test_a_cpu_profile_of_kube_scheduler(real):
    parsed = pprof_top.parse_reports(real["scheduler-cpu"])
    assert (parsed["type"], parsed["unit"], parsed["binary"]) == ("cpu", "s", "kube-scheduler")
    # "Duration: 5s, Total samples = 170ms", "Showing nodes accounting for 160ms, 94.12% of 170ms total", 144 nodes.
    assert parsed["duration_s"] == 5.0
    assert parsed["total"] == pytest.approx(0.17)
    assert parsed["shown"] == pytest.approx(0.16)
    assert parsed["shown_fraction"] == pytest.approx(0.9412)
    assert parsed["nodes"] == 144
    assert len(parsed["functions"]) == len(parsed["functions_by_cum"]) == 12
    assert parsed["functions"][0] == {"function": "internal/runtime/syscall.Syscall6", "inline": False, "flat": 0.04,
                                      "flat_pct": 23.53, "cum": 0.04, "cum_pct": 23.53}
    flats = [function["flat"] for function in parsed["functions"]]
    cums = [function["cum"] for function in parsed["functions_by_cum"]]
    assert flats == sorted(flats, reverse=True) and cums == sorted(cums, reverse=True)
    # The shares are pprof's: flat / total, and the listed functions' flat shares add up to the shown fraction.
    for function in parsed["functions"]:
        assert function["flat_pct"] == pytest.approx(100 * function["flat"] / parsed["total"], abs=0.01)
    assert sum(function["flat_pct"] for function in parsed["functions"]) == pytest.approx(94.12, abs=0.05)


def test_a_heap_profile_of_kube_apiserver_is_in_bytes(real):
    parsed = pprof_top.parse_reports(real["apiserver-heap"])
    assert (parsed["type"], parsed["unit"], parsed["binary"]) == ("inuse_space", "B", "kube-apiserver")
    # pprof's MB is 2^20 bytes.
    assert parsed["total"] == pytest.approx(71.09 * 2 ** 20, rel=1e-3)
    assert parsed["functions"][0]["function"] == "encoding/json.Marshal"
    assert parsed["functions"][0]["flat"] == pytest.approx(4.24 * 2 ** 20, rel=1e-3)
    assert "duration_s" not in parsed
    # By cumulative value, the program's entry point holds most of what is in use.
    assert parsed["functions_by_cum"][0]["function"] == "runtime.main"


def test_inlined_functions_and_a_report_whose_unit_changes(tiny):
    parsed = pprof_top.parse_reports(tiny["cpu"])
    inlined = [function for function in parsed["functions"] if function["inline"]]
    assert [function["function"] for function in inlined] == ["cmp.Less[go.shape.int]"]
    # The report by cumulative value writes seconds (1.48s) where the one by flat value wrote milliseconds (1480ms).
    assert parsed["total"] == pytest.approx(1.48)
    assert parsed["functions_by_cum"][0] == {"function": "main.main", "inline": False, "flat": 0.0, "flat_pct": 0.0,
                                             "cum": 1.48, "cum_pct": 100.0}
    assert parsed["functions_by_cum"][3]["function"] == "slices.Sort[go.shape.[]int,go.shape.int]"


def test_a_profile_with_nothing_sampled(tiny):
    parsed = pprof_top.parse_reports(tiny["idle-cpu"])
    assert parsed["functions"] == parsed["functions_by_cum"] == []
    assert (parsed["total"], parsed["shown_fraction"], parsed["unit"], parsed["nodes"]) == (0.0, 0.0, "s", 0)
    assert parsed["duration_s"] == pytest.approx(0.30008)


@pytest.mark.parametrize("text, expected", [
    ("10ms", (0.01, "s")), ("1.50s", (1.5, "s")), ("250us", (0.00025, "s")), ("3ns", (3e-9, "s")),
    ("2hrs", (7200.0, "s")), ("512.02kB", (512.02 * 1024, "B")), ("2.50MB", (2.5 * 2 ** 20, "B")),
    ("1GB", (2.0 ** 30, "B")), ("0", (0.0, "")), ("1234", (1234.0, "")), ("-20ms", (-0.02, "s")),
])
def test_values_in_pprofs_units(text, expected):
    value, unit = pprof_top.parse_value(text)
    assert (value, unit) == (pytest.approx(expected[0]), expected[1])


@pytest.mark.parametrize("text", ["", "12 parsecs", "ms", "1.5furlongs"])
def test_what_is_not_a_value(text):
    with pytest.raises(ValueError):
        pprof_top.parse_value(text)


@pytest.mark.parametrize("text", ["", "failed to fetch any source profiles\n",
                                  "Showing nodes accounting for 1s, 10% of 10s total\n"])
def test_what_is_not_a_report(text):
    with pytest.raises(ValueError, match="not the output"):
        pprof_top.parse_top(text)


def test_a_row_that_does_not_parse_is_refused():
    text = ("Type: cpu\nShowing nodes accounting for 10ms, 100% of 10ms total\n"
            "      flat  flat%   sum%        cum   cum%\nsomething else entirely\n")
    with pytest.raises(ValueError, match="not a row"):
        pprof_top.parse_top(text)


def test_profiles_json_from_the_real_run():
    document = pprof_top.profiles_document(ENDPOINTS, read_fixture("kube-scheduler-read.txt"), 5)
    assert list(document) == ["scheduler-cpu", "scheduler-heap", "apiserver-cpu", "apiserver-heap"]
    for name, entry in document.items():
        assert "error" not in entry, entry
        assert entry["file"] == name + ".pprof"
        assert len(entry["functions"]) == len(entry["functions_by_cum"]) == 12
    assert document["scheduler-cpu"]["seconds"] == 5 and "sample_index" not in document["scheduler-cpu"]
    assert document["apiserver-heap"]["sample_index"] == "inuse_space" and "seconds" not in document["apiserver-heap"]
    assert pprof_top.document_lines(document)[0] == "scheduler-cpu: 144 functions"


def test_profiles_json_says_why_a_profile_is_missing():
    endpoints = {"scheduler": ENDPOINTS["scheduler"], "apiserver": {"skipped": "no address on kind"}}
    read = ("@@ profile scheduler-cpu\nscheduler-cpu.pprof: parsing profile: unrecognized profile format\n"
            "failed to fetch any source profiles\n@@ error go tool pprof exited with 1\n"
            "@@ profile scheduler-heap\n@@ error scheduler-heap.pprof is missing or empty\n")
    # As registered: the wait's item is the start's result; a heap fetch the uri module refused.
    cpu = [{"item": {"item": {"key": "scheduler"}, "ansible_job_id": "1"}, "status": 200, "changed": True}]
    heap = [{"item": {"key": "scheduler", "value": {}}, "status": 401, "failed": False,
             "msg": "Status code was 401 and not [200]: HTTP Error 401: Unauthorized"}]
    document = pprof_top.profiles_document(endpoints, read, 5, cpu, heap)
    assert document == {
        "scheduler-cpu": {"file": "scheduler-cpu.pprof", "seconds": 5,
                          "error": "go tool pprof exited with 1: scheduler-cpu.pprof: parsing profile: unrecognized "
                                   "profile format; failed to fetch any source profiles"},
        "scheduler-heap": {"file": "scheduler-heap.pprof",
                           "error": "not fetched (HTTP 401): Status code was 401 and not [200]: HTTP Error 401: "
                                    "Unauthorized"},
        "apiserver-cpu": {"skipped": "no address on kind"},
        "apiserver-heap": {"skipped": "no address on kind"},
    }


def test_profiles_json_when_nothing_could_be_read():
    cpu = [{"item": {"item": {"key": "scheduler"}}, "failed": True, "msg": "the job did not finish in 65 s"}]
    document = pprof_top.profiles_document({"scheduler": ENDPOINTS["scheduler"]}, "", 5, cpu, [],
                                           "rc=127: go: not found")
    assert document == {"scheduler-cpu": {"file": "scheduler-cpu.pprof",
                                          "error": "not fetched: the job did not finish in 65 s"},
                        "scheduler-heap": {"file": "scheduler-heap.pprof", "error": "not read: rc=127: go: not found"}}


def test_the_reading_command_prints_the_parsers_markers():
    with open(os.path.join(ROOT, "roles", "loadtest", "tasks", "profiles.yml"), encoding="utf-8") as handle:
        tasks = yaml.safe_load(handle)
    block = next(task for task in tasks if "block" in task)["block"]
    script = next(task for task in block if "ansible.builtin.command" in task)["vars"]["loadtest_pprof_read"]
    for marker in (pprof_top.PROFILE_MARKER, pprof_top.CUM_MARKER, pprof_top.ERROR_MARKER):
        assert marker.strip() in script


def test_the_binary_runtime_profiles_the_scheduler_and_kube_apiserver():
    cluster = {"runtime": "binary", "server": "https://127.0.0.1:29001", "pki": "/ws/clusters/bench/pki"}
    deployed = {"pprof": {"url": "https://127.0.0.1:29005/debug/pprof/profile", "ca": "/pki/ca.crt",
                          "client_cert": "/pki/admin.crt", "client_key": "/pki/admin.key"}}
    assert pprof_endpoints(cluster, deployed) == {
        "scheduler": {"url": "https://127.0.0.1:29005/debug/pprof", "ca": "/pki/ca.crt", "client_cert": "/pki/admin.crt",
                      "client_key": "/pki/admin.key"},
        "apiserver": {"url": "https://127.0.0.1:29001/debug/pprof", "ca": "/ws/clusters/bench/pki/ca.crt",
                      "client_cert": "/ws/clusters/bench/pki/admin.crt",
                      "client_key": "/ws/clusters/bench/pki/admin.key"}}
    plain = pprof_endpoints(cluster, {"pprof": {"url": "http://127.0.0.1:8080/debug/pprof/profile", "ca": ""}})
    assert plain["scheduler"] == {"url": "http://127.0.0.1:8080/debug/pprof", "ca": "", "client_cert": "",
                                  "client_key": ""}


def test_kind_says_why_it_has_no_profiles():
    endpoints = pprof_endpoints({"runtime": "kind", "kubeconfig": "/ws/kind/kubeconfig"}, {"status": "ready"})
    assert endpoints == {
        "scheduler": {"skipped": "the scheduler's deployment on the kind runtime records no pprof address"},
        "apiserver": {"skipped": "the kind runtime's cluster record names no API server address with client "
                                 "certificate files (server and pki)"}}
