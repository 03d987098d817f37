"""ansible-lint (production profile), yamllint and ruff (ruff.toml) over the whole project."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)


def run(*command):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), NO_COLOR="1")
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)


def test_yamllint_is_clean():
    result = run(os.path.join(BIN, "yamllint"), "-s", ".")
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]


@pytest.mark.slow
def test_ansible_lint_production_profile_is_clean():
    result = run(os.path.join(BIN, "ansible-lint"), "--nocolor", "--profile", "production")
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]


def test_ruff_is_clean():
    result = run(os.path.join(BIN, "ruff"), "check", "--no-cache", "--output-format", "concise", ".")
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
