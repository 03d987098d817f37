"""Every role's README is what hack/role_readme.py writes (`make role-readmes`): its variable table comes from the
role's defaults and argument specs, so a default, a version or a type cannot go stale there. A role variable's row
is written only inside the generated table (roles/bench's is the knob table's, `make knobs`, tests/unit/test_knobs.py).
"""
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
GENERATOR = ROOT / "hack" / "role_readme.py"
ROLES = sorted(path for path in (ROOT / "roles").iterdir() if (path / "defaults" / "main.yml").is_file())
TABLE = re.compile(r"<!-- (variables|knobs):start -->.*?<!-- \1:end -->", re.DOTALL)


def check(roles):
    """The generator's --check: (exit code, the stale READMEs it names)."""
    run = subprocess.run([sys.executable, str(GENERATOR), "--check", *map(str, roles)],
                         capture_output=True, text=True, check=False)
    return run.returncode, run.stdout.splitlines()


def hand_written_rows(role):
    """The table rows outside the generated table that start with one of the role's variables."""
    prefix = role.name + "_"
    text = TABLE.sub("", (role / "README.md").read_text(encoding="utf-8"))
    return [line for line in text.splitlines() if re.match(r"^\|\s*`%s\w*`" % re.escape(prefix), line)]


def test_every_role_readme_is_generated():
    code, stale = check(ROLES)
    assert code == 0 and not stale, "\n".join(stale)


@pytest.mark.parametrize("role", ROLES, ids=lambda path: path.name)
def test_a_role_variable_has_its_row_only_in_the_generated_table(role):
    rows = hand_written_rows(role)
    assert not rows, "%s/README.md repeats variables outside its generated table:\n%s" % (role.name, "\n".join(rows))


def test_the_check_catches_a_planted_stale_readme(tmp_path):
    """A default changed in defaults/main.yml, and a hand-written row beside the table, are both found."""
    role = tmp_path / "kind"
    shutil.copytree(ROOT / "roles" / "kind", role)
    assert check([role]) == (0, [])
    defaults = role / "defaults" / "main.yml"
    defaults.write_text(defaults.read_text().replace("kind_version: v0.27.0", "kind_version: v0.99.0"))
    assert check([role]) == (1, ["stale, run `make role-readmes`: %s/README.md" % role])
    readme = role / "README.md"
    readme.write_text(readme.read_text() + "\n| `kind_version` | `v0.27.0` | kind release |\n")
    assert hand_written_rows(role) == ["| `kind_version` | `v0.27.0` | kind release |"]
