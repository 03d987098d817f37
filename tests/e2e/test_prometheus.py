"""Every figure as OpenMetrics, end to end (issue 56): a tiny run's metrics.prom passes `promtool check metrics`, and a
real Prometheus (Debian's package, `make prometheus`) started on a free port scrapes it as OpenMetrics from a file
server on 127.0.0.1 and returns the run's throughput, equal to summary.json's, through its HTTP API. The Prometheus
process and the file server are stopped whatever happens."""
import contextlib
import functools
import http.server
import json
import os
import shutil
import socket
import subprocess
import threading
import time
import urllib.parse
import urllib.request

import pytest
from conftest import failure_text, processes_mentioning, run_playbook

TINY = dict(bench_nodes=5, bench_jobs=5, bench_pods_per_job=1, bench_pod_duration=1, bench_timeout=180)
OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8"
pytestmark = pytest.mark.skipif(shutil.which("prometheus") is None or shutil.which("promtool") is None,
                                reason="Debian's prometheus package is not installed: make prometheus")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def serving(directory):
    """An HTTP server on 127.0.0.1 serving ``directory``'s files as OpenMetrics; yields its address."""
    class OpenMetricsFiles(http.server.SimpleHTTPRequestHandler):
        def guess_type(self, path):
            return OPENMETRICS

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(OpenMetricsFiles, directory=directory))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield "127.0.0.1:%d" % server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextlib.contextmanager
def prometheus_scraping(target, work_dir):
    """A Prometheus of its own (its own port, configuration and storage under ``work_dir``) scraping ``target``'s
    /metrics.prom every second; yields its URL. Stopped, and killed if it does not stop, at the end."""
    port = free_port()
    config = os.path.join(work_dir, "prometheus.yml")
    with open(config, "w", encoding="utf-8") as handle:
        json.dump({"global": {"scrape_interval": "1s", "scrape_timeout": "1s"},
                   "scrape_configs": [{"job_name": "kube_sched_bench", "honor_labels": True,
                                       "metrics_path": "/metrics.prom", "static_configs": [{"targets": [target]}]}]},
                  handle)
    with open(os.path.join(work_dir, "prometheus.log"), "w", encoding="utf-8") as log:
        process = subprocess.Popen(["prometheus", "--config.file=" + config,
                                    "--storage.tsdb.path=" + os.path.join(work_dir, "tsdb"),
                                    "--web.listen-address=127.0.0.1:%d" % port], stdout=log, stderr=subprocess.STDOUT)
    try:
        yield "http://127.0.0.1:%d" % port
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def api(url, path, **query):
    try:
        with urllib.request.urlopen("%s%s?%s" % (url, path, urllib.parse.urlencode(query)), timeout=5) as response:
            return json.load(response)
    except OSError:
        return None


def wait_for_samples(url, query, seconds=90):
    """The query's result vector once it has samples (Prometheus just started: it answers after a scrape or two)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        answer = api(url, "/api/v1/query", query=query)
        if answer and answer["status"] == "success" and answer["data"]["result"]:
            return answer["data"]["result"]
        time.sleep(1)
    raise AssertionError("no samples for %s within %d s" % (query, seconds))


def test_metrics_prom_passes_promtool_and_a_real_prometheus_returns_the_throughput(tmp_path, bench_vars):
    runner = run_playbook(tmp_path, "bench.yml", dict(bench_vars, **TINY), label="tiny")
    assert runner.rc == 0, failure_text(runner)
    run_id = bench_vars["bench_run_id"]
    run_dir = os.path.join(bench_vars["bench_results_dir"], run_id)
    with open(os.path.join(run_dir, "localhost", "default", "summary.json"), encoding="utf-8") as handle:
        summary = json.load(handle)
    with open(os.path.join(run_dir, "metrics.prom"), "rb") as handle:
        checked = subprocess.run(["promtool", "check", "metrics"], stdin=handle, capture_output=True, text=True,
                                 check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    work_dir = tmp_path / "prometheus"
    work_dir.mkdir()
    with serving(run_dir) as target, prometheus_scraping(target, str(work_dir)) as url:
        query = 'kube_sched_bench_throughput_pods_per_second{run="%s",host="localhost",scheduler="default"}' % run_id
        (sample,) = wait_for_samples(url, query)
        assert float(sample["value"][1]) == pytest.approx(summary["throughput_pods_per_s"])
        assert (sample["metric"]["scenario"], sample["metric"]["runtime"], sample["metric"]["repeat"]) == (
            "burst", "binary", "1")
        # Scraped as OpenMetrics, with nothing refused: the target is up, and the unit reached Prometheus' metadata.
        (active,) = api(url, "/api/v1/targets")["data"]["activeTargets"]
        assert (active["health"], active["lastError"]) == ("up", ""), active
        (p99,) = wait_for_samples(url, 'kube_sched_bench_latency_p99_seconds{run="%s"}' % run_id)
        assert float(p99["value"][1]) == pytest.approx(summary["latency_ms"]["p99"] / 1000.0)
        metadata = api(url, "/api/v1/metadata", metric="kube_sched_bench_latency_p99_seconds")["data"]
        assert metadata["kube_sched_bench_latency_p99_seconds"][0]["unit"] == "seconds", metadata
    assert processes_mentioning(str(work_dir)) == []
    assert processes_mentioning(bench_vars["bench_workspace"]) == []
