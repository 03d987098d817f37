#!/usr/bin/env python3
"""Write the variable table of a role's README from its defaults/main.yml and meta/argument_specs.yml.

Each variable of the defaults (and each option the argument specs declare without a default) gets one row: its
type from the argument specs, its default from the defaults, and its meaning: the comment right above it in the
defaults, else the argument specs' description. The README keeps everything outside the markers, so prose written
by hand stays; the variables' values are written nowhere else in it (tests/lint/test_role_readmes.py):

    <!-- variables:start -->  ...generated table...  <!-- variables:end -->

roles/bench is the knob table's (`make knobs`, hack/knobs.py). `make role-readmes` writes every other role's.

Usage: hack/role_readme.py [--check] roles/<name> [roles/<name> ...]
"""
import os
import re
import sys

import yaml

START, END = "<!-- variables:start -->", "<!-- variables:end -->"
KNOBS_MARKER = "<!-- knobs:start -->"
VARIABLE = re.compile(r"^([a-z][a-z0-9_]*):")


def _read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def own_comments(defaults_text):
    """{variable: the comment right above it}: a comment describes the one variable that follows it, so the
    variables after the first of a group have none of their own."""
    comments, comment = {}, []
    for line in defaults_text.splitlines():
        if not line.strip() or line.strip() == "---":
            comment = []
        elif line.startswith("#"):
            comment.append(line.lstrip("#").strip())
        elif VARIABLE.match(line):
            if comment:
                comments[VARIABLE.match(line).group(1)] = " ".join(comment)
            comment = []
    return comments


def argument_options(role_dir):
    """{option: its spec}, from every entry point of the role's argument specs (main's first)."""
    path = os.path.join(role_dir, "meta", "argument_specs.yml")
    specs = (yaml.safe_load(_read(path)) or {}).get("argument_specs", {}) if os.path.exists(path) else {}
    options = {}
    for entry in sorted(specs, key=lambda name: name != "main"):
        for name, spec in (specs[entry].get("options") or {}).items():
            options.setdefault(name, spec or {})
    return options


def type_of(spec):
    """The type column: `list of str`, `str: go, download`, `dict, required`."""
    text = spec.get("type", "str")
    if spec.get("elements"):
        text = "%s of %s" % (text, spec["elements"])
    if spec.get("choices"):
        text += ": " + ", ".join(str(choice) for choice in spec["choices"])
    return text + (", required" if spec.get("required") else "")


def shown(value):
    """A default as a reader types it: a string as written (templates too), anything else as YAML flow."""
    if isinstance(value, str):
        return value if value else '""'
    return re.sub(r"\n(\.\.\.)?$", "", yaml.safe_dump(value, default_flow_style=True, width=1000)).strip()


def _description(spec):
    text = spec.get("description", "")
    return " ".join(text) if isinstance(text, list) else text


def variables(role_dir):
    """(name, type, default, meaning) for each variable of the defaults in file order, then each option of the
    argument specs that has no default."""
    text = _read(os.path.join(role_dir, "defaults", "main.yml"))
    values, comments, options = yaml.safe_load(text) or {}, own_comments(text), argument_options(role_dir)
    rows = []
    for name, value in values.items():
        spec = options.get(name, {})
        rows.append((name, type_of(spec) if spec else "", "`%s`" % shown(value),
                     comments.get(name) or _description(spec)))
    for name, spec in options.items():
        if name not in values:
            rows.append((name, type_of(spec), "none", _description(spec)))
    return rows


def table(rows):
    out = ["| variable | type | default | meaning |", "|---|---|---|---|"]
    for row in rows:
        name, kind, default, meaning = (cell.replace("|", "\\|") for cell in row)
        out.append("| `%s` | %s | %s | %s |" % (name, kind, default, meaning))
    return "\n".join(out)


def rendered(role_dir):
    """The README as the generator writes it, or None when its table is the knob table's."""
    readme = os.path.join(role_dir, "README.md")
    generated = "%s\n%s\n%s" % (START, table(variables(role_dir)), END)
    if not os.path.exists(readme):
        description = yaml.safe_load(_read(os.path.join(role_dir, "meta", "main.yml")))["galaxy_info"]["description"]
        return "# %s\n\n%s\n\n## Variables\n\n%s\n" % (os.path.basename(role_dir), description, generated)
    text = _read(readme)
    if KNOBS_MARKER in text:
        return None
    if START in text and END in text:
        return text[:text.index(START)] + generated + text[text.index(END) + len(END):]
    return text.rstrip("\n") + "\n\n## Variables\n\n" + generated + "\n"


def stale(role_dir):
    """True when the role's README is not what the generator writes."""
    text = rendered(role_dir)
    readme = os.path.join(role_dir, "README.md")
    return text is not None and (not os.path.exists(readme) or _read(readme) != text)


def update(role_dir):
    text = rendered(role_dir)
    if text is None:
        print("%s: its table comes from the knob table (make knobs), not from defaults/main.yml" % role_dir)
        return
    with open(os.path.join(role_dir, "README.md"), "w", encoding="utf-8") as handle:
        handle.write(text)


def main(arguments):
    check = "--check" in arguments
    roles = [path.rstrip("/") for path in arguments if path != "--check"]
    if check:
        stale_roles = [role for role in roles if stale(role)]
        for role in stale_roles:
            print("stale, run `make role-readmes`: %s/README.md" % role)
        return 1 if stale_roles else 0
    for role in roles:
        update(role)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
