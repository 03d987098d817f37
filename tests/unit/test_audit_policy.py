"""The audit policy every runtime's API server gets (filter_plugins/audit_policy.py) logs what the load test reads."""
import yaml
from audit_policy import audit_policy
from infra.audit_levels import level


def test_what_the_load_test_times_is_logged_with_its_objects():
    policy = audit_policy()
    # A pod's creation with the server's answer (the name of a pod made from generateName, its owner and labels).
    assert level(policy, "", "pods", "create") == "RequestResponse"
    # Only the request where the answer is not read: a binding's node, a Job's unsuspension by Kueue (jobs.csv's
    # admitted), Volcano's admission (its PodGroup's status) and a write of Volcano's own jobs.
    assert level(policy, "", "pods/binding", "create") == "Request"
    assert level(policy, "batch", "jobs", "update") == "Request"
    assert level(policy, "scheduling.volcano.sh", "podgroups/status", "update") == "Request"
    assert level(policy, "batch.volcano.sh", "jobs", "patch") == "Request"
    # The rest only as metadata (the name of an object created with one, the client): the log stays small.
    for group, resource, verb in (("", "pods", "delete"), ("", "pods/status", "patch"), ("", "pods", "update"),
                                  ("batch", "jobs", "create"), ("batch", "jobs", "delete"), ("", "configmaps", "update"),
                                  ("", "pods", "get"), ("events.k8s.io", "events", "create")):
        assert level(policy, group, resource, verb) == "Metadata", (group, resource, verb)
    assert policy["omitStages"] == ["RequestReceived", "ResponseStarted"]
    assert policy["omitManagedFields"] is True


def test_the_policy_is_a_copy_and_renders_as_yaml():
    policy = audit_policy()
    policy["rules"].clear()
    assert audit_policy()["rules"]
    assert yaml.safe_load(yaml.safe_dump(audit_policy()))["kind"] == "Policy"


def test_bench_audit_policy_names_a_policy_or_no_audit_log():
    import pytest
    from ansible.errors import AnsibleFilterError
    assert audit_policy("light") == audit_policy() == audit_policy(None)
    full = audit_policy("full")
    # The policy of schema versions 1 and 2: every write of pods, bindings and jobs with its response.
    for group, resource, verb in (("", "pods", "create"), ("", "pods/binding", "create"), ("", "pods", "delete"),
                                  ("batch", "jobs", "create"), ("batch", "jobs", "update")):
        assert level(full, group, resource, verb) == "RequestResponse", (group, resource, verb)
    assert "omitManagedFields" not in full
    assert audit_policy("off") is None
    with pytest.raises(AnsibleFilterError, match="'heavy' is not a policy: use one of light, full, off"):
        audit_policy("heavy")
