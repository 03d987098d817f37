"""Metrics endpoints inside a kind node (metrics/scrape.py's node targets, plugin_utils/cluster/metrics_targets.py).

The node's `curl` is this machine's real curl against a real HTTPS server on loopback; `docker exec --interactive
<node>` is stood in for by a script that checks those words and runs the rest here (the real `docker exec` into a
kind node is make test-kind's, tests/e2e/test_kind.py). It shows the token going on standard input and never on a
command line, a CA verified when one is given, and every failure recorded as one sentence."""
import os
import ssl
import subprocess

import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import scrape
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.cluster.metrics_targets import (
    control_plane_targets,
    metrics_targets,
    node_target,
)
from infra.metrics_server import MetricsHandler, serving

METRICS = "# TYPE scheduler_schedule_attempts_total counter\nscheduler_schedule_attempts_total{result=\"scheduled\"} 9\n"
TOKEN = "tok-en.1"
DOCKER_EXEC = """#!/bin/sh
[ "$1" = exec ] && [ "$2" = --interactive ] && [ "$3" = bench-control-plane ] || { echo "not docker exec: $*" >&2; exit 99; }
shift 3
exec "$@"
"""


class Handler(MetricsHandler):
    seen = []

    def answer(self):
        return (200, METRICS) if self.headers.get("Authorization") == "Bearer " + TOKEN else (401, "no")


@pytest.fixture
def node(tmp_path, monkeypatch):
    """(URL of an HTTPS /metrics on loopback, its certificate's path); `docker exec` stood in for on PATH."""
    cert, key = tmp_path / "server.crt", tmp_path / "server.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(str(cert), str(key))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "docker").write_text(DOCKER_EXEC)
    os.chmod(bin_dir / "docker", 0o755)
    monkeypatch.setenv("PATH", "%s:%s" % (bin_dir, os.environ["PATH"]))
    Handler.seen.clear()
    with serving(Handler, tls=context) as port:
        yield "https://127.0.0.1:%d/metrics" % port, str(cert)


def target(url, **extra):
    return dict({"process": "kube-scheduler", "url": url, "node": "bench-control-plane",
                 "service_account": "kube-system/reader"}, **extra)


def test_a_node_target_is_read_with_a_token_given_on_standard_input(node, tmp_path):
    url, _ = node
    asked = []

    def token_for(account):
        asked.append(account)
        return TOKEN
    found = scrape.scrape_all([target(url), target(url, process="kueue")], str(tmp_path / "out"), "before",
                              token_for=token_for)
    assert [found[process]["error"] for process in ("kube-scheduler", "kueue")] == [None, None]
    assert found["kube-scheduler"]["scrape"] and found["kueue"]["bytes"] > 0
    # One token per account and scrape, whatever the number of targets; the text format asked for.
    assert asked == ["kube-system/reader"]
    assert Handler.seen == [("/metrics", "Bearer " + TOKEN, "text/plain;version=0.0.4")] * 2
    assert not any(TOKEN in word for word in scrape.in_node_argv(target(url), 5))
    assert sorted(os.listdir(tmp_path / "out")) == ["metrics-kube-scheduler-before.prom.gz",
                                                    "metrics-kueue-before.prom.gz"]


def test_a_refused_token_or_a_wrong_ca_is_one_recorded_sentence(node, tmp_path):
    url, cert = node
    text, error = scrape.fetch(target(url), timeout=5, token_for=lambda account: "wrong")
    assert text is None and error.startswith("%s inside the node bench-control-plane: exit 22: " % url), error
    # A CA given is verified (etcd's): this server's own certificate passes, another CA does not.
    other = tmp_path / "other.crt"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=other",
                    "-keyout", str(tmp_path / "other.key"), "-out", str(other)], check=True, capture_output=True)
    assert scrape.fetch(target(url, ca=cert), timeout=5, token_for=lambda account: TOKEN) == (METRICS, None)
    text, error = scrape.fetch(target(url, ca=str(other)), timeout=5, token_for=lambda account: TOKEN)
    assert text is None and "exit 60" in error, error


def test_a_node_that_is_not_there_is_recorded(tmp_path):
    gone = dict(target("https://127.0.0.1:1/metrics"), node="no-such-node-of-sched-bench")
    text, error = scrape.fetch(gone, timeout=5, token_for=lambda account: TOKEN)
    assert text is None and error.startswith("https://127.0.0.1:1/metrics inside the node no-such-node-of-sched-bench")


@pytest.mark.parametrize("bad, words", [
    ({"node": "n", "service_account": "a/b"}, "needs its url"),
    ({"url": "https://x/metrics", "service_account": "a/b"}, "goes with node"),
    ({"url": "https://x/metrics", "node": "n"}, "needs service_account or client_cert"),
    ({"url": "https://x/metrics", "node": "n", "service_account": "reader"}, "namespace/name"),
    ({"url": "https://x/metrics", "node": "n", "service_account": "a/b/c"}, "namespace/name"),
])
def test_a_node_target_given_wrong_is_refused_in_one_line(bad, words):
    problem = scrape.target_problem(dict(bad, process="p"))
    assert problem.startswith("p: ") and words in problem and "\n" not in problem


@pytest.mark.parametrize("good", [
    {"url": "https://x/metrics", "node": "n", "service_account": "a/b"},
    {"url": "https://x/metrics", "node": "n", "client_cert": "/c.crt"},
    {"url": "https://x/metrics", "ca": "/ca.crt"},
    {"path": "/metrics"},
])
def test_the_targets_the_runtimes_give_are_accepted(good):
    assert scrape.target_problem(dict(good, process="p")) is None


KIND = {"control_plane_node": "bench-control-plane", "metrics_reader": "kube-system/reader", "node_metrics": {
    "kube-scheduler": {"url": "https://127.0.0.1:10259/metrics"},
    "kube-controller-manager": {"url": "https://127.0.0.1:10257/metrics"},
    "etcd": {"url": "https://127.0.0.1:2379/metrics", "ca": "/pki/ca.crt", "client_cert": "/pki/c.crt",
             "client_key": "/pki/c.key"}}}


def test_a_kind_clusters_control_plane_is_read_inside_its_node():
    targets = control_plane_targets(KIND)
    assert targets == [
        {"process": "kube-apiserver", "path": "/metrics"},
        {"process": "etcd", "url": "https://127.0.0.1:2379/metrics", "ca": "/pki/ca.crt", "client_cert": "/pki/c.crt",
         "client_key": "/pki/c.key", "node": "bench-control-plane"},
        {"process": "kube-controller-manager", "url": "https://127.0.0.1:10257/metrics", "node": "bench-control-plane",
         "service_account": "kube-system/reader"}]
    assert all(scrape.target_problem(each) is None for each in targets)
    # etcd's is verified and read with its certificate: no token, no --insecure.
    argv = scrape.in_node_argv(targets[1], 5)
    assert "--insecure" not in argv and "@-" not in argv and argv[argv.index("--cacert") + 1] == "/pki/ca.crt"
    # A scheduler's own endpoint in the node (Kueue's Service), read with the metrics reader's token.
    assert node_target(KIND, "kueue", "https://10.96.0.9:8443/metrics") == {
        "process": "kueue", "url": "https://10.96.0.9:8443/metrics", "node": "bench-control-plane",
        "service_account": "kube-system/reader"}
    scheduler = {"metrics": [node_target(KIND, "kube-scheduler")]}
    assert [each["process"] for each in metrics_targets(KIND, scheduler)] == [
        "kube-scheduler", "kube-apiserver", "etcd", "kube-controller-manager"]
    # An external cluster's record: its API server alone, through the load test's client.
    assert control_plane_targets({"kubeconfig": "/k"}) == [{"process": "kube-apiserver", "path": "/metrics"}]
