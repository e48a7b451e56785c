# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Where and when a benchmark ran: the machine, its kernel, the date and the commit (none
outside a git checkout).

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


def machine():
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{cpu}, {os.cpu_count()} CPUs"


def git_commit():
    """The checkout's commit, -dirty where it has changes; None outside a git checkout
    (the installed cost tool's users): no error text recorded as a commit."""
    try:
        out = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True,
                             text=True, check=False)
    except OSError:
        return None
    if out.returncode or not out.stdout.strip():
        return None
    dirty = subprocess.run(["git", "diff", "--quiet", "HEAD"], check=False,
                           stderr=subprocess.DEVNULL).returncode
    return out.stdout.strip() + ("-dirty" if dirty else "")


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


# A line a benchmark writes among its rows when its figures may be read on another host
# (bench/kernel/bundle.sh): "# measured-on<TAB>MACHINE<TAB>KERNEL", MACHINE as machine() says it.
MEASURED_ON_LINE = "# measured-on\t"


def measured_on_line(line):
    """(machine, kernel) from a measured-on line, or None for any other line."""
    if not line.startswith(MEASURED_ON_LINE):
        return None
    fields = line.rstrip("\n").split("\t")
    return (fields[1], fields[2]) if len(fields) == 3 else None


def index_path(result_path):
    return os.path.join(os.path.dirname(os.path.abspath(result_path)), MEASURED_FILE)


def recorded(result_path):
    """RESULT_PATH's entry in its directory's measured.json, or None."""
    try:
        with open(index_path(result_path)) as f:
            return json.load(f).get(os.path.basename(result_path))
    except (OSError, ValueError):
        return None


def record(result_path, host=None):
    """Note beside RESULT_PATH, in its directory's measured.json, the host that measured it
    (HOST, (machine, kernel), where the figures said it; else this one) and this moment."""
    index = index_path(result_path)
    try:
        with open(index) as f:
            entries = json.load(f)
    except (OSError, ValueError):
        entries = {}
    machine_name, kernel = host or (machine(), platform.release())
    entry = {"machine": machine_name, "kernel": kernel, "date": now()}
    commit = git_commit()
    if commit:
        entry["commit"] = commit
    entries[os.path.basename(result_path)] = entry
    with open(index, "w") as f:
        json.dump(entries, f, indent=2, sort_keys=True)
        f.write("\n")
