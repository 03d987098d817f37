"""daemon.json merged, not overwritten (roles/docker/filter_plugins/docker_daemon.py)."""
import importlib.util
import json
import pathlib

import pytest
from ansible.errors import AnsibleFilterError

_PATH = pathlib.Path(__file__).resolve().parents[2] / "roles" / "docker" / "filter_plugins" / "docker_daemon.py"
_SPEC = importlib.util.spec_from_file_location("docker_daemon_under_test", _PATH)
docker_daemon = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(docker_daemon)
merge = docker_daemon.docker_daemon_merge

OURS = {"log-driver": "json-file", "log-opts": {"max-size": "100m", "max-file": "3"},
        "insecure-registries": ["localhost:5001"]}


def test_keys_the_role_does_not_manage_stay():
    existing = {"runtimes": {"capfilter": {"path": "/usr/local/bin/runc-capfilter"}}, "default-runtime": "capfilter",
                "data-root": "/srv/docker"}
    merged = merge(json.dumps(existing), OURS)
    assert merged == dict(existing, **OURS)


def test_lists_keep_their_entries_and_get_the_roles_added_once():
    existing = {"insecure-registries": ["lab:5000", "localhost:5001"], "registry-mirrors": ["https://a.example"]}
    merged = merge(json.dumps(existing), dict(OURS, **{"registry-mirrors": ["https://b.example", "https://a.example"]}))
    assert merged["insecure-registries"] == ["lab:5000", "localhost:5001"]
    assert merged["registry-mirrors"] == ["https://a.example", "https://b.example"]


def test_objects_merge_key_by_key_and_the_roles_value_wins():
    existing = {"log-opts": {"max-size": "7m", "compress": "true"}, "log-driver": "local"}
    merged = merge(json.dumps(existing), OURS)
    assert merged["log-opts"] == {"max-size": "100m", "max-file": "3", "compress": "true"}
    assert merged["log-driver"] == "json-file"


def test_the_inputs_are_not_changed():
    ours = json.loads(json.dumps(OURS))
    existing = {"insecure-registries": ["lab:5000"], "log-opts": {"max-size": "7m"}}
    docker_daemon.merge(existing, ours)
    assert existing == {"insecure-registries": ["lab:5000"], "log-opts": {"max-size": "7m"}}
    assert ours == OURS


@pytest.mark.parametrize("text", ["", "  \n", None])
def test_no_file_or_an_empty_one_gives_the_roles_settings(text):
    assert merge(text, OURS) == OURS


def test_merging_twice_changes_nothing():
    once = merge('{"insecure-registries": ["lab:5000"]}', OURS)
    assert merge(json.dumps(once), OURS) == once


@pytest.mark.parametrize("text, words", [
    ("{not json", "is not valid JSON"),
    ('["a"]', "holds a JSON list, not an object"),
])
def test_a_file_that_is_not_an_object_is_named(text, words):
    with pytest.raises(AnsibleFilterError) as err:
        merge(text, OURS, "/etc/docker/daemon.json")
    assert str(err.value).startswith("/etc/docker/daemon.json ")
    assert words in str(err.value)
