"""failure_line sums a failed task up in one line."""
from failures import failure_line


def test_first_line_of_the_message():
    assert failure_line({"msg": "timed out after 300s\nwaiting for pods"}) == "timed out after 300s"


def test_a_loop_names_its_first_failed_item():
    result = {"msg": "One or more items failed", "results": [
        {"failed": False, "item": "ca", "msg": "ok"},
        {"failed": True, "item": "apiserver", "_ansible_item_label": "apiserver",
         "msg": "Failed to import the required Python library (cryptography >= 3.3)\nmore"},
        {"failed": True, "item": "etcd", "msg": "later"}]}
    assert failure_line(result) == "apiserver: Failed to import the required Python library (cryptography >= 3.3)"


def test_a_loop_without_item_messages_falls_back_to_its_own():
    assert failure_line({"msg": "One or more items failed", "results": [{"failed": True}]}) == (
        "One or more items failed")


def test_nothing_to_say():
    assert failure_line({}) == ""
    assert failure_line(None) == ""


def test_a_failed_command_says_why_through_its_stderr():
    result = {"msg": "non-zero return code", "rc": 1, "stderr": "Creating cluster ...\n ✗ Preparing nodes\n"
              "ERROR: failed to create cluster: could not find a log line\n\n"}
    assert failure_line(result) == "rc=1: ERROR: failed to create cluster: could not find a log line"
    # Without stderr, or with a message of its own, the message stays.
    assert failure_line({"msg": "non-zero return code", "rc": 2, "stderr": ""}) == "non-zero return code"
    assert failure_line({"msg": "kind_cluster_wait must be a number", "stderr": "noise"}) == "kind_cluster_wait must be a number"

