# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Where and when a benchmark ran: the machine, its kernel, the date and the commit.

A figure means nothing without its host (the same build has measured a bare XDP_PASS at
3 ns on one host and 25 ns on another), so every result file and every gate run names them.
Shared by bench/report.py and bench/gate/gate.py.
"""
import datetime
import json
import os
import platform
import subprocess

# Beside the BMF files of a results directory: for each file, where and when it was measured.
MEASURED_FILE = "measured.json"


def command_output(*argv):
    try:
        out = subprocess.run(argv, capture_output=True, text=True, check=False)
        return (out.stdout or out.stderr).splitlines()[0].strip()
    except (OSError, IndexError):
        return "unknown"


def machine():
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{cpu}, {os.cpu_count()} CPUs"


def git_commit():
    sha = command_output("git", "rev-parse", "--short=12", "HEAD")
    dirty = subprocess.run(["git", "diff", "--quiet", "HEAD"], check=False,
                           stderr=subprocess.DEVNULL).returncode
    return sha + ("-dirty" if dirty else "")


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def record(result_path):
    """Note beside RESULT_PATH, in its directory's measured.json, this host and this moment."""
    index = os.path.join(os.path.dirname(os.path.abspath(result_path)), MEASURED_FILE)
    try:
        with open(index) as f:
            entries = json.load(f)
    except (OSError, ValueError):
        entries = {}
    entries[os.path.basename(result_path)] = {
        "machine": machine(), "kernel": platform.release(), "date": now(),
        "commit": git_commit()}
    with open(index, "w") as f:
        json.dump(entries, f, indent=2, sort_keys=True)
        f.write("\n")
