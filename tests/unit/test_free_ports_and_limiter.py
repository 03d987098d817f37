"""Port picking (library/bench_free_ports.py), the load generator's rate limiter and its paginated lists."""
import json
import random
import socket

import bench_free_ports
import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import client as sched_client
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.client import RateLimiter


def test_pick_skips_busy_ports_and_keeps_reused_ones():
    busy = {20001, 20002}
    ports = bench_free_ports.pick(["a", "b", "c"], "127.0.0.1", 20000, 20005, {"c": 20005},
                                  free=lambda _addr, port: port not in busy, rng=random.Random(1))
    assert ports["c"] == 20005
    assert len(set(ports.values())) == 3
    assert not busy & set(ports.values())


def test_pick_never_takes_a_port_promised_to_another_listener():
    # All free, but 20000-20002 belong to a cluster whose listeners start later.
    ports = bench_free_ports.pick(["a", "b"], "127.0.0.1", 20000, 20004, {}, free=lambda _a, _p: True,
                                  rng=random.Random(3), exclude=[20000, 20001, 20002])
    assert set(ports.values()) == {20003, 20004}
    assert bench_free_ports.pick(["a", "b", "c"], "127.0.0.1", 20000, 20004, {}, free=lambda _a, _p: True,
                                 exclude=[20000, 20001, 20002]) is None


def test_pick_reports_a_full_range():
    assert bench_free_ports.pick(["a", "b"], "127.0.0.1", 20000, 20001, {}, free=lambda _a, p: p == 20000) is None


def test_is_free_sees_a_listener():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        assert not bench_free_ports.is_free("127.0.0.1", sock.getsockname()[1])


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def time(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


def test_rate_limiter_allows_burst_then_paces():
    clock = FakeClock()
    limiter = RateLimiter(qps=10, burst=5, clock=clock.time, sleep=clock.sleep)
    for _ in range(5):
        limiter.acquire()
    assert clock.now == 0.0
    for _ in range(10):
        limiter.acquire()
    assert clock.now == pytest.approx(1.0, rel=0.01)


class _Response:
    """What the client returns with _preload_content=False: a body and a connection to release."""

    def __init__(self, body):
        self.data = json.dumps(body).encode()
        self.released = False

    def release_conn(self):
        self.released = True


def test_lists_come_a_page_at_a_time_and_keep_the_first_pages_version():
    items = [{"metadata": {"name": "pod-%d" % index}} for index in range(1200)]
    calls = []

    def list_call(namespace, limit, _continue, _preload_content, **kwargs):
        calls.append((namespace, limit, _continue, kwargs))
        start = int(_continue or 0)
        token = str(start + limit) if start + limit < len(items) else None
        # Later pages carry later versions; the list is the first page's snapshot.
        return _Response({"metadata": {"resourceVersion": str(100 + start), "continue": token},
                          "items": items[start:start + limit]})

    pages = sched_client.list_pages(list_call, "ns", _request_timeout=30)
    assert next(pages) == "100"
    assert [item["metadata"]["name"] for item in pages] == ["pod-%d" % index for index in range(1200)]
    assert [call[2] for call in calls] == [None, "500", "1000"]
    assert all(call[1] == sched_client.LIST_PAGE == 500 and call[3] == {"_request_timeout": 30} for call in calls)


def test_a_state_file_gives_the_ports_to_keep(tmp_path):
    state = tmp_path / "state.json"
    assert bench_free_ports.read_ports(str(state)) == {}          # no cluster here yet
    state.write_text('{"name": "bench", "ports": {"etcd_client": 21001, "apiserver": 21003}}')
    assert bench_free_ports.read_ports(str(state)) == {"etcd_client": 21001, "apiserver": 21003}
    for broken in ("not json", '{"ports": {"apiserver": "21003"}}', '["ports"]'):
        state.write_text(broken)
        with pytest.raises(ValueError, match="state.json is not a state file with ports"):
            bench_free_ports.read_ports(str(state))


def busy_then(results):
    """A call that raises the ApiExceptions of ``results`` in turn and returns the first other value."""
    from kubernetes.client.rest import ApiException
    calls = []

    def call():
        calls.append(1)
        value = results[len(calls) - 1]
        if isinstance(value, int):
            raise ApiException(status=value, reason="busy")
        return value
    return call, calls


def test_a_busy_server_is_asked_again_with_a_growing_pause():
    call, calls = busy_then([504, 429, "done"])
    pauses = []
    assert sched_client.when_not_busy(call, sleep=pauses.append) == "done"
    assert len(calls) == 3
    assert pauses == [sched_client.BUSY_PAUSE_S, sched_client.BUSY_PAUSE_S * 2]


def test_other_errors_and_the_last_busy_answer_are_raised():
    from kubernetes.client.rest import ApiException
    call, calls = busy_then([403, "never"])
    with pytest.raises(ApiException):
        sched_client.when_not_busy(call, sleep=lambda _s: None)
    assert len(calls) == 1
    call, calls = busy_then([504, 504, "never"])
    with pytest.raises(ApiException) as raised:
        sched_client.when_not_busy(call, attempts=2, sleep=lambda _s: None)
    assert raised.value.status == 504 and len(calls) == 2


def test_a_dropped_connection_is_asked_again_only_for_an_idempotent_request():
    import urllib3
    calls = []

    def dropped_once():
        calls.append(1)
        if len(calls) == 1:
            raise urllib3.exceptions.ProtocolError("Connection aborted.")
        return "deleted"
    assert sched_client.when_not_busy(dropped_once, idempotent=True, sleep=lambda _s: None) == "deleted"
    calls.clear()
    with pytest.raises(urllib3.exceptions.ProtocolError):
        sched_client.when_not_busy(dropped_once, sleep=lambda _s: None)
