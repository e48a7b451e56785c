#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The agent's exit statuses in docs/agent.md and the manual, from their one list.

exit_status.py [--check]: read AGENT_EXITS in agent/base/exit_codes.h and write
its table into docs/agent.md and man/fizzbuzzfib-agent.8, between the marker
lines there; with --check write nothing, print what differs and exit 1 if
anything does (make test runs it so). `x` in the list marks a command or an
option: code in docs/agent.md, bold in the manual.
"""
import pathlib
import re
import textwrap
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
HEADER = ROOT / "agent/base/exit_codes.h"
AGENT_DOC = ROOT / "docs/agent.md"
MANUAL = ROOT / "man/fizzbuzzfib-agent.8"
AGENT_DOC_MARKS = ("<!-- exit statuses: tools/exit_status.py writes this table -->",
                "<!-- end of exit statuses -->")
MANUAL_MARKS = ('.\\" exit statuses: tools/exit_status.py writes these', '.\\" end of exit statuses')


def read_exits():
    """[(status, meaning, todo)] from the X(NAME, STATUS, "...", "...") entries."""
    text = HEADER.read_text().replace("\\\n", " ")
    body = re.search(r"#define AGENT_EXITS\(X\)(.*?)\n\s*\n", text, re.S).group(1)
    exits = []
    for entry in re.finditer(r"X\(\s*(\w+)\s*,\s*(\d+)\s*,((?:\s*\"(?:[^\"\\]|\\.)*\")+)\s*,"
                             r"((?:\s*\"(?:[^\"\\]|\\.)*\")+)\s*\)", body):
        def joined(strings):
            return "".join(re.findall(r"\"((?:[^\"\\]|\\.)*)\"", strings))
        exits.append((int(entry.group(2)), joined(entry.group(3)), joined(entry.group(4))))
    if not exits or [e[0] for e in exits] != list(range(len(exits))):
        sys.exit(f"exit_status.py: cannot read AGENT_EXITS in {HEADER}")
    return exits


def markdown_table(exits):
    rows = ["| code | meaning | what to do |", "|---|---|---|"]
    rows += [f"| {status} | {meaning} | {todo} |".replace("|  |", "| |")
             for status, meaning, todo in exits]
    return rows


def man_text(text):
    """A sentence, with roff's minus signs and `x` in bold."""
    text = text[0].upper() + text[1:] + "."
    text = text.replace("-", "\\-")
    return re.sub(r"`([^`]*)`", r"\\fB\1\\fR", text)


def manual_entries(exits):
    lines = []
    for status, meaning, todo in exits:
        text = man_text(meaning) + (" " + man_text(todo) if todo else "")
        lines += [".TP", f".B {status}"] + textwrap.wrap(text, 79, break_on_hyphens=False)
    return lines


def replace_between(path, marks, lines):
    text = path.read_text().split("\n")
    try:
        start, end = text.index(marks[0]), text.index(marks[1])
    except ValueError:
        sys.exit(f"exit_status.py: {path} lacks the marker lines {marks[0]!r} and {marks[1]!r}")
    return "\n".join(text[:start + 1] + lines + text[end:])


def main():
    check = sys.argv[1:] == ["--check"]
    exits = read_exits()
    stale = []
    for path, marks, lines in ((AGENT_DOC, AGENT_DOC_MARKS, markdown_table(exits)),
                               (MANUAL, MANUAL_MARKS, manual_entries(exits))):
        new = replace_between(path, marks, lines)
        if new == path.read_text():
            continue
        if check:
            stale.append(path.relative_to(ROOT))
        else:
            path.write_text(new)
    if stale:
        print("exit_status.py: the exit statuses in " + " and ".join(map(str, stale)) +
              " differ from agent/base/exit_codes.h; run tools/exit_status.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
