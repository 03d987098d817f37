# -*- coding: utf-8 -*-
"""Thin, fast helpers over the Python kubernetes client for the load test.

Responses are read raw (``_preload_content=False``) and parsed with ``json``:
the client's model classes cost milliseconds per object, which would make the
load generator, not the scheduler, the bottleneck.
"""
from __future__ import annotations

import json
import threading
import time
from collections import namedtuple

import urllib3
from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers as descriptors
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.workloads import CUSTOM_APIS
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.audit import job_of
from kubernetes import client as k8s_client
from kubernetes import config as k8s_config
from kubernetes.client.rest import ApiException

# Pods the watch has seen created, bound to a node, and finished.
PodCounts = namedtuple("PodCounts", "created bound completed")
# The client's APIs that a workload's objects are created through.
Apis = namedtuple("Apis", "core batch custom")


class RateLimiter:
    """Token bucket: ``qps`` tokens a second, at most ``burst`` saved up. Thread-safe."""

    def __init__(self, qps, burst, clock=time.monotonic, sleep=time.sleep):
        self.qps = float(qps)
        self.burst = float(burst)
        self.tokens = float(burst)
        self.clock = clock
        self.sleep = sleep
        self.last = clock()
        self.lock = threading.Lock()

    def acquire(self):
        while True:
            with self.lock:
                now = self.clock()
                self.tokens = min(self.burst, self.tokens + (now - self.last) * self.qps)
                self.last = now
                # The tolerance keeps rounding (0.999...) from spinning on sleeps too short to count.
                if self.tokens >= 1 - 1e-9:
                    self.tokens -= 1
                    return
                wait = max((1 - self.tokens) / self.qps, 1e-6)
            self.sleep(wait)


# The load test's requests, as the audit log names them (metrics/requests.py counts them as the load generator's).
LOADGEN_USER_AGENT = "sched-bench-loadgen/0"
# A create the API server has not answered in this time will not be answered: its own limit is 60 s (a 504 then). It
# is what lets a load test that is stopped while the server hangs (etcd dead on a full disk) end and write its results.
CREATE_TIMEOUT_S = 90


def api_client(kubeconfig, context, pool_size):
    """An ApiClient for the kubeconfig, with a connection pool for ``pool_size`` threads."""
    configuration = k8s_client.Configuration()
    k8s_config.load_kube_config(config_file=kubeconfig, context=context or None,
                                client_configuration=configuration, persist_config=False)
    configuration.connection_pool_maxsize = max(pool_size, 4)
    configuration.retries = 0
    client = k8s_client.ApiClient(configuration)
    # The load generator's main process; its child processes set their own number (submitters.USER_AGENT).
    client.user_agent = LOADGEN_USER_AGENT
    return client


def read_json(response):
    """Body of a raw urllib3 response as a dict, releasing the connection."""
    try:
        return json.loads(response.data)
    finally:
        response.release_conn()


def drain(response):
    """Read and discard a raw response so that its connection can be reused."""
    try:
        response.read()
    finally:
        response.release_conn()


def namespace_exists(core, name):
    """Whether the namespace exists (also while it terminates); other errors are raised."""
    try:
        drain(core.read_namespace(name, _preload_content=False))
        return True
    except Exception as exc:  # noqa: BLE001 - the client raises many types; each is checked by status or reported
        if is_status(exc, 404):
            return False
        raise


def apis(client):
    return Apis(k8s_client.CoreV1Api(client), k8s_client.BatchV1Api(client), k8s_client.CustomObjectsApi(client))


# Where each kind of object is created: the generated create_namespaced_* methods' own paths.
CREATE_PATHS = {"batch": "/apis/batch/v1/namespaces/%s/jobs", "pod": "/api/v1/namespaces/%s/pods"}
CREATE_PATHS.update({api: "/apis/%s/%s/namespaces/%%s/%s" % table for api, table in CUSTOM_APIS.items()})
# The Accept header the generated create methods ask the client to choose from.
CREATE_ACCEPT = ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf", "application/cbor"]


def create(client, path, body, timeout=CREATE_TIMEOUT_S):
    """POST ``body`` (plain JSON data, as the workload builders make it) to ``path`` as the client's generated
    create_namespaced_* methods send it: the same URL, headers, credentials (param_serialize, auth BearerToken) and
    JSON (rest.request's json.dumps). It leaves out their pydantic argument validation and their walk of the body
    (sanitize_for_serialization), which return plain data unchanged and took a third of the load generator's CPU per
    create (docs/measurements.md#the-load-generator). The raw response, or ApiException when not 2xx, as
    _preload_content=False gives and raises them."""
    method, url, headers, _, _ = client.param_serialize(
        "POST", path, header_params={"Accept": client.select_header_accept(CREATE_ACCEPT)},
        auth_settings=["BearerToken"])
    response = client.call_api(method, url, header_params=headers, body=body, _request_timeout=timeout)
    if not 200 <= response.status <= 299:
        response.read()
        raise ApiException.from_response(http_resp=response, body=None, data=None)
    return response.response


def create_workload(apis, namespace, objects, acquire):
    """Create the objects of one job (from sched_workloads.workload) in order, without parsing the answers.

    ``acquire`` is called before each request (the rate limiter's).
    """
    for api, body in objects:
        acquire()
        drain(create(apis.core.api_client, CREATE_PATHS[api] % namespace, body))


def error_text(exc):
    """One line describing an API or connection error."""
    if isinstance(exc, ApiException):
        reason = exc.reason or ""
        try:
            reason = json.loads(exc.body).get("message", reason)
        except (TypeError, ValueError, AttributeError):
            pass
        return "HTTP %s: %s" % (exc.status, reason)
    return "%s: %s" % (type(exc).__name__, exc)


def is_status(exc, code):
    return isinstance(exc, ApiException) and exc.status == code


# The API server's answers that mean "busy, ask again": too many requests, and its own request timeout (504,
# "request did not complete within the allotted timeout", which a deletion of many objects on a loaded host meets).
BUSY_STATUSES = (429, 504)
BUSY_ATTEMPTS = 4
BUSY_PAUSE_S = 2.0


def is_busy(exc, idempotent):
    """Whether ``exc`` says the server was busy. A connection it dropped counts too when the request is
    idempotent (a deletion): asking again cannot do it twice."""
    if isinstance(exc, ApiException):
        return exc.status in BUSY_STATUSES
    return idempotent and isinstance(exc, (urllib3.exceptions.HTTPError, ConnectionError))


def when_not_busy(call, idempotent=False, attempts=BUSY_ATTEMPTS, pause=BUSY_PAUSE_S, sleep=time.sleep):
    """``call()``, asked again (after ``pause``, doubled each time) while the server answers busy; any other
    error, or busy ``attempts`` times, is raised."""
    for attempt in range(attempts):
        try:
            return call()
        except Exception as exc:  # noqa: BLE001 - is_busy decides; everything else is raised as it came
            if not is_busy(exc, idempotent) or attempt == attempts - 1:
                raise
            sleep(pause * 2 ** attempt)
    raise ValueError("when_not_busy needs at least one attempt")


# Objects per page of a list: a list of 30,000 pods in one response is a 100 MB body.
LIST_PAGE = 500


def list_pages(list_call, *args, **kwargs):
    """Yield the list's resourceVersion, then its items, a page of LIST_PAGE at a time."""
    token, first = None, True
    while True:
        body = read_json(list_call(*args, limit=LIST_PAGE, _continue=token, _preload_content=False, **kwargs))
        if first:
            yield body["metadata"]["resourceVersion"]
            first = False
        yield from body.get("items") or []
        token = body["metadata"].get("continue")
        if not token:
            return


# Seconds the server keeps a watch open; a healthy watch is heard from at least this often, if only by reconnecting.
WATCH_TIMEOUT_S = 60
# A watch not heard from for this long is stuck: only then is a list worth what it costs (every pod of the
# namespace, serialized by the API server and decoded here, 16 to 70 s for 100,000 pods on 2 cores).
WATCH_SILENT_S = WATCH_TIMEOUT_S + 30


class PodWatch(threading.Thread):
    """Follows the pods of one namespace and notes, per pod, when it was first
    seen, bound to a node and finished, as seen by this client (watch timing).

    It reconnects after the server closes a watch and relists after 410 Gone.
    ``error`` holds the last error that stopped it for good.
    """

    def __init__(self, core, namespace, clock=time.time):
        super().__init__(daemon=True)
        self.core = core
        self.namespace = namespace
        self.clock = clock
        self.lock = threading.Lock()
        self.created = {}
        self.bound = {}
        self.node = {}
        self.job = {}
        self.done = {}
        self.ended = {}           # deleted (or being deleted) before it finished: preempted, evicted
        self.stopping = threading.Event()
        self.error = None
        self.response = None
        self.heard = time.monotonic()

    def counts(self):
        with self.lock:
            return PodCounts(len(self.created), len(self.bound), len(self.done))

    def silent_for(self):
        """Seconds since the server last sent anything on the watch or the watch last reconnected."""
        return time.monotonic() - self.heard

    def stop(self):
        self.stopping.set()
        response = self.response
        if response is not None:
            try:
                response.close()
            except Exception:  # noqa: BLE001 - closing a socket that is going away
                pass

    def completions(self):
        """Pod name -> when this client saw it finish (Succeeded or Failed), in microseconds."""
        with self.lock:
            return dict(self.done)

    def jobs_held(self, needs):
        """How many jobs of ``needs`` (job name -> pods) hold that many bound pods that were not deleted before they
        finished (a preempted pod counts through its replacement)."""
        held = {}
        with self.lock:
            for name in self.bound:
                if name not in self.ended:
                    held[self.job.get(name, "")] = held.get(self.job.get(name, ""), 0) + 1
        return sum(1 for job, pods in needs.items() if held.get(job, 0) >= pods)

    def _note(self, pod, deleted=False):
        meta = pod.get("metadata") or {}
        name = meta.get("name")
        if not name or descriptors.is_placeholder(meta):    # the scheduler's stand-in, not a pod of a job
            return
        now = int(self.clock() * 1_000_000)
        spec = pod.get("spec") or {}
        phase = (pod.get("status") or {}).get("phase")
        with self.lock:
            if name not in self.created:
                self.created[name] = now
                self.job[name] = job_of(meta)
            if spec.get("nodeName") and name not in self.bound:
                self.bound[name] = now
                self.node[name] = spec["nodeName"]
            if phase in ("Succeeded", "Failed") and name not in self.done:
                self.done[name] = now
            if (deleted or meta.get("deletionTimestamp")) and name not in self.done and name not in self.ended:
                self.ended[name] = now

    def _list(self):
        pages = list_pages(self.core.list_namespaced_pod, self.namespace, _request_timeout=30)
        version = next(pages)
        for pod in pages:
            self._note(pod)
        return version

    def resync(self):
        """Take in the pods' current state by listing them (their times are those of this call)."""
        self._list()

    def run(self):
        failures = 0
        version = None
        while not self.stopping.is_set():
            try:
                if version is None:
                    version = self._list()
                self.response = self.core.list_namespaced_pod(
                    self.namespace, watch=True, resource_version=version, allow_watch_bookmarks=True,
                    timeout_seconds=WATCH_TIMEOUT_S, _preload_content=False)
                self.heard = time.monotonic()
                buffer = b""
                # amt=None hands over each chunk as it arrives: a watch must not wait for a full buffer.
                for chunk in self.response.stream(None, decode_content=False):
                    self.heard = time.monotonic()
                    buffer += chunk
                    *lines, buffer = buffer.split(b"\n")
                    for line in lines:
                        if not line.strip():
                            continue
                        event = json.loads(line)
                        kind = event.get("type")
                        obj = event.get("object") or {}
                        if kind == "ERROR":
                            if obj.get("code") == 410:
                                version = None
                            raise RuntimeError(obj.get("message", "watch error"))
                        version = (obj.get("metadata") or {}).get("resourceVersion", version)
                        if kind in ("ADDED", "MODIFIED", "DELETED"):
                            self._note(obj, deleted=kind == "DELETED")
                failures = 0
            except Exception as exc:  # noqa: BLE001 - any failure: retry, then give up
                if self.stopping.is_set():
                    return
                failures += 1
                self.error = error_text(exc)
                if failures > 20:
                    return
                time.sleep(min(0.1 * failures, 1.0))
            finally:
                response, self.response = self.response, None
                if response is not None:
                    response.release_conn()

    def records(self):
        """Per-pod records in the form sched_metrics uses."""
        with self.lock:
            rows = [{
                "job": self.job.get(name, ""),
                "pod": name,
                "node": self.node.get(name, ""),
                "created_us": created,
                "bound_us": self.bound.get(name),
                "ended_us": self.ended.get(name),
                "completed_us": self.done.get(name),
            } for name, created in self.created.items()]
        rows.sort(key=lambda row: (row["created_us"], row["pod"]))
        return rows
