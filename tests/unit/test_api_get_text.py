"""The API server's /metrics read through the load test's own client (loadtest/observe.api_get_text), as on kind and
external clusters, with the pinned kubernetes client against a real HTTP server on loopback: the text, the bearer
token sent, and an error status raised."""
import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.observe import api_get_text
from infra.metrics_server import MetricsHandler, serving
from kubernetes import client as k8s_client
from kubernetes.client.rest import ApiException

METRICS = "# TYPE apiserver_request_total counter\napiserver_request_total{verb=\"GET\"} 7\n"


class Handler(MetricsHandler):
    seen = []

    def answer(self):
        return (200, METRICS) if self.path == "/metrics" else (403, "forbidden")


@pytest.fixture
def api():
    with serving(Handler) as port:
        configuration = k8s_client.Configuration(host="http://127.0.0.1:%d" % port, api_key={"authorization": "tok"},
                                                 api_key_prefix={"authorization": "Bearer"})
        yield k8s_client.ApiClient(configuration)


def test_the_api_servers_metrics_are_read_as_text_with_the_clients_token(api):
    Handler.seen.clear()
    assert api_get_text(api, "/metrics", 5) == METRICS
    assert Handler.seen == [("/metrics", "Bearer tok", "text/plain")]
    with pytest.raises(ApiException) as raised:
        api_get_text(api, "/metrics/slis", 5)
    assert raised.value.status == 403
