"""What the API server would have logged of an audit event under a given policy: the level of the first rule that
matches (verbs, then group and resource, a subresource as "<resource>/<subresource>"), and the event cut to that
level (Metadata: no objects; Request: no response; omitManagedFields: no metadata.managedFields). Test-side, to read
one real log as if it had been written under another policy."""
import copy


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


def event_level(policy, event):
    ref = event.get("objectRef") or {}
    resource = ref.get("resource", "")
    if ref.get("subresource"):
        resource += "/" + ref["subresource"]
    return level(policy, ref.get("apiGroup", ""), resource, event.get("verb"))


def under(policy, event):
    """The event as ``policy`` would have logged it, None when it would not have been."""
    if event.get("stage") in policy.get("omitStages", []):
        return None
    chosen = event_level(policy, event)
    if chosen == "None":
        return None
    cut = copy.deepcopy(event)
    cut["level"] = chosen
    drop = {"Metadata": ("requestObject", "responseObject"), "Request": ("responseObject",)}.get(chosen, ())
    for key in drop:
        cut.pop(key, None)
    if policy.get("omitManagedFields"):
        for key in ("requestObject", "responseObject"):
            if isinstance(cut.get(key), dict):
                cut[key].get("metadata", {}).pop("managedFields", None)
    return cut
