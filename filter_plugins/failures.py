"""failure_line: the one line a failed task result is summed up by (failed.json, the recap)."""
from __future__ import annotations


def failure_line(result):
    """The first line of the result's message (a failed command's last stderr line); for a loop, that of the
    first failed item."""
    if not isinstance(result, dict):
        return ""
    for item in result.get("results") or []:
        if isinstance(item, dict) and item.get("failed"):
            line = failure_line(item)
            label = item.get("_ansible_item_label", item.get("item"))
            if line:
                return "%s: %s" % (label, line) if isinstance(label, (str, int)) and label != "" else line
    message = str(result.get("msg") or "").strip()
    # A command that failed says only "non-zero return code": its last line on stderr says why.
    stderr = [line.strip() for line in str(result.get("stderr") or "").splitlines() if line.strip()]
    if message == "non-zero return code" and stderr:
        return "rc=%s: %s" % (result.get("rc"), stderr[-1])
    return message.splitlines()[0] if message else ""


class FilterModule:
    def filters(self):
        return {"failure_line": failure_line}
