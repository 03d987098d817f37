"""The load generator's creates (loadtest/client.create, create_workload) against a real HTTP server on loopback: each
request is what the pinned kubernetes client's generated create_namespaced_* methods send (method, path, headers, the
bearer token, the same JSON object; only its keys' order differs), one rate-limited request per object in order, an
error status raised as ApiException, and a server that does not answer given up after the time limit."""
import http.server
import json
import threading
import time

import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import client as sched_client
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import workloads as sched_workloads
from kubernetes import client as k8s_client
from kubernetes.client.rest import ApiException


class Recorder(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen = []
    status = 201
    delay_s = 0.0

    def do_POST(self):  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        Recorder.seen.append((self.command, self.path, sorted((key.lower(), value) for key, value in self.headers.items()
                                                              if key.lower() != "content-length"), body))
        time.sleep(Recorder.delay_s)
        answer = json.dumps({"kind": "Status", "code": Recorder.status}).encode()
        self.send_response(Recorder.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


@pytest.fixture
def api():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    configuration = k8s_client.Configuration(host="http://127.0.0.1:%d" % server.server_port,
                                             api_key={"authorization": "tok"}, api_key_prefix={"authorization": "Bearer"})
    configuration.retries = 0
    client = k8s_client.ApiClient(configuration)
    client.user_agent = sched_client.LOADGEN_USER_AGENT
    Recorder.seen.clear()
    Recorder.status, Recorder.delay_s = 201, 0.0
    yield sched_client.apis(client)
    server.shutdown()


def generated(apis, api, namespace, body):
    """The same create through the client's generated method, as the load generator made it before."""
    options = {"_preload_content": False, "_request_timeout": sched_client.CREATE_TIMEOUT_S}
    if api == "batch":
        return apis.batch.create_namespaced_job(namespace, body, **options)
    if api == "pod":
        return apis.core.create_namespaced_pod(namespace, body, **options)
    group, version, plural = sched_workloads.CUSTOM_APIS[api]
    return apis.custom.create_namespaced_custom_object(group, version, namespace, plural, body, **options)


WORK = dict(pods_per_job=2, pod_cpu="1", pod_memory="200Mi", pod_duration=30.0, pod_creation="jobs")


@pytest.mark.parametrize("scheduler, creation", [("default", "jobs"), ("kueue", "jobs"), ("volcano", "direct"),
                                                 ("coscheduling", "direct"), ("yunikorn", "jobs")])
def test_each_create_is_what_the_generated_method_sends(api, scheduler, creation):
    objects = sched_workloads.workload(3, sched_workloads.Target(scheduler, "ns-1", "run-1"),
                                       dict(WORK, pod_creation=creation))
    for kind, body in objects:
        sched_client.drain(generated(api, kind, "ns-1", body))
        theirs = Recorder.seen.pop()
        sched_client.drain(sched_client.create(api.core.api_client, sched_client.CREATE_PATHS[kind] % "ns-1", body))
        mine = Recorder.seen.pop()
        # The same method, path and headers, and the same JSON object: the generated method (pydantic) makes the
        # body a model first, so its keys come in the model's order, ours in the builders'.
        assert mine[:3] == theirs[:3] and json.loads(mine[3]) == json.loads(theirs[3]) == body
        assert ("authorization", "Bearer tok") in theirs[2]


def test_each_object_of_a_job_is_one_rate_limited_request_in_order(api):
    tokens = []
    objects = sched_workloads.workload(3, sched_workloads.Target("volcano", "ns", "r"), dict(WORK, pod_creation="direct"))
    sched_client.create_workload(api, "ns", objects, lambda: tokens.append(len(Recorder.seen)))
    assert [(path, json.loads(body)["metadata"]["name"]) for _, path, _, body in Recorder.seen] == [
        ("/apis/scheduling.volcano.sh/v1beta1/namespaces/ns/podgroups", "job-00003"),
        ("/api/v1/namespaces/ns/pods", "job-00003-0"), ("/api/v1/namespaces/ns/pods", "job-00003-1")]
    # A token before every request, none spent twice.
    assert tokens == [0, 1, 2]


def test_an_error_status_is_raised_and_a_silent_server_given_up(api):
    Recorder.status = 409
    with pytest.raises(ApiException) as raised:
        sched_client.create(api.core.api_client, "/api/v1/namespaces/ns/pods", {"metadata": {"name": "p"}})
    assert raised.value.status == 409
    Recorder.status, Recorder.delay_s = 201, 3.0
    started = time.monotonic()
    with pytest.raises(Exception):  # noqa: B017 - urllib3's timeout error, whichever class this version raises
        sched_client.create(api.core.api_client, "/api/v1/namespaces/ns/pods", {"metadata": {"name": "p"}}, timeout=0.5)
    assert time.monotonic() - started < 2.5
