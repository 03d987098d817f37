"""The audit policy every runtime's API server gets (filter_plugins/audit_policy.py) logs what the load test reads."""
import yaml
from audit_policy import audit_policy


def level(policy, group, resource, verb):
    """The level of the first rule that matches, as the API server picks it."""
    for rule in policy["rules"]:
        if "verbs" in rule and verb not in rule["verbs"]:
            continue
        if "resources" in rule and not any(entry["group"] == group and resource in entry["resources"]
                                           for entry in rule["resources"]):
            continue
        return rule["level"]
    return "None"


def test_what_the_load_test_times_is_logged_with_its_objects():
    policy = audit_policy()
    # A pod's creation and its binding (pods.csv), a Job's unsuspension by Kueue (jobs.csv's admitted).
    assert level(policy, "", "pods", "create") == "RequestResponse"
    assert level(policy, "", "pods/binding", "create") == "RequestResponse"
    assert level(policy, "batch", "jobs", "update") == "RequestResponse"
    # Volcano's admission: its PodGroup's status.
    assert level(policy, "scheduling.volcano.sh", "podgroups/status", "update") == "Request"
    # The rest only as metadata: the log stays small.
    assert level(policy, "", "configmaps", "update") == "Metadata"
    assert level(policy, "", "pods", "get") == "Metadata"
    assert policy["omitStages"] == ["RequestReceived", "ResponseStarted"]


def test_the_policy_is_a_copy_and_renders_as_yaml():
    policy = audit_policy()
    policy["rules"].clear()
    assert audit_policy()["rules"]
    assert yaml.safe_load(yaml.safe_dump(audit_policy()))["kind"] == "Policy"
