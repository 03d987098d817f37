"""env.json's fake_nodes (plugin_utils/cluster/kwok_record.py) from the kwok configuration the runs use
(roles/binary_cluster/templates/kwok-stages.yaml.j2, rendered as Ansible renders it), checked against its schema."""
import json
import pathlib

import jinja2
import jsonschema
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.cluster import components
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.cluster.kwok_record import kwok_record

ROOT = pathlib.Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "roles" / "binary_cluster" / "templates" / "kwok-stages.yaml.j2"


def rendered():
    return jinja2.Template(TEMPLATE.read_text(encoding="utf-8")).render(ansible_managed="managed")


def fake_nodes_schema():
    return json.loads((ROOT / "schemas" / "env.schema.json").read_text(encoding="utf-8"))["properties"]["fake_nodes"]


def test_the_shipped_configuration_is_recorded_with_kwoks_defaults():
    record = kwok_record(rendered())
    assert [(stage["name"], stage["resource"]) for stage in record["stages"]] == [
        ("bench-node-ready", "Node"), ("bench-node-heartbeat", "Node"), ("bench-pod-running", "Pod"),
        ("bench-pod-complete", "Pod"), ("bench-pod-delete", "Pod")]
    heartbeat, complete = record["stages"][1], record["stages"][3]
    # A heartbeat every 120 to 150 s: with kube-controller-manager's 5 s monitor period, at most 155 s apart, so one
    # may lag by more than 2 minutes before the grace period the benchmark gives it on every runtime runs out.
    assert (heartbeat["delay_ms"], heartbeat["jitter_ms"], heartbeat["delay_from"]) == (120000, 150000, None)
    grace = components.component_flags("kube-controller-manager", dict.fromkeys(("api_qps", "api_burst", "job_syncs")))
    assert grace == {"node-monitor-grace-period": "5m"}
    assert 5 * 60 - (heartbeat["jitter_ms"] / 1000.0 + 5) > 120
    assert (complete["delay_ms"], complete["jitter_ms"], complete["delay_from"]) == (
        30000, None, '.metadata.annotations["sched-bench.io/run-duration"]')
    assert [stage["deletes"] for stage in record["stages"]] == [False, False, False, False, True]
    # The node is made Ready once, then kept Ready by its heartbeat; kwok keeps no lease (each renewal would list the
    # node's pods again).
    assert record["node_status_writes"] == ["bench-node-ready", "bench-node-heartbeat"]
    assert (record["node_lease_duration_s"], record["node_lease_renew_s"]) == (0, None)
    assert (record["pod_stage_parallelism"], record["node_stage_parallelism"], record["node_lease_parallelism"]) == (
        4, 4, 4)
    assert record["client_rate"].startswith("unlimited")
    jsonschema.validate(record, fake_nodes_schema())


def test_options_given_replace_kwoks_defaults():
    text = rendered() + "\n---\n" + "\n".join([
        "apiVersion: config.kwok.x-k8s.io/v1alpha1", "kind: KwokConfiguration",
        "options: {nodeLeaseDurationSeconds: 120, podPlayStageParallelism: 16}"])
    record = kwok_record(text)
    assert (record["node_lease_duration_s"], record["node_lease_renew_s"], record["pod_stage_parallelism"]) == (
        120, 30.0, 16)
    jsonschema.validate(record, fake_nodes_schema())
    broken = dict(record, node_lease_renew_s=0)
    try:
        jsonschema.validate(broken, fake_nodes_schema())
    except jsonschema.ValidationError:
        return
    raise AssertionError("a renewal of 0 s passed the schema")
