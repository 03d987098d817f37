"""Upstream webhook configurations pointed at local servers (roles/scheduler/filter_plugins)."""

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.releases import manifests

UPSTREAM = """
apiVersion: v1
kind: Namespace
metadata: {name: volcano-system}
---
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: mutating-webhook-configuration
  annotations: {cert-manager.io/inject-ca-from: system/serving-cert}
webhooks:
  - name: mjob.kb.io
    admissionReviewVersions: [v1]
    clientConfig:
      service: {name: webhook-service, namespace: system, path: /mutate-batch-v1-job}
    failurePolicy: Fail
    sideEffects: None
    rules: [{apiGroups: [batch], apiVersions: [v1], operations: [CREATE], resources: [jobs]}]
  - name: mworkload.kb.io
    admissionReviewVersions: [v1]
    clientConfig:
      service: {name: webhook-service, namespace: system, path: /mutate-kueue-x-k8s-io-v1beta1-workload, port: 443}
    sideEffects: None
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: kueue-validating-webhook-configuration}
webhooks:
  - name: vjob.kb.io
    clientConfig:
      url: https://old.example:9443/validate-batch-v1-job
    sideEffects: None
"""


def docs():
    return list(yaml.safe_load_all(UPSTREAM))


def test_only_webhook_configurations_are_kept_and_pointed_at_the_local_server():
    result = manifests.local_webhooks(docs(), "https://127.0.0.1:40123/", "Q0E=", "kueue-")
    assert [doc["kind"] for doc in result] == ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]
    assert [doc["metadata"]["name"] for doc in result] == [
        "kueue-mutating-webhook-configuration", "kueue-validating-webhook-configuration"]
    configs = [hook["clientConfig"] for doc in result for hook in doc["webhooks"]]
    assert configs == [
        {"url": "https://127.0.0.1:40123/mutate-batch-v1-job", "caBundle": "Q0E="},
        {"url": "https://127.0.0.1:40123/mutate-kueue-x-k8s-io-v1beta1-workload", "caBundle": "Q0E="},
        {"url": "https://127.0.0.1:40123/validate-batch-v1-job", "caBundle": "Q0E="},
    ]
    assert "annotations" not in result[0]["metadata"]
    # Everything else about a webhook stays as upstream wrote it.
    assert result[0]["webhooks"][0]["rules"] == docs()[2]["webhooks"][0]["rules"]
    assert result[0]["webhooks"][0]["failurePolicy"] == "Fail"


def test_the_upstream_documents_are_not_changed():
    original = docs()
    manifests.local_webhooks(original, "https://127.0.0.1:1", "Q0E=")
    assert original == docs()


def test_without_a_prefix_names_stay():
    result = manifests.local_webhooks(docs(), "https://127.0.0.1:1", "Q0E=")
    assert result[0]["metadata"]["name"] == "mutating-webhook-configuration"


def test_plain_http_is_refused():
    with pytest.raises(AnsibleFilterError, match="https"):
        manifests.local_webhooks(docs(), "http://127.0.0.1:1", "Q0E=")


def test_a_webhook_without_a_target_is_refused():
    broken = docs()
    broken[2]["webhooks"][0]["clientConfig"] = {"caBundle": "eA=="}
    with pytest.raises(AnsibleFilterError, match="mjob.kb.io"):
        manifests.local_webhooks(broken, "https://127.0.0.1:1", "Q0E=")


def test_manifests_of_kind_skips_empty_documents():
    assert [doc["metadata"]["name"] for doc in manifests.manifests_of_kind(docs(), "Namespace")] == ["volcano-system"]
    assert len(manifests.manifests_of_kind(docs(), ["Namespace", "ValidatingWebhookConfiguration"])) == 2


def test_established_crds_are_those_with_the_condition_true():
    listed = [
        {"metadata": {"name": "queues.scheduling.volcano.sh"},
         "status": {"conditions": [{"type": "NamesAccepted", "status": "True"},
                                   {"type": "Established", "status": "True", "reason": "InitialNamesAccepted"}]}},
        {"metadata": {"name": "jobs.batch.volcano.sh"},
         "status": {"conditions": [{"type": "Established", "status": "False"}]}},
        {"metadata": {"name": "podgroups.scheduling.volcano.sh"}},
    ]
    assert manifests.established_crds(listed) == ["queues.scheduling.volcano.sh"]
    assert manifests.established_crds(None) == []


def test_documents_of_kind_parses_only_the_documents_asked_for():
    text = UPSTREAM + "\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: volcano-scheduler-configmap}\n" \
        "data:\n  volcano-scheduler.conf: |\n    actions: \"enqueue, allocate\"\n---\nkind: [not: valid: yaml\n"
    found = manifests.documents_of_kind(text, ["ConfigMap", "ValidatingWebhookConfiguration"])
    assert [doc["kind"] for doc in found] == ["ValidatingWebhookConfiguration", "ConfigMap"]
    assert found[1]["data"]["volcano-scheduler.conf"] == 'actions: "enqueue, allocate"\n'
    # A kind that only appears nested (a webhook's rules) does not select a document.
    assert manifests.documents_of_kind("kind: List\nitems:\n- kind: Namespace\n", "Namespace") == []
    assert manifests.documents_of_kind(text, "MutatingWebhookConfiguration") == docs()[2:3]
