"""The Go runtime's environment of a scheduler from the fairness knobs (filter_plugins/go_env.py)."""
import pytest
from go_env import go_env


@pytest.mark.parametrize("gogc,gomemlimit,cpu_limit,expected", [
    ("", "", 0, {}),
    (200, "", 0, {"GOGC": "200"}),
    ("off", "4GiB", "2", {"GOGC": "off", "GOMEMLIMIT": "4GiB", "GOMAXPROCS": "2"}),
    ("", " ", "0", {}),
    (None, None, None, {}),
])
def test_unset_knobs_are_left_out(gogc, gomemlimit, cpu_limit, expected):
    assert go_env(gogc, gomemlimit, cpu_limit) == expected
