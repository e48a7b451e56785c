#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""What an XDP object costs, from cost_run's and cost_live.sh's samples (bench/cost/cost.sh).

  cost_report.py measure OUT_DIR OBJECT SAMPLES.tsv [LIVE.tsv] [on:KERNEL=FIGURES ...]
      one table, OUT_DIR/cost.bmf.json in Bencher Metric Format, and OUT_DIR/cost.html
      (bench/cost/cost_html.py)
  cost_report.py compare OUT_DIR SAMPLES.tsv [CONFIRM.tsv] [on:KERNEL=FIGURES ...]
      base against candidate with the regression gate's statistics and verdict
      (bench/gate/gate.py), OUT_DIR/cost-compare.bmf.json, OUT_DIR/cost.html, and one
      closing line

FIGURES: the static figures of the same arms on kernel KERNEL of the matrix, booted under
QEMU (bench/kernel/matrix.bash), after a line "# kernel RELEASE", as the gate reads them;
shown, and for compare judged, as benchmark cost/prog@KERNEL.
lines:DIR: the programs' sampled hot lines (make cost LINES=1, bench/cost/cost_lines.py).

SAMPLES rows: "arm<TAB>benchmark<TAB>measure<TAB>value" (arms: the bare program, xdp_pass,
and prog for measure; base, base-again and candidate for compare), "#prog<TAB>arm<TAB>name"
lines, "#type<TAB>arm<TAB>type" and "#action<TAB>arm<TAB>value<TAB>name" (the names of the
program type's actions, bench/cost/cost_type.h),
"#map" lines (bench/cost/cost_events.h: each event map, the events read out of it, and
which arrays of maps were filled, one map per CPU), "#filled" and "#changed" lines
(bench/cost/cost_state.h: what MAPS filled, and each map's entries before and after the
runs), shown as the table's notes;
LIVE rows: "benchmark<TAB>measure<TAB>value".

SAMPLES also holds cost_run cpus's rows, benchmark cost/cpus/N: shown by measure as the CPUs
section, with a one-line reading; compare judges their scaling (bench/gate/gate.py).

compare's exit status: 0 no regression; 1 a regression in an exact measure (the
verifier's instructions, the JIT's bytes: any rise, on any kernel), or in the timing of all
frame shapes or the scaling on 2 CPUs or on the most, confirmed by CONFIRM.tsv, a second
run; 3 a timing regression that needs that second run; 11 (both) a kernel that gave no
figures.
"""
import os
import platform
import statistics
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "gate"))
# The families' own parts of the report: the packet family's captures and paths, the chain
# family's hops.
sys.path.insert(0, os.path.join(HERE, "packet"))
sys.path.insert(0, os.path.join(HERE, "chain"))
from report import bmf_entry, fmt, print_table, write_bmf  # noqa: E402
from measured_on import machine  # noqa: E402
import gate  # noqa: E402
import cost_capture_report as capture  # noqa: E402
import cost_path_report as path  # noqa: E402
import cost_chain_report as chain  # noqa: E402
import cost_lines  # noqa: E402

STATIC = ["verified-instructions", "translated-instructions", "jited-bytes"]
# What became of the live part's frames (cost_live_TYPE.bash's rows MEASURE-percent), as the
# table names it.
LIVE_ACTIONS = [("passed", "passed"), ("dropped", "dropped"), ("redirected", "redirected"),
                ("tx", "sent back"), ("tx-failed", "failed to send back, dropped"),
                ("stopped", "stopped"), ("veth-dropped", "dropped by the veth")]
# The gated timing: every frame shape's run summed, judged as the gate judges its own
# (bench/gate/gate.py: its floor for kernel/all, the A/A change, the bootstrap interval).
ALL = "cost/all"
PROG = "cost/prog"
EXIT_KERNEL = 11  # bench/cost/cost_exits.h
FLOOR = next((floor, abs_floor) for bench, measure, _, floor, abs_floor in gate.TIMING
             if (bench, measure) == ("kernel/all", "latency"))
# A figure whose rounds spread (max - min, over their median) past this is marked too noisy
# to read: its rounds differ by more than half their median, so the host's other work, not
# the program, decided it. On this project's 2-vCPU hosts, other work running beside,
# test_run's rounds spread 2-37% and the floods' up to 48%; a busier one gave 91-255%.
NOISY_SPREAD = 50.0
# The CPUs: the reading calls a program's curve climbing when its cost on N CPUs at once,
# over its cost on one, passes this many times bare XDP_PASS's same ratio (which takes out
# what test_run itself does on N CPUs: cores that share caches or a clock). Per-CPU designs
# stayed within 1.15 times on this project's 2- and 16-CPU hosts; one cache line that
# every CPU writes (a shared counter, a queue's or a ring's lock) was 8 times at 2 CPUs.
CLIMB = 1.5
# A round whose CPUs ran their timed loops together less than this much of the time is
# flagged: for the rest, some ran alone, and contention reads low.
OVERLAP_MIN = 80.0
CPUS = ("cost", "")
# A compare's timings that are not gated (each shape alone, a capture's frame, a count of
# CPUs between 2 and the most): shown, never a verdict, so their verdict reads as a move.
UNGATED = {"regressed": "rose (not judged)", "improved": "fell (not judged)"}


def load(path):
    """(samples, program names, benchmarks in order, event maps, action names) by arm."""
    samples, names, order, maps = gate.load_samples([path]), {}, [], defaultdict(dict)
    actions = defaultdict(dict)
    with open(path) as f:
        for line in f:
            if line.startswith("#prog\t"):
                _, arm, name = line.rstrip("\n").split("\t")
                names[arm] = name
            elif line.startswith("#refused\t"):
                _, shape, why = line.rstrip("\n").split("\t")
                actions["#refused"][shape] = why
            elif line.startswith("#action\t"):
                _, arm, value, name = line.rstrip("\n").split("\t")
                actions[arm][int(value)] = name
            elif line.startswith("#map\t"):
                # One per run of cost_run (on one CPU, on several): the events read add up.
                _, arm, name, kind, inner, cpus, read = line.rstrip("\n").split("\t")
                m = maps[arm].setdefault(name, {"kind": kind, "inner": inner,
                                                "cpus": int(cpus), "read": None})
                if read != "-":
                    m["read"] = (m["read"] or 0) + int(read)
            elif line.strip() and not line.startswith("#"):
                bench = line.split("\t")[1]
                if bench not in order:
                    order.append(bench)
    return samples, names, order, maps, actions


def maps_note(arm_maps, who="", filled=()):
    """Where the program's events went (bench/cost/cost_events.h), so the path measured shows;
    FILLED: the maps of maps MAPS filled (state_note() says how), not left as they were."""
    sent, left = [], []
    for name, m in arm_maps.items():
        if name in filled:
            continue
        if m["read"] is None:
            left.append(f"{name} ({m['kind']} of {m['inner']})")
        elif m["cpus"]:
            sent.append(f"{name}, an {m['kind']} filled here with one {m['inner']} per CPU "
                        f"({m['cpus']}): {m['read']:,} events read")
        else:
            sent.append(f"{name}, a {m['kind']}: {m['read']:,} events read")
    note = ""
    if sent:
        note += (f"Event maps{who}, each sized so that no send met a full one, emptied after "
                 "each run: " + "; ".join(sent) + ".")
    if left:
        note += (" " if note else "") + (f"Maps of maps{who} left as the object leaves them "
                                          "(not of queues or rings, or not an array; a MAPS "
                                          "line MAP per-cpu gives one a map per CPU): " +
                                          ", ".join(left) + ".")
    return note


def entries(n, kind):
    adj = "non-zero " if kind == "non-zero" else ""
    return capture.counted(n, adj + "entry", adj + "entries")


def side_set(arm):
    """The globals SET gave ARM: a compare's side's own (FBF_COST_BASE_SET, cost.sh), else
    the shared ones."""
    own = os.environ.get(f"FBF_COST_{arm.upper()}_SET") if arm in (gate.BASE,
                                                                  gate.CANDIDATE) else None
    return own or os.environ.get("FBF_COST_SET")


def curve_workload(path):
    """What the CPU curve ran, from SAMPLES' "#curve" line (cost_run cpus)."""
    with open(path) as f:
        fields = next((line.rstrip("\n").split("\t")[1:] for line in f
                       if line.startswith("#curve\t")), ["shapes", "-"])
    if fields[0] == "capture":
        return (f"the capture's {capture.counted(int(fields[1]), 'frame', 'frames')} in "
                "order, each on its first pass (one call of one run, the timer's reading in "
                "each, as the capture's rows)")
    if fields[1] == "-":
        return "every shape"
    return (f"every shape, those the program rewrites ({fields[1].replace(',', ', ')}) each "
            "on its first pass (calls of one run, less what a call adds, as their rows)")


def objects_of(path):
    """{arm: the object's path} from SAMPLES' "#object" lines."""
    with open(path) as f:
        return dict(line.rstrip("\n").split("\t")[1:3] for line in f
                    if line.startswith("#object\t"))


def state_lines(path, arm, tag):
    """{map: fields} of ARM's TAG lines ("#filled", "#changed"), the first of each map's."""
    found = {}
    with open(path) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if fields[0] == tag and fields[1] == arm:
                found.setdefault(fields[2], fields[3:])
    return found


def state_note(path, arm, who=""):
    """What state the runs met (bench/cost/cost_state.h): the globals SET set (cost.sh
    exports them), the maps MAPS filled, and what the runs changed, from the first of
    cost_run's runs that printed them."""
    filled, counted = state_lines(path, arm, "#filled"), state_lines(path, arm, "#changed")
    if not filled and not counted:
        return ""
    parts = []
    # A map of maps filled per CPU: its maps' entries are counted, summed, as its own.
    labels = {name: f"{name}'s {inner} maps" for name, (kind, n, how, seconds, inner)
              in filled.items() if how == "per-cpu"}
    for name, (kind, n, how, seconds, inner) in filled.items():
        if how == "per-cpu":
            parts.append(f"{name} ({kind}) filled with one {inner} per CPU ({n}), each as its "
                         f"inner map is declared (MAPS line {name} per-cpu)")
            continue
        if how == "lines":
            # Lines that write one key again fill no entry more: the map's own count.
            held = (entries(int(counted[name][1]), counted[name][3]) if name in counted
                    else "entries")
            parts.append(f"{name} ({kind}) {held} from "
                         f"{capture.counted(int(n), 'line', 'lines')} of MAPS, one update "
                         f"each, {float(seconds):.2f} s")
            continue
        how = {"batch": "a batch update",
               "element": "one update an entry (no batch update)"}[how]
        parts.append(f"{name} ({kind}) {entries(int(n), '')} in {how}, {float(seconds):.2f} s")
    note = (f"State{who}: filled from MAPS: " + "; ".join(parts) + "." if parts else
            f"State{who}: no map filled from MAPS (each as the object declares it).")
    globals_set = side_set(arm)
    if globals_set:
        note += f" Globals set before the load (SET): {globals_set}."
    changed = [f"{labels.get(name, f'{name} ({kind})')} "
               f"{entries(int(before), unit).split()[0]} -> {entries(int(after), unit)}"
               for name, (kind, before, after, unit, how) in counted.items() if how == "changed"]
    same = [f"{labels.get(name, name)} ({entries(int(before), unit)})"
            for name, (kind, before, after, unit, how) in counted.items() if how == "same"]
    note += (" Changed by the runs: " + "; ".join(changed) + "." if changed else
             " The runs changed no map.")
    if same and changed:
        note += " Unchanged: " + ", ".join(same) + "."
    return note


def refused_note(refused):
    """The frame shapes the kernel's test run refused for the program's type, and why."""
    return "; ".join(f"Frame shape {shape} not run: {why}." for shape, why in refused.items())


def split_kernels(args):
    """The on:KERNEL=FIGURES arguments apart: (the others, [(KERNEL, FIGURES)])."""
    kernels = [a[len("on:"):].partition("=")[::2] for a in args if a.startswith("on:")]
    return [a for a in args if not a.startswith("on:")], kernels


def add_kernels(samples, kernels):
    """Each kernel's figures into SAMPLES as cost/prog@KERNEL: ([(KERNEL, release)], missing)."""
    found, missing = [], []
    for name, path in kernels:
        release = gate.add_matrix_kernel(samples, name, path)
        if release:
            found.append((name, release))
        else:
            missing.append(name)
            print(f"cost: kernel {name} gave no figures: see "
                  f"{os.path.join(os.path.dirname(path), 'output.log')}")
    return found, missing


def kernels_note(found):
    return ("" if not found else " verifier@KERNEL: the same figures on that kernel of the "
            "matrix, booted under QEMU: " + ", ".join(f"{n} ({r})" for n, r in found) + ".")


def action_name(value, names):
    """An action's name as the program's type names it (NAMES: load()'s, of its arm)."""
    value = int(value)
    return names.get(value, f"unknown ({value})")


def spread(values):
    """The spread of a figure's rounds in percent of their median, or None."""
    med = statistics.median(values)
    return (max(values) - min(values)) / med * 100 if med else None


def spread_cell(values):
    """The spread as the table shows it: marked when the figure is too noisy to read."""
    s = spread(values)
    if s is None:
        return "-"
    return f"{s:.0f}%" + (" too noisy" if s > NOISY_SPREAD else "")


def bmf_timing(bmf, bench, measure, values):
    """A timing into BMF; one too noisy to read also as MEASURE-too-noisy, its spread."""
    bmf.setdefault(bench, {})[measure] = bmf_entry(values)
    s = spread(values)
    if s is not None and s > NOISY_SPREAD:
        bmf[bench][f"{measure}-too-noisy"] = {"value": round(s, 1)}


def shapes_of(order):
    return [b for b in order if b not in ("cost/prog", ALL)
            and not gate.CPUS_BENCH.match(b) and not capture.is_capture(b)
            and not chain.is_chain(b)]


def cpus_section(prog, bare, bare_name, label):
    """The CPUs: table rows, BMF entries and the one-line reading, from both arms' samples."""
    counts = gate.cpus_counts({"prog": prog}).get(CPUS, [])
    rows, bmf, reading = [], {}, "one CPU: no curve to read"
    for n in counts:
        bench = gate.cpus_bench(CPUS, n)
        p, b = prog[(bench, "latency")], bare[(bench, "latency")]
        ps, bs = prog[(bench, "scaling")], bare[(bench, "scaling")]
        climb = statistics.median(x / y if y else 0.0 for x, y in zip(ps, bs))
        overlap = prog[(bench, "overlap-percent")]
        apart = sum(o < OVERLAP_MIN for o in overlap)
        rows.append([n, fmt(statistics.median(p)), f"{statistics.median(ps):.2f}x",
                     fmt(statistics.median(b)), f"{statistics.median(bs):.2f}x",
                     f"{statistics.median(prog[(bench, 'throughput')]) / 1e6:.1f} M",
                     f"{statistics.median(overlap):.0f}%" +
                     (f" ({apart} of {len(overlap)} rounds under {OVERLAP_MIN:.0f}%)"
                      if apart else ""), spread_cell(p)])
        bmf_timing(bmf, bench, "latency", p)
        for m in ("scaling", "throughput", "overlap-percent"):
            bmf[bench][m] = bmf_entry(prog[(bench, m)])
        bmf[bench]["climb"] = {"value": round(climb, 4)}
        bmf_timing(bmf, f"{bench}/{bare_name}", "latency", b)
        bmf[f"{bench}/{bare_name}"]["scaling"] = bmf_entry(bs)
        if n > 1:
            times = statistics.median(ps)
            reading = (f"{times:.1f} times at {n} CPUs: a shared map value, lock or ring in "
                       "the path" if climb > CLIMB else
                       f"flat: {times:.2f} times at {n} CPUs, bare {label} "
                       f"{statistics.median(bs):.2f}")
            if statistics.median(overlap) < OVERLAP_MIN:
                reading += (f" (the CPUs' loops ran together {statistics.median(overlap):.0f}%"
                            " of the time: contention reads low)")
    return rows, bmf, reading


def measure(out_dir, obj, samples_path, live_path, kernels, lines=None):
    samples, names, order, maps, actions = load(samples_path)
    refused = actions.pop("#refused", {})
    gate.add_scaling(samples)
    found, missing = add_kernels(samples, kernels)
    bare_name = next(arm for arm in names if arm != "prog")
    prog, bare = samples["prog"], samples[bare_name]
    label = action_name(bare[(shapes_of(order)[0], "action")][0], actions[bare_name])
    cap = capture.load(samples_path)
    rewritten = set(cap["shape_rewrites"].get("prog", []))
    rows, bmf = [], {}
    for kernel in [""] + [f"@{name}" for name, _ in found]:
        for m in STATIC:
            v = prog[(PROG + kernel, m)][0]
            rows.append(["verifier" + kernel, m, fmt(v), fmt(bare[(PROG + kernel, m)][0]),
                         "", "", "", ""])
            bmf.setdefault(PROG + kernel, {})[m] = {"value": v}
    rounds = 0
    for bench in shapes_of(order) + [ALL]:
        p, b = prog[(bench, "latency")], bare[(bench, "latency")]
        rounds = len(p)
        over = statistics.median(x - y for x, y in zip(p, b))
        action = prog.get((bench, "action"))
        rows.append([bench.replace("cost/", "test_run "), "ns/run", fmt(statistics.median(p)),
                     fmt(statistics.median(b)), "", capture.over_cell(over, " ns"), spread_cell(p),
                     (action_name(action[0], actions["prog"]) if action else "all shapes") +
                     (", rewrites the frame" if bench[len("cost/"):] in rewritten else "")])
        bmf_timing(bmf, bench, "latency", p)
        bmf[bench]["over-" + bare_name.replace("_", "-")] = {"value": over}
        if action:
            bmf[bench]["action"] = {"value": action[0]}
        bmf.setdefault(f"{bench}/{bare_name}", {})["latency"] = bmf_entry(b)
    rows += capture.rows(prog, bare, fmt, spread_cell)
    bmf.update(capture.bmf(prog, bare, bare_name, bmf_timing, bmf_entry))
    live, counted, how, unflooded, uncounted = defaultdict(list), "", {}, None, {}
    if live_path:
        with open(live_path) as f:
            for line in f:
                if line.startswith("#counted\t"):
                    counted = line.rstrip("\n").split("\t")[1]
                elif line.startswith("#unflooded\t"):
                    unflooded = line.rstrip("\n").split("\t")[1:]
                elif line.startswith("#uncounted\t"):
                    _, bench, why = line.rstrip("\n").split("\t")
                    uncounted[bench] = why
                elif line.startswith("#attached\t"):
                    _, arm, said = line.rstrip("\n").split("\t")
                    how[arm] = said
                elif line.strip():
                    bench, m, v = line.rstrip("\n").split("\t")
                    live[(bench, m)].append(float(v))
        for (bench, m), values in sorted(live.items()):
            if m in ("throughput", "latency"):
                bmf_timing(bmf, bench, m, values)
            else:
                bmf.setdefault(bench, {})[m] = bmf_entry(values)

    def med(arm, m):
        values = live.get((f"cost/live/{arm}", m))
        return statistics.median(values) if values else None

    modes = [b[len("cost/live/prog-"):] for b, m in live
             if b.startswith("cost/live/prog-") and m == "throughput"]
    live_notes = []
    for mode in sorted(set(modes), key=modes.index):
        # The bare program passes every frame: what it is not counted passing, the
        # counters miss (a capture's broadcast, multicast or non-IP frames on TC ingress),
        # and the program's counters miss as much: not frames it stopped.
        bare_passed = med(f"{bare_name}-{mode}", "passed-percent")
        if bare_passed is not None:
            bare_passed += med(f"{bare_name}-{mode}", "veth-dropped-percent") or 0
        unseen = 100 - bare_passed if bare_passed is not None and bare_passed < 99.5 else 0
        did = []
        for a, said in LIVE_ACTIONS:
            v = med(f"prog-{mode}", f"{a}-percent")
            if a == "stopped" and v is not None:
                v -= unseen
            # In whole percents: a share under half of one (a few of the stack's own
            # frames, neighbour discovery) is in the BMF file, not the row.
            if v is not None and v >= 0.5:
                did.append(f"{said} {v:.0f}%")
        if unseen:
            did.append(f"not counted by the stack {unseen:.0f}%")
            live_notes.append(
                f"live {mode}: bare {label} passes every frame, and the stack counted "
                f"{bare_passed:.0f}% of them passing: the rest, not unicast IP (broadcast, "
                "multicast, not IP), it does not count, so neither the program's; they are "
                "shown as not counted by the stack, not as stopped (the BMF file's "
                "stopped-percent holds them).")
        did = ", ".join(did) or uncounted.get(f"cost/live/prog-{mode}",
                                              f"not counted in {mode} mode")
        p, b, n = (med(f"prog-{mode}", "throughput"), med(f"{bare_name}-{mode}", "throughput"),
                   med("none", "throughput"))
        if how.get(f"prog-{mode}", f"in {mode} mode") != f"in {mode} mode":
            did = f"{how[f'prog-{mode}']}: {did}"
        rows.append([f"live {mode}", "frames/s", fmt(p), fmt(b), fmt(n),
                     capture.over_cell((1 - p / b) * 100, "%", 0),
                     spread_cell(live[(f"cost/live/prog-{mode}", "throughput")]), did])
        p, b = med(f"prog-{mode}", "latency"), med(f"{bare_name}-{mode}", "latency")
        rows.append([f"live {mode}", "ns/packet", fmt(p), fmt(b), "",
                     capture.over_cell(p - b, " ns"),
                     spread_cell(live[(f"cost/live/prog-{mode}", "latency")]), ""])
        p, n = med(f"prog-{mode}", "events-per-run"), med(f"prog-{mode}", "events-read")
        if p is not None:
            rows.append([f"live {mode}", "events/run", fmt(p), "", "", "", "",
                         f"{n:,.0f} events read as it ran"])
    live_note = ("" if not live else
                 " live: one CPU's " + ("flood of the capture's frames, looping, "
                                       if cap["read"] else "raw flood of 60-byte IPv4 frames ") +
                 "into a veth; ns/packet "
                 "from BPF run-time statistics (which add about 20 ns a run); what the program "
                 f"did to the frames from {counted}; events/run, what its event maps gave a "
                 "reader that emptied them as it ran (fewer than it sends: its maps filled, and "
                 "a failed send costs less)." + capture.unflooded_text(unflooded))
    print(f"{obj}: {names.get('prog', '?')}, measured on {machine()}, kernel "
          f"{platform.release()}. test_run: median of {rounds} rounds, each the kernel's mean "
          f"of its repetitions, bare {label} run in the same rounds; spread: (max - min) / "
          f"median of the program's rounds; over {label}: how much slower or faster the "
          f"program is than bare {label}, the median of each round's difference (ns), so not "
          "always the program's median less bare's; test_run all: the median of each round's "
          "sum over the shapes, so not the sum of the medians above it." + live_note +
          " Compare within this table only."
          + kernels_note(found) + "\n")
    note = " ".join(n for n in (maps_note(maps["prog"], "", state_lines(samples_path, "prog",
                                                                        "#filled")),
                                refused_note(refused),
                                capture.shapes_note(cap, "prog")) if n)
    if note:
        print(note + "\n")
    note = state_note(samples_path, "prog")
    if note:
        print(note + "\n")
    if not live:
        # No live part: no column for the frames with nothing attached.
        rows = [r[:4] + r[5:] for r in rows]
    print_table(["benchmark", "measure", "program", label] + (["nothing"] if live else []) +
                [f"over {label}", "spread", "action"], rows)
    for note in live_notes:
        print("\n" + note)
    path.section(live, (fmt, spread_cell, print_table))
    capture.print_section(cap, "prog", lambda v: action_name(v, actions["prog"]), label,
                          print_table)
    chain.section(samples_path, prog, order, "prog", ALL,
                  (fmt, spread_cell, lambda v: action_name(v, actions["prog"]), print_table),
                  bmf_timing, bmf)
    cpu_rows, cpu_bmf, reading = cpus_section(prog, bare, bare_name, label)
    if cpu_rows:
        bmf.update(cpu_bmf)
        print(f"\nCPUs: {curve_workload(samples_path)} on N CPUs at once, one thread pinned "
              f"to each, median of {rounds} rounds; ns/run: the kernel's mean over the threads "
              "and the workload's runs; "
              "x: that over the same round's on one CPU; runs/s: all N CPUs together; "
              "together: how long all N timed loops ran at once, of the time any ran.\n")
        print_table(["CPUs", "program ns/run", "x", f"{label} ns/run", "x", "runs/s",
                     "together", "spread"], cpu_rows)
        print(f"\nCPUs: {reading}")
        chain.curve_section(prog, rounds, (fmt, print_table), bmf_timing, bmf)
    if any(NOISY_SPREAD < (spread(v) or 0) for v in noisy_candidates(prog, live)):
        print(f"\ncost: figures marked too noisy spread over {NOISY_SPREAD:.0f}% of their "
              "median: the host's other work moved them; measure on a quieter host, or with "
              "more rounds (FBF_COST_ROUNDS, FBF_COST_LIVE_ROUNDS)")
    if lines:
        bmf.update(cost_lines.measure_section(lines, out_dir, "prog"))
    else:
        cost_lines.remove_listings(out_dir, "measure")
    os.makedirs(out_dir, exist_ok=True)
    write_bmf(os.path.join(out_dir, "cost.bmf.json"), bmf)
    html_report("measure", out_dir, samples_path)
    return EXIT_KERNEL if missing else 0


def html_report(kind, out_dir, samples_path, rows=(), closing=""):
    """The run's page beside its BMF file (bench/cost/cost_html.py), named before any
    verdict: a compare's verdict (CLOSING, in the page too) stays the last line."""
    import cost_html  # here, not above: it imports this module's readers
    path = cost_html.write(kind, out_dir, samples_path, rows, closing)
    if path:
        print(f"HTML report: {path}")


def noisy_candidates(prog, live):
    """The figures that the table shows a spread for."""
    return ([v for (b, m), v in prog.items() if m == "latency" and len(v) > 1
             and capture.noisy(b) and not chain.is_curve(b)] +
            [v for (b, m), v in live.items() if b.startswith("cost/live/prog-")
             and m in ("throughput", "latency")])


def gated(samples):
    """What a compare gates: the sum over the shapes on one CPU, the scaling on several."""
    return ([(ALL, "latency", "higher") + FLOOR] +
            [(b, "latency", "higher") + FLOOR for b in capture.GATED
             if (b, "latency") in samples[gate.BASE]] +
            [e for e in gate.cpus_timing(samples) if not chain.is_curve(e[0])] +
            chain.gated(samples, gate.BASE, gate.CANDIDATE, FLOOR[0]))


def judge_gated(samples):
    """{(bench, measure): judgement} of each gated timing that was measured."""
    judged = {(e[0], e[1]): gate.judge_timing(samples, *e) for e in gated(samples)}
    return {k: r for k, r in judged.items() if r}


def judged(r):
    """A gated timing's verdict with what decided it: its interval and its threshold."""
    lo, hi = r["ci"]
    # Within noise however large the median: the 95% interval reaches zero.
    return (f"{r['verdict']}: 95% interval [{lo:+.1f}, {hi:+.1f}]" +
            (", which holds 0" if r["verdict"] == "within noise" else "") +
            f", threshold {r['threshold']:.1f}%")


def describe(key, r):
    if key[0] == ALL:
        return f"all shapes {r['change']:+.1f}% ns/run"
    if capture.is_capture(key[0]):
        return f"{key[0][len('cost/'):]} {r['change']:+.1f}% ns/frame"
    if chain.describe(key[0], r):
        return chain.describe(key[0], r)
    n = gate.CPUS_BENCH.match(key[0])["n"]
    return (f"on {n} CPUs at once {r['candidate']:.2f} times its cost on one, the base "
            f"{r['base']:.2f} ({r['change']:+.1f}%)")


def timing_row(samples, bench, measure, worse, floor, abs_floor, gated_keys, unit, bmf):
    """One judged timing's row, and the candidate's figures and change into BMF."""
    r = gate.judge_timing(samples, bench, measure, worse, floor, abs_floor)
    if not r:
        return None
    lo, hi = r["ci"]
    gated_here = (bench, measure) in gated_keys
    bmf.setdefault(bench, {})[measure] = bmf_entry(samples[gate.CANDIDATE][(bench, measure)])
    bmf[bench][f"{measure}-change-percent"] = {"value": round(r["change"], 4),
                                               "lower_value": round(lo, 4),
                                               "upper_value": round(hi, 4)}
    return [bench, unit, fmt(r["base"]), fmt(r["candidate"]),
            f"{r['change']:+.1f}% [{lo:+.1f}, {hi:+.1f}]",
            f"{r['aa']:+.1f}% [{r['aa_ci'][0]:+.1f}, {r['aa_ci'][1]:+.1f}]",
            f"{r['threshold']:.1f}%" if gated_here else "not gated",
            r["verdict"] if gated_here else UNGATED.get(r["verdict"], r["verdict"])]


def compare(out_dir, samples_path, confirm_path, kernels, lines=None):
    samples, names, order, maps, actions = load(samples_path)
    gate.add_scaling(samples)
    hop_alone = chain.compared(samples, gate.BASE, gate.CANDIDATE)
    found, missing = add_kernels(samples, kernels)
    base, cand = samples[gate.BASE], samples[gate.CANDIDATE]
    rows, bmf, exact_regressions, changed_actions = [], {}, [], []
    # The host's kernel, then each of the matrix's: a program can grow on one alone.
    # On the host, each hop of a chain too: the verdict names the one that grew.
    hops = [chain.HOP + h for h in chain.shared(samples, gate.BASE, gate.CANDIDATE)
            if all((chain.HOP + h, m) in arm for m in STATIC for arm in (base, cand))]
    for name, release, bench in ([(None, None, PROG)] + [(None, None, h) for h in hops] +
                                 [(n, r, f"{PROG}@{n}") for n, r in found]):
        for m in STATIC:
            b, c = base[(bench, m)][0], cand[(bench, m)][0]
            v = gate.exact_verdict(b, c)
            if v == "regressed":
                on = f" on {name} ({release})" if name else ""
                hop = f"hop {bench[len(chain.HOP):]} " if bench in hops else ""
                exact_regressions.append(f"{hop}{m}{on} {fmt(b)} -> {fmt(c)}")
            rows.append([bench, m, fmt(b), fmt(c), f"{(c - b) / b * 100:+.2f}%", "exact",
                         "any rise", v])
            bmf.setdefault(bench, {})[m] = {"value": c}
    gated_keys = {(e[0], e[1]) for e in gated(samples)}
    for bench in shapes_of(order) + [ALL] + [b for b in capture.BENCHES if b in order]:
        # A capture's frame runs once a call: ns/frame, as make cost's table says.
        row = timing_row(samples, bench, "latency", "higher", *FLOOR, gated_keys,
                         "ns/frame" if capture.is_capture(bench) else "ns/run", bmf)
        if row:
            rows.append(row)
        a, c = base.get((bench, "action")), cand.get((bench, "action"))
        if a and c and a[0] != c[0]:
            changed_actions.append(f"{bench[5:]} {action_name(a[0], actions[gate.BASE])} -> "
                                   f"{action_name(c[0], actions[gate.CANDIDATE])}")
    # A chain's hops, each its own ns per frame that reaches it (cost_chain_report.py).
    for bench, measure, worse, floor, abs_floor in chain.gated(samples, gate.BASE,
                                                               gate.CANDIDATE, FLOOR[0]):
        row = timing_row(samples, bench, measure, worse, floor, abs_floor, gated_keys,
                         "ns/frame", bmf)
        if row:
            rows.append(row)
    for n in gate.cpus_counts(samples).get(CPUS, [])[1:]:
        row = timing_row(samples, gate.cpus_bench(CPUS, n), "scaling", "higher",
                         gate.CPUS_FLOOR, 0.0, gated_keys, "x 1 CPU", bmf)
        if row:
            rows.append(row)
    objects = objects_of(samples_path)
    print(f"base {names.get(gate.BASE, '?')} ({objects.get(gate.BASE, '?')}) against candidate "
          f"{names.get(gate.CANDIDATE, '?')} ({objects.get(gate.CANDIDATE, '?')}), "
          f"side by side in one run on {machine()}, kernel {platform.release()}. Exact "
          "measures: any rise is a regression. Timings: median of the paired per-round changes "
          "[95% bootstrap interval]; A/A: the base against a second copy of itself in the same "
          "rounds. cost/cpus/N: the cost on N CPUs at once over that on one in the same round. "
          "Gated: the sum over all shapes" +
          (", the capture's mean and p99 per frame" if any(
              (b, "latency") in samples[gate.BASE] for b in capture.GATED) else "") +
          ", and that on 2 CPUs and on the most" +
          (", and each hop of the chain, its own ns per frame (a round under "
           f"{chain.HOP_MIN_NS:.0f} ns taken as {chain.HOP_MIN_NS:.0f}; a change past "
           f"{chain.HOP_ABS_FLOOR:.0f} ns too), its static figures exact"
           if chain.shared(samples, gate.BASE, gate.CANDIDATE) else "") +
          ": significant, above the larger of its floor and the A/A change, and confirmed "
          "by a second run."
          + kernels_note(found).replace("verifier@", "cost/prog@") + "\n")
    notes = [maps_note(maps[arm], f" of the {arm}", state_lines(samples_path, arm, "#filled"))
             for arm in (gate.BASE, gate.CANDIDATE)]
    notes += [state_note(samples_path, arm, f" of the {arm}")
              for arm in (gate.BASE, gate.CANDIDATE)]
    if any(notes):
        print(" ".join(n for n in notes if n) + "\n")
    print_table(["benchmark", "measure", "base", "candidate", "change", "A/A", "threshold",
                 "verdict"], rows)
    cap = capture.load(samples_path)
    capture.print_compare_section(cap, lambda v: action_name(v, actions[gate.BASE]),
                                  lambda v: action_name(v, actions[gate.CANDIDATE]),
                                  print_table)
    if cap["changed"]:
        changed_actions.append(f"{cap['changed']:,} of the capture's {cap['run']:,} frames "
                               "(above)")
    if lines:
        bmf.update(cost_lines.compare_section(lines, out_dir, gate.BASE, gate.CANDIDATE))
    else:
        cost_lines.remove_listings(out_dir, "compare")
    os.makedirs(out_dir, exist_ok=True)
    write_bmf(os.path.join(out_dir, "cost-compare.bmf.json"), bmf)
    line, status = verdict(samples, exact_regressions, missing, confirm_path)
    html_report("compare", out_dir, samples_path, rows, line)
    if hop_alone:
        print(hop_alone)
    if changed_actions:
        print("cost-compare: note: the candidate decides differently: " +
              "; ".join(changed_actions))
    print(line)
    return status


def verdict(samples, exact_regressions, missing, confirm_path):
    """The compare's closing line and exit status."""
    if exact_regressions:
        # An exact rise decides alone, unconfirmed; the timings that failed the gate in
        # this run are named beside it, so that the line holds every measure that failed.
        first = judge_gated(samples)
        return ("cost-compare: REGRESSION: " + "; ".join(exact_regressions + [
            f"{describe(k, r)} ({judged(r)}; one run, not confirmed)"
            for k, r in first.items() if r["verdict"] == "regressed"]),
            gate.EXIT_REGRESSION)
    if missing:
        return ("cost-compare: FAIL: not measured on " + ", ".join(missing) +
                ": the guest's output.log says why", EXIT_KERNEL)
    first = judge_gated(samples)
    regressed = [k for k, r in first.items() if r["verdict"] == "regressed"]
    if regressed and not confirm_path:
        return ("cost-compare: " + "; ".join(describe(k, first[k]) for k in regressed) +
                ": confirming with a second run", gate.EXIT_TIMING_ONLY)
    if regressed:
        again_samples = load(confirm_path)[0]
        gate.add_scaling(again_samples)
        chain.compared(again_samples, gate.BASE, gate.CANDIDATE)
        again = judge_gated(again_samples)
        confirmed = [k for k in regressed
                     if k in again and again[k]["verdict"] == "regressed"]
        if confirmed:
            return ("cost-compare: REGRESSION: " + "; ".join(
                f"{describe(k, first[k])}, then {again[k]['change']:+.1f}% in a second run "
                f"(threshold {first[k]['threshold']:.1f}%)" for k in confirmed) +
                (": a shared map value, lock or ring in the path"
                 if any(gate.CPUS_BENCH.match(k[0]) for k in confirmed) else ""),
                gate.EXIT_REGRESSION)
        return ("cost-compare: PASS: the first run's " +
                "; ".join(describe(k, first[k]) for k in regressed) + " not confirmed (" +
                "; ".join(f"{again[k]['change']:+.1f}%, {again[k]['verdict']}"
                          for k in regressed if k in again) + ")", 0)
    # Under gate.MIN_ROUNDS no timing is judged: said, not left blank.
    rounds = min(len(samples[arm][(ALL, "latency")]) for arm in (gate.BASE, gate.AGAIN,
                                                                 gate.CANDIDATE))
    return ("cost-compare: PASS: same static figures or fewer, " +
            ("; ".join(f"{describe(k, r)} ({judged(r)})" for k, r in first.items()) or
             f"timings not judged: {rounds} rounds, and the gate's statistics need "
             f"{gate.MIN_ROUNDS} or more (FBF_COST_ROUNDS)"), 0)


def main():
    args, kernels = split_kernels(sys.argv[1:])
    lines = next((a[len("lines:"):] for a in args if a.startswith("lines:")), None)
    args = [a for a in args if not a.startswith("lines:")]
    if len(args) in (4, 5) and args[0] == "measure":
        return measure(args[1], args[2], args[3], args[4] if len(args) == 5 else None,
                       kernels, lines)
    if len(args) in (3, 4) and args[0] == "compare":
        return compare(args[1], args[2], args[3] if len(args) == 4 else None, kernels, lines)
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
