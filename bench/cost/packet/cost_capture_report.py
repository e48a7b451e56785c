# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The capture's part of the cost tool's report (bench/cost/cost_report.py imports it).

cost_run's rows for a capture (bench/cost/packet/cost_replay.h): per arm and round, benchmark
cost/capture (the mean ns per frame) and cost/capture/p50, p90, p99 and max, measure
latency; and its lines "#capture<TAB>READ<TAB>RUN" (the last one counts),
"#skipped<TAB>WHY<TAB>COUNT<TAB>FIRST", "#capture-actions<TAB>ARM<TAB>ACTION<TAB>COUNT",
"#capture-rewrites<TAB>ARM<TAB>COUNT<TAB>FIRST" and "#capture-costliest<TAB>ARM<TAB>INDEX<TAB>NS<TAB>ACTION<TAB>SUMMARY", and every frame's
"#capture-frame<TAB>ARM<TAB>INDEX<TAB>NS<TAB>ACTION" (its median over the rounds, for the
HTML report's figures: bench/cost/cost_html.py); and for
the shapes, "#rewrites<TAB>ARM<TAB>SHAPE" for each shape a program rewrote.
"""
import statistics
from collections import defaultdict

MEAN = "cost/capture"
QUANTILES = ["p50", "p90", "p99", "max"]
BENCHES = [MEAN] + [f"{MEAN}/{q}" for q in QUANTILES]
# What cost-compare judges of a capture: what the traffic costs, and its slow tail.
GATED = [MEAN, f"{MEAN}/p99"]
SKIPPED = {
    "link-type": "of a link type no program sees as captured",
    "snapped": "cut short by the capture's snap length",
    "too-long": "longer than the 3000 bytes test_run takes",
    "refused": "refused by the kernel's test run",
}


def noisy(bench):
    """Whether a capture figure's spread may mark the table too noisy: not its max, one frame's."""
    return not bench.endswith("/max")


def is_capture(bench):
    return bench == MEAN or bench.startswith(MEAN + "/")


def load(path):
    """What the capture's lines say: frames read and run, skipped, actions, rewrites."""
    c = {"read": 0, "run": 0, "skipped": [], "actions": defaultdict(list),
         "rewrites": {}, "costliest": defaultdict(list), "shape_rewrites": defaultdict(list),
         "changed": 0, "changed_frames": [], "frames": defaultdict(list)}
    with open(path) as f:
        for line in f:
            if not line.startswith("#"):
                continue
            tag, *fields = line.rstrip("\n").split("\t")
            if tag == "#capture":
                c["read"], c["run"] = int(fields[0]), int(fields[1])
            elif tag == "#skipped":
                c["skipped"].append((fields[0], int(fields[1]), int(fields[2])))
            elif tag == "#capture-actions":
                c["actions"][fields[0]].append((fields[1], int(fields[2])))
            elif tag == "#capture-rewrites":
                c["rewrites"][fields[0]] = (int(fields[1]), int(fields[2]))
            elif tag == "#capture-changed":
                c["changed"] = int(fields[0])
            elif tag == "#capture-changed-frame":
                c["changed_frames"].append((int(fields[0]), fields[1], fields[2], fields[3]))
            elif tag == "#capture-frame":
                c["frames"][fields[0]].append((int(fields[1]), float(fields[2]),
                                               int(fields[3])))
            elif tag == "#capture-costliest":
                c["costliest"][fields[0]].append((int(fields[1]), float(fields[2]),
                                                  fields[3], fields[4]))
            elif tag == "#rewrites":
                c["shape_rewrites"][fields[0]].append(fields[1])
    return c


def counted(n, one, many):
    """N of a thing, in words: "1 frame", "2 frames"."""
    return f"{n:,} {one if n == 1 else many}"


def over_cell(worse, unit, digits=1):
    """How the program compares with the bare one in a table's cell, WORSE being how much
    worse it does (more ns, fewer frames/s): said as slower or faster, which reads one
    way whatever the unit, where a bare sign means more ns in one row and more frames/s
    in the next."""
    if not round(worse, digits):
        return "same"
    return f"{abs(worse):.{digits}f}{unit} {'slower' if worse > 0 else 'faster'}"


def skipped_text(c):
    """The frames left out, by why, each with the first one's index: '' if none."""
    parts = []
    for why, count, first in c["skipped"]:
        kind, _, link = why.partition(":")
        text = SKIPPED.get(kind, kind)
        if link:
            text += f" ({link})"
        parts.append(f"{count:,} {text}, the first frame {first}")
    return "; ".join(parts)


def rows(prog, bare, fmt, spread_cell):
    """The capture's table rows: mean, p50, p90, p99 and max, program beside bare."""
    out = []
    for bench in BENCHES:
        p, b = prog.get((bench, "latency")), bare.get((bench, "latency"))
        if not p or not b:
            continue
        over = statistics.median(x - y for x, y in zip(p, b))
        label = "capture mean" if bench == MEAN else "capture " + bench.rsplit("/", 1)[1]
        out.append([label, "ns/frame", fmt(statistics.median(p)), fmt(statistics.median(b)),
                    "", over_cell(over, " ns"), "-" if bench.endswith("/max") else spread_cell(p),
                    ""])
    return out


def unflooded_text(fields):
    """The capture's frames the live part could not send (cost_run capture's "#unflooded"
    line: count, first, the longest frame and tagged frame a veth sends), or ''."""
    if not fields:
        return ""
    count, first, most, tagged = (int(f) for f in fields)
    return (f" Not in the flood: {counted(count, 'frame', 'frames')} of the capture longer "
            "than the veth sends "
            f"({most} bytes, {tagged} with a VLAN tag), the first frame {first}; test_run "
            "ran them.")


def print_section(c, arm, action_name, label, print_table):
    """After the table: the frames, what the program did to them, and the costliest."""
    if not c["read"]:
        return
    skipped = skipped_text(c)
    print(f"\nCapture: {counted(c['read'], 'frame', 'frames')} read, {c['run']:,} run in the "
          "capture's order, each once a round as captured (one call of one run: its ns hold "
          f"the kernel timer's own reading, as bare {label}'s beside it do)" +
          (f"; left out, never run: {skipped}" if skipped else "") + ".")
    print(f"Frames per action (first round): {actions_text(c, arm, action_name)}.")
    n, first = c["rewrites"].get(arm, (0, 0))
    if n:
        print(f"The program rewrites the frame: {counted(n, 'frame', 'frames')} changed on "
              f"their first pass (the first: frame {first}); each was timed on the frame as "
              "captured.")
    top = c["costliest"].get(arm, [])
    if top:
        print(("\nThe costliest frame, by its median" if len(top) == 1 else
               f"\nThe {len(top)} costliest frames, by their median") + " over the rounds:\n")
        print_table(["frame", "ns", "action", "summary"],
                    [[i, f"{ns:.0f}", action_name(int(a)), s] for i, ns, a, s in top])


def actions_text(c, arm, action_name):
    """ARM's frames per action, as the capture's section says them."""
    return ", ".join(f"{action_name(int(a)) if a.isdigit() else a} {n:,}"
                     for a, n in c["actions"].get(arm, []))


def print_compare_section(c, base_action, candidate_action, print_table):
    """A compare's capture: each side's frames per action, and the frames whose action
    changed, the first of them listed."""
    if not c["read"]:
        return
    print(f"\nCapture: {counted(c['run'], 'frame', 'frames')} run, per action (first round): "
          f"base {actions_text(c, 'base', base_action)}; candidate "
          f"{actions_text(c, 'candidate', candidate_action)}.")
    if not c["changed"]:
        print("Every frame's action is the same in both.")
        return
    shown = c["changed_frames"]
    print(f"{counted(c['changed'], 'frame', 'frames')} of the capture decided differently" +
          (f", the first {len(shown)}:" if len(shown) < c["changed"] else ":") + "\n")
    print_table(["frame", "base", "candidate", "summary"],
                [[i, base_action(int(b)), candidate_action(int(a)), s]
                 for i, b, a, s in shown])


def shapes_note(c, arm):
    """For the table's notes: which shapes the program rewrote, and how they were timed."""
    shapes = c["shape_rewrites"].get(arm, [])
    if not shapes:
        return ""
    return ("The program rewrites the frame of " + ", ".join(shapes) + ": test_run's "
            "repetitions would feed it its own output, so each was timed one call of one "
            "run at a time, on the frame as built, less what such a call adds (read on a "
            "bare program in the same round); its action is its first pass's.")


def bmf(prog, bare, bare_name, bmf_timing, bmf_entry):
    """The capture's figures into BMF entries, beside the bare program's (BARE_NAME's)."""
    out = {}
    for bench in BENCHES:
        p, b = prog.get((bench, "latency")), bare.get((bench, "latency"))
        if p and b:
            bmf_timing(out, bench, "latency", p)
            out[bench]["over-" + bare_name.replace("_", "-")] = {
                "value": statistics.median(x - y for x, y in zip(p, b))}
            out.setdefault(f"{bench}/{bare_name}", {})["latency"] = bmf_entry(b)
    return out
