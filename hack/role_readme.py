#!/usr/bin/env python3
"""Write the variable table of a role's README from its defaults/main.yml.

The comment lines above a variable are its description. The README keeps
everything outside the markers, so prose written by hand stays:

    <!-- variables:start -->  ...generated table...  <!-- variables:end -->

Usage: hack/role_readme.py roles/<name> [roles/<name> ...]
"""
import os
import re
import sys

import yaml

START, END = "<!-- variables:start -->", "<!-- variables:end -->"


def variables(defaults_path):
    """(name, default as YAML, description) for each top-level variable, in file order."""
    with open(defaults_path, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    values = yaml.safe_load("\n".join(lines)) or {}
    # A comment describes the variables below it, up to the next blank line or comment.
    rows, comment, fresh = [], [], False
    for line in lines:
        if not line.strip():
            comment, fresh = [], False
            continue
        if line.startswith("#"):
            if not fresh:
                comment, fresh = [], True
            comment.append(line.lstrip("# ").strip())
            continue
        fresh = False
        match = re.match(r"^([a-z][a-z0-9_]*):", line)
        if match:
            name = match.group(1)
            default = yaml.safe_dump(values[name], default_flow_style=True, width=1000).strip()
            default = re.sub(r"\n\.\.\.$", "", default)
            rows.append((name, default, " ".join(comment)))
    return rows


def table(rows):
    out = ["| variable | default | meaning |", "|---|---|---|"]
    for name, default, text in rows:
        out.append("| `%s` | `%s` | %s |" % (name, default.replace("|", "\\|"), text.replace("|", "\\|")))
    return "\n".join(out)


def update(role_dir):
    readme = os.path.join(role_dir, "README.md")
    with open(os.path.join(role_dir, "meta", "main.yml"), encoding="utf-8") as handle:
        description = yaml.safe_load(handle)["galaxy_info"]["description"]
    generated = "%s\n%s\n%s" % (START, table(variables(os.path.join(role_dir, "defaults", "main.yml"))), END)
    if os.path.exists(readme):
        with open(readme, encoding="utf-8") as handle:
            text = handle.read()
        if "<!-- knobs:start -->" in text:
            print("%s: its table comes from the knob table (make knobs), not from defaults/main.yml" % readme)
            return
        if START in text and END in text:
            text = text[:text.index(START)] + generated + text[text.index(END) + len(END):]
        else:
            text = text.rstrip("\n") + "\n\n## Variables\n\n" + generated + "\n"
    else:
        text = "# %s\n\n%s\n\n## Variables\n\n%s\n" % (os.path.basename(role_dir), description, generated)
    with open(readme, "w", encoding="utf-8") as handle:
        handle.write(text)


if __name__ == "__main__":
    for path in sys.argv[1:]:
        update(path.rstrip("/"))
