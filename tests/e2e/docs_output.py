#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The documented outputs against what the agent printed.

docs_output.py ROOT TEXT_ERR JSON_ERR MANY_ERR HELP: ROOT the tree (README.md,
docs/output.md, docs/agent.md), then the agent's stderr from a run as `make
demo` runs it (text, with the running counters once), the same run under
--json, a run over a pattern (its per-interface account), and its --help.
Each finding is one line, and the exit status 1; nothing is written from the
docs into the check: each documented line is compared, key by key, with the
line the agent printed in its place, and each figure with the figure printed.
"""
import json
import pathlib
import re
import sys

LOG = re.compile(r"^\S+ (?:error|warning|info|debug) \S*agent: (.*)$")
NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
findings = []


def find(ok, what):
    if not ok:
        findings.append(what)


def messages(path):
    """The messages of a text log, without time, level and name."""
    out = []
    for line in pathlib.Path(path).read_text().splitlines():
        m = LOG.match(line)
        if m:
            out.append(m.group(1))
    return out


def doc_message(line):
    """A documented log line's message: after "agent: ", the time elided as ... or not."""
    return line.split("agent: ", 1)[1] if "agent: " in line else None


def keys(message):
    """The kind (first word) and the keys of "kind k=v k=v ..."."""
    words = message.split()
    return [words[0]] + [w.split("=", 1)[0] for w in words[1:] if "=" in w]


def shape(message):
    """A start line without what differs by host and run: numbers, names, the mode's why,
    and the Ctrl-C hint that only a terminal gets."""
    message = re.sub(r"; stop with Ctrl-C$", "", message)
    message = re.sub(r"\([a-z]+ mode: [^;]+; [^)]+\)", "(MODE)", message)
    message = re.sub(r" to \S+ \(MODE\)", " to IFACE (MODE)", message)
    return re.sub(r"\d+(\.\d+)?", "N", message)


def code_blocks(text):
    return re.findall(r"^```\n(.*?)^```", text, re.S | re.M)


def memory_words(n):
    """transport_memory_format(): "512.1 KiB", "1 MiB"."""
    units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
    v, u = float(n), 0
    while v >= 1024 and u + 1 < len(units):
        v /= 1024
        u += 1
    return f"{v:.0f} {units[u]}" if v == int(v) else f"{v:.1f} {units[u]}"


def summary_lines(msgs, kind="summary"):
    return [m for m in msgs if m.split()[0] == kind]


def check_transcript(readme, real_start, real_summary):
    block = next((b for b in code_blocks(readme) if "demo: $ nsenter" in b), None)
    find(block, "README.md: no demo transcript (a block with 'demo: $ nsenter')")
    if not block:
        return
    msgs = [doc_message(l) for l in block.splitlines() if " info agent: " in l]
    start = [m for m in msgs if m.startswith("attached ")]
    find(len(start) == 1 and shape(start[0]) == shape(real_start),
         f"README.md: the transcript's start line {start} is not shaped as the agent's: "
         f"{real_start!r}")
    check_lines("README.md's transcript", summary_lines(msgs), real_summary)


def check_lines(where, doc, real):
    find(len(doc) == len(real), f"{where}: {len(doc)} summary lines, the agent prints "
         f"{len(real)}")
    for d, r in zip(doc, real):
        find(keys(d) == keys(r), f"{where}: {d!r} has keys {keys(d)}, the agent's {keys(r)}")


def check_output_md(text, real):
    blocks = code_blocks(text)
    starts = [doc_message(l) for b in blocks for l in b.splitlines()
              if "info agent: attached " in l and not l.startswith("{")]
    find(starts, "docs/output.md: no start line example")
    for s in starts:
        find(shape(s) == shape(real["start"]),
             f"docs/output.md: start line {s!r} is not shaped as the agent's "
             f"{real['start']!r}")
    logs = [json.loads(l) for b in blocks for l in b.splitlines()
            if l.startswith('{"type":"log"')]
    find(logs, "docs/output.md: no JSON log line example")
    for o in logs:
        find(list(o) == list(real["json_log"]),
             f"docs/output.md: JSON log keys {list(o)}, the agent's {list(real['json_log'])}")
    stats = [doc_message(l) for b in blocks for l in b.splitlines() if "agent: stats " in l]
    find(len(stats) == 1, f"docs/output.md: {len(stats)} running-counters examples, not 1")
    for s in stats:
        find(keys(s) == keys(real["stats"]),
             f"docs/output.md: running counters {keys(s)}, the agent's {keys(real['stats'])}")
    m = re.search(r"Text, (\w+) log lines, each with `agent: summary `.*?\n```\n(.*?)```",
                  text, re.S)
    find(m, "docs/output.md: no 'Text, N log lines' summary example")
    if m:
        doc = [doc_message(l) for l in m.group(2).splitlines()]
        find(NUMBERS.get(m.group(1)) == len(doc),
             f"docs/output.md: 'Text, {m.group(1)} log lines' before {len(doc)}")
        check_lines("docs/output.md's summary", doc, real["summary"])
    gone = [doc_message(l) for b in blocks for l in b.splitlines() if "agent: iface_gone " in l]
    find(len(gone) == 1, f"docs/output.md: {len(gone)} iface_gone examples, not 1")
    for g in gone:
        find(keys(g)[1:] == keys(real["iface"])[1:],
             f"docs/output.md: iface_gone keys {keys(g)}, the agent's iface line "
             f"{keys(real['iface'])}")
    check_json_table(text, real["json"])


def check_json_table(text, objects):
    """Every key of the JSON stats and summary in the table, and the table's in them."""
    table = re.search(r"JSON: `\{\"type\":\"summary\".*?\n\n(\|.*?)\n\n", text, re.S)
    find(table, "docs/output.md: no table of the summary's keys")
    if not table:
        return
    documented, only = set(), set()
    for row in table.group(1).splitlines()[2:]:
        cells = row.split("|")
        names = re.findall(r"`([a-zA-Z0-9_]+)`", cells[1])
        documented.update(names)
        if " only" in cells[3]:
            only.update(names)
    seen = set()
    for o in objects:
        for k in o:
            seen.add(re.sub(r"^[a-z0-9]+_(delivered|lost|buffer_peak)$", r"NAME_\1", k)
                     if k.startswith(("stdout_", "file", "nats", "ipfix")) else k)
    find(seen <= documented, f"docs/output.md: keys the agent writes but the table lacks: "
         f"{sorted(seen - documented)}")
    find(documented - only <= seen, f"docs/output.md: keys the table has but the agent "
         f"does not write: {sorted(documented - only - seen)}")


def check_help(help_text, agent_md, real_start):
    """--help's formula and figure, the figure the start line prints, docs/agent.md's formula."""
    help_text = " ".join(help_text.split())
    formula = re.search(r"possible CPUs x \(N \+ (\d+)\) x (\d+) bytes in a queue", help_text)
    figure = re.search(r"on this host (\d+) CPUs, (\S+ \S+) and", help_text)
    started = re.search(r"queue (\d+) events per CPU on (\d+) CPUs \(([^)]+)\)", real_start)
    find(formula and figure and started,
         f"--help or the start line lacks the queue's memory: {real_start!r}")
    if not (formula and figure and started):
        return
    extra, record = int(formula.group(1)), int(formula.group(2))
    cpus, events = int(started.group(2)), int(started.group(1))
    computed = memory_words(cpus * (events + extra) * record)
    find(computed == started.group(3) == figure.group(2),
         f"--help's formula gives {computed}, its figure is {figure.group(2)}, the start "
         f"line's {started.group(3)}")
    find(f"possible CPUs × (N + {extra}) × {record} bytes" in agent_md,
         f"docs/agent.md: the queue's kernel memory is not 'possible CPUs × (N + {extra}) "
         f"× {record} bytes' as --help has it")


def main():
    root, text_err, json_err, many_err, help_file = sys.argv[1:]
    root = pathlib.Path(root)
    text = messages(text_err)
    json_lines = [json.loads(l) for l in pathlib.Path(json_err).read_text().splitlines()
                  if l.startswith("{")]
    real = {
        "start": next(m for m in text if m.startswith("attached ")),
        "summary": summary_lines(text),
        "stats": next(m for m in text if m.startswith("stats ")),
        "iface": summary_lines(messages(many_err), "iface")[0],
        "json_log": next(o for o in json_lines if o["type"] == "log"),
        "json": [o for o in json_lines if o["type"] in ("stats", "summary")],
    }
    check_transcript((root / "README.md").read_text(), real["start"], real["summary"])
    check_output_md((root / "docs/output.md").read_text(), real)
    check_help(pathlib.Path(help_file).read_text(), (root / "docs/agent.md").read_text(),
               real["start"])
    for f in findings:
        print(f)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
