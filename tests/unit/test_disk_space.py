"""The disk check before a run (module_utils/host/disk.py, plugin_utils/preflight/disk_needs.py): what a run
writes where, summed by file system, and the one line per shortfall."""
import os

import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host import disk
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.preflight.disk_needs import (
    builds_to_do,
    disk_needs,
    planned_builds,
    results_mb,
)

FIGURES = {"etcd_base_mb": 192, "etcd_kb_per_pod": 16, "audit_base_mb": 32, "audit_kb_per_pod": 16,
           "audit_compressed_kb_per_pod": 1.5, "results_base_mb": 2, "results_kb_per_pod": 0.05, "build_mb": 2048,
           "registry_mb": 2048, "kind_images_mb": 4096}
WORKLOAD = {"pods": 3000, "knobs": "bench_jobs, bench_pods_per_job or bench_nodes"}
PATHS = {"workspace": "/ws", "cache_dir": "/cache", "docker_root": "/var/lib/docker"}


def test_a_binary_run_needs_one_clusters_data_and_every_runs_results_in_the_workspace():
    needs = disk_needs(WORKLOAD, PATHS, FIGURES, "binary", runs=2, builds=0)
    assert [(need["path"], need["what"], need["mb"]) for need in needs] == [
        ("/ws", "etcd data", 192 + 47), ("/ws", "audit log", 32 + 47), ("/ws", "results of 2 load tests", 14)]
    assert {need["knob"] for need in needs} == {"bench_workspace"}


def test_builds_land_in_the_cache_and_kind_puts_etcd_and_images_under_dockers_data_root():
    needs = {need["what"]: need for need in disk_needs(WORKLOAD, PATHS, FIGURES, "kind", runs=1, builds=2)}
    assert needs["2 builds"]["path"] == "/cache" and needs["2 builds"]["mb"] == 4096
    assert needs["etcd data"]["path"] == "/var/lib/docker" and needs["kind's images"]["mb"] == 4096
    assert needs["local registry"]["path"] == "/ws"


def test_an_external_cluster_writes_only_results():
    needs = disk_needs(WORKLOAD, PATHS, FIGURES, "external", runs=3)
    assert [need["what"] for need in needs] == ["results of 3 load tests"]
    assert needs[0]["mb"] == results_mb(3000, 3, FIGURES, with_audit_log=False) == 7


def test_the_controller_holds_the_compressed_audit_log_only_when_it_is_fetched():
    assert results_mb(100000, 1, FIGURES, with_audit_log=False) == 7
    assert results_mb(100000, 1, FIGURES, with_audit_log=True) == 154


def test_builds_to_do_are_the_planned_ones_the_cache_has_no_directory_for():
    versions = {"kwok": "v0.6.1", "kubernetes": "v1.32.2", "etcd": "v3.5.16", "kueue": "v0.10.1", "volcano": "v1.11.0"}
    planned = planned_builds(versions, "binary", ["kueue", "volcano"])
    assert planned == ["kwok-v0.6.1", "kubernetes-v1.32.2-etcd-v3.5.16", "kueue-v0.10.1", "volcano-v1.11.0"]
    built = ["kwok-v0.6.1-go1.24.13", "kueue-v0.10.1-go1.24.13", "kueue-v0.10.10-go1.24.13"]
    assert builds_to_do(planned, built) == 2
    assert planned_builds(versions, "kind", ["kueue"]) == ["kwok-v0.6.1"]


def _probe(mounts):
    def probe(path):
        mount = max((point for point in mounts if path.startswith(point)), key=len)
        free, total = mounts[mount]
        return {"device": mount, "mount": mount, "fstype": "ext4", "free_mb": free, "total_mb": total}
    return probe


def test_needs_on_one_file_system_add_up_and_each_short_one_gets_one_line():
    needs = disk_needs(WORKLOAD, PATHS, FIGURES, "binary", runs=1, builds=1)
    groups = disk.group_by_file_system(needs, _probe({"/": (5000, 9000), "/ws": (300, 400)}))
    assert [(group["mount"], group["need_mb"]) for group in groups] == [("/ws", 239 + 79 + 7), ("/", 2048)]
    lines = disk.shortfalls(groups)
    assert lines == ["/ws (ext4 at /ws) has 300 MiB free; this run needs 325 MiB there (etcd data 239, audit log 79, "
                     "results of 1 load test 7): free space there, change bench_workspace, or lower bench_jobs, "
                     "bench_pods_per_job or bench_nodes"]
    assert disk.shortfalls(disk.group_by_file_system(needs, _probe({"/": (5000, 9000)}))) == []


def test_a_full_file_system_is_named_with_its_free_and_total_space():
    group = {"mount": "/ws", "fstype": "tmpfs", "free_mb": 0, "total_mb": 600, "needs": [{"path": "/ws/a"}]}
    assert disk.full_line(group, 32) == "the disk is full: /ws/a (tmpfs at /ws) has 0 MiB free of 600 MiB"
    assert disk.full_line(dict(group, free_mb=33), 32) == ""


def test_the_real_probe_measures_the_closest_existing_ancestor(tmp_path):
    found = disk.probe(str(tmp_path / "not" / "yet"))
    stat = os.statvfs(str(tmp_path))
    assert found["device"] == os.stat(str(tmp_path)).st_dev
    assert found["free_mb"] == pytest.approx(stat.f_bavail * stat.f_frsize // disk.MIB, abs=64)
    assert os.path.ismount(found["mount"]) and str(tmp_path).startswith(found["mount"])
    assert disk.file_system_type("/") != ""
