"""Every listener of a running cluster requires authentication (issue 11): etcd speaks TLS with client
certificates of its own CA only, the API server takes no anonymous request, and whatever answers without
credentials is a health check on the loopback address."""
import http.client
import ipaddress
import json
import os
import ssl
import time

import pytest
from conftest import failure_text, kept_run, new_bench_vars, processes_mentioning, run_playbook, task_results

HEALTH_PATHS = ("/healthz", "/health", "/readyz", "/livez")
PROBE_PATHS = HEALTH_PATHS + ("/", "/metrics", "/debug/pprof/", "/debug/pprof/profile?seconds=1", "/version",
                              "/api/v1/namespaces", "/configz", "/v2/keys", "/discovery/v1")


def _hex_address(text):
    """(address, port) of a /proc/net/tcp[6] local address such as 0100007F:4E20."""
    host, port = text.split(":")
    raw = bytes.fromhex(host)
    if len(raw) == 4:
        address = ipaddress.IPv4Address(raw[::-1])
    else:
        address = ipaddress.IPv6Address(b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4)))
    return str(address), int(port, 16)


def listening_sockets(pids):
    """(address, port, pid) of every TCP socket in LISTEN state that one of ``pids`` holds, from /proc."""
    inodes = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table, encoding="ascii") as handle:
            for line in list(handle)[1:]:
                fields = line.split()
                if fields[3] == "0A":
                    inodes[fields[9]] = _hex_address(fields[1])
    found = []
    for pid in pids:
        try:
            fds = os.listdir("/proc/%d/fd" % pid)
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
            except OSError:
                continue
            if target.startswith("socket:[") and target[8:-1] in inodes:
                found.append(inodes[target[8:-1]] + (pid,))
    return sorted(set(found))


def _get(host, port, path, context=None, timeout=5):
    """The status of a GET, or the exception's name when the server would not talk."""
    conn = (http.client.HTTPSConnection(host, port, context=context, timeout=timeout) if context
            else http.client.HTTPConnection(host, port, timeout=timeout))
    try:
        conn.request("GET", path)
        return conn.getresponse().status
    except (OSError, http.client.HTTPException) as exc:
        return type(exc).__name__
    finally:
        conn.close()


def _tls(ca=None, cert=None, key=None):
    context = ssl.create_default_context(cafile=ca) if ca else ssl._create_unverified_context()  # noqa: S323 - only asks whether the port answers; the certificate is not trusted for anything
    if not ca:
        context.check_hostname = False
    if cert:
        context.load_cert_chain(cert, key)
    return context


def unauthenticated_answers(listeners):
    """(address, port, scheme, path) of every request without credentials that got 200."""
    answered = []
    for address, port, _pid in listeners:
        host = "127.0.0.1" if address in ("0.0.0.0", "::") else address
        for scheme, context in (("http", None), ("https", _tls())):
            for path in PROBE_PATHS:
                if _get(host, port, path, context, timeout=8) == 200:
                    answered.append((address, port, scheme, path.split("?")[0]))
    return answered


@pytest.fixture(scope="module")
def module_bench_vars(tmp_path_factory):
    return new_bench_vars(tmp_path_factory.mktemp("kept"))


@pytest.fixture(scope="module")
def kept_cluster(tmp_path_factory, module_bench_vars):
    """The default scheduler's kept cluster, one for the module's tests: its directory and its ports."""
    with kept_run(tmp_path_factory.mktemp("kept-run"), module_bench_vars, "kept") as kept:
        with open(os.path.join(kept.cluster, "state.json"), encoding="utf-8") as handle:
            yield kept.cluster, json.load(handle)["ports"]


def test_etcd_and_the_api_server_refuse_clients_without_a_certificate(kept_cluster):
    cluster, ports = kept_cluster
    pki = os.path.join(cluster, "pki")
    etcd = ports["etcd_client"]
    # Plain HTTP: the TLS listener answers 400 at most, never etcd's data.
    assert _get("127.0.0.1", etcd, "/version") != 200
    assert _get("127.0.0.1", etcd, "/health") != 200
    # TLS, trusting etcd's CA, without a client certificate: the handshake is refused.
    assert _get("127.0.0.1", etcd, "/health", _tls(os.path.join(pki, "etcd-ca.crt"))) in (
        "SSLError", "ConnectionResetError", "BrokenPipeError", "RemoteDisconnected")
    # A client certificate of the cluster CA (the admin's) does not open etcd either: etcd has its own CA.
    assert _get("127.0.0.1", etcd, "/health", _tls(os.path.join(pki, "etcd-ca.crt"), os.path.join(pki, "admin.crt"),
                                                   os.path.join(pki, "admin.key"))) != 200
    # The API server's own etcd client certificate does.
    assert _get("127.0.0.1", etcd, "/health", _tls(os.path.join(pki, "etcd-ca.crt"),
                                                   os.path.join(pki, "apiserver-etcd-client.crt"),
                                                   os.path.join(pki, "apiserver-etcd-client.key"))) == 200
    # The peer port too.
    assert _get("127.0.0.1", ports["etcd_peer"], "/members", _tls(os.path.join(pki, "etcd-ca.crt"))) != 200
    # The API server works through etcd over TLS, and only with credentials.
    api = ports["apiserver"]
    admin = _tls(os.path.join(pki, "ca.crt"), os.path.join(pki, "admin.crt"), os.path.join(pki, "admin.key"))
    assert _get("127.0.0.1", api, "/api/v1/namespaces/kube-system", admin) == 200
    assert _get("127.0.0.1", api, "/api/v1/namespaces/kube-system", _tls(os.path.join(pki, "ca.crt"))) == 401
    assert _get("127.0.0.1", api, "/version", _tls(os.path.join(pki, "ca.crt"))) == 401


def test_no_port_of_a_running_cluster_answers_without_credentials(kept_cluster, module_bench_vars):
    cluster, ports = kept_cluster
    pids = [pid for pid, _cmd in processes_mentioning(module_bench_vars["bench_workspace"])]
    listeners = listening_sockets(pids)
    found_ports = {port for _address, port, _pid in listeners}
    # Every component of the cluster and the scheduler is running and seen.
    assert set(ports.values()) <= found_ports, (ports, listeners)
    start = time.monotonic()
    answered = unauthenticated_answers(listeners)
    print("probed %d listeners x %d requests in %.1f s" % (len(listeners), 2 * len(PROBE_PATHS),
                                                          time.monotonic() - start))
    wrong = [entry for entry in answered
             if entry[3] not in HEALTH_PATHS or not ipaddress.ip_address(entry[0]).is_loopback]
    assert wrong == [], (wrong, listeners)
    # And the probe can tell: kube-controller-manager's health check answers (on loopback).
    assert ("127.0.0.1", ports["controller_manager"], "https", "/healthz") in answered, answered


def test_listening_sockets_are_read_from_proc(tmp_path):
    import socket
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        assert ("127.0.0.1", port, os.getpid()) in listening_sockets([os.getpid()])


def _own_address():
    """A non-loopback IPv4 address of this machine, or None."""
    import socket
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))   # no packet is sent: this only picks the outgoing address
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if ipaddress.ip_address(address).is_loopback else address


def test_remote_access_on_purpose_says_what_is_open_and_still_authenticates(tmp_path, bench_vars):
    address = _own_address()
    if address is None:
        pytest.skip("this machine has no non-loopback IPv4 address")
    extravars = dict(bench_vars, bench_listen_address=address, bench_allow_remote_access=True)
    runner = run_playbook(tmp_path, "playbooks/cluster.yml", extravars, label="remote")
    try:
        assert runner.rc == 0, failure_text(runner)
        said = [event["res"]["msg"] for event in task_results(runner, "Report which ports are open to the network")
                if "msg" in event.get("res", {})]
        assert len(said) == 1, said
        output = said[0]
        cluster = os.path.join(bench_vars["bench_workspace"], "clusters", "bench")
        with open(os.path.join(cluster, "state.json"), encoding="utf-8") as handle:
            ports = json.load(handle)["ports"]
        assert ("listens on %s (reachable from other machines): etcd %d (clients) and %d (peers)"
                % (address, ports["etcd_client"], ports["etcd_peer"])) in output, output[-3000:]
        assert "kube-apiserver %d" % ports["apiserver"] in output
        assert "On 127.0.0.1 only: kube-controller-manager %d" % ports["controller_manager"] in output
        pids = [pid for pid, _cmd in processes_mentioning(bench_vars["bench_workspace"])]
        listeners = listening_sockets(pids)
        remote = sorted(port for host, port, _pid in listeners if host == address)
        assert remote == sorted([ports["etcd_client"], ports["etcd_peer"], ports["apiserver"]]), listeners
        assert all(host in (address, "127.0.0.1") for host, _port, _pid in listeners), listeners
        assert unauthenticated_answers([entry for entry in listeners if entry[0] == address]) == []
    finally:
        down = dict(bench_vars, bench_cluster_state="absent", bench_listen_address=address,
                    bench_allow_remote_access=True)
        down.pop("bench_run_id")
        stopped = run_playbook(tmp_path, "playbooks/cluster.yml", down, label="remote-down")
        assert stopped.rc == 0, failure_text(stopped)
        assert processes_mentioning(bench_vars["bench_workspace"]) == []
