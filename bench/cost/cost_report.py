#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""What an XDP object costs, from cost_run's and cost_live.sh's samples (bench/cost/cost.sh).

  cost_report.py measure OUT_DIR OBJECT SAMPLES.tsv [LIVE.tsv] [on:KERNEL=FIGURES ...]
      one table, and OUT_DIR/cost.bmf.json in Bencher Metric Format
  cost_report.py compare OUT_DIR SAMPLES.tsv [CONFIRM.tsv] [on:KERNEL=FIGURES ...]
      base against candidate with the regression gate's statistics and verdict
      (bench/gate/gate.py), OUT_DIR/cost-compare.bmf.json, and one closing line

FIGURES: the static figures of the same arms on kernel KERNEL of the matrix, booted under
QEMU (bench/kernel/matrix.bash), after a line "# kernel RELEASE", as the gate reads them;
shown, and for compare judged, as benchmark cost/prog@KERNEL.

SAMPLES rows: "arm<TAB>benchmark<TAB>measure<TAB>value" (arms: xdp_pass and prog for
measure; base, base-again and candidate for compare), "#prog<TAB>arm<TAB>name" lines;
LIVE rows: "benchmark<TAB>measure<TAB>value".

compare's exit status: 0 no regression; 1 a regression in an exact measure (the
verifier's instructions, the JIT's bytes: any rise, on any kernel), or in the timing of all
frame shapes confirmed by CONFIRM.tsv, a second run; 3 a timing regression that needs that
second run; 11 (both) a kernel that gave no figures.
"""
import os
import platform
import statistics
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "gate"))
from report import bmf_entry, fmt, print_table, write_bmf  # noqa: E402
from measured_on import machine  # noqa: E402
import gate  # noqa: E402

ACTIONS = ["XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX", "XDP_REDIRECT"]
STATIC = ["verified-instructions", "translated-instructions", "jited-bytes"]
LIVE_ACTIONS = ["passed", "dropped", "redirected", "tx"]
# The gated timing: every frame shape's run summed, judged as the gate judges its own
# (bench/gate/gate.py: its floor for kernel/all, the A/A change, the bootstrap interval).
ALL = "cost/all"
PROG = "cost/prog"
EXIT_KERNEL = 11  # bench/cost/cost_exits.h
FLOOR = next((floor, abs_floor) for bench, measure, _, floor, abs_floor in gate.TIMING
             if (bench, measure) == ("kernel/all", "latency"))


def load(path):
    samples, names, order = gate.load_samples([path]), {}, []
    with open(path) as f:
        for line in f:
            if line.startswith("#prog\t"):
                _, arm, name = line.rstrip("\n").split("\t")
                names[arm] = name
            elif line.strip() and not line.startswith("#"):
                bench = line.split("\t")[1]
                if bench not in order:
                    order.append(bench)
    return samples, names, order


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


def action_name(value):
    value = int(value)
    return ACTIONS[value] if value < len(ACTIONS) else f"unknown ({value})"


def spread(values):
    med = statistics.median(values)
    return f"{(max(values) - min(values)) / med * 100:.0f}%" if med else "-"


def shapes_of(order):
    return [b for b in order if b not in ("cost/prog", ALL)]


def measure(out_dir, obj, samples_path, live_path, kernels):
    samples, names, order = load(samples_path)
    found, missing = add_kernels(samples, kernels)
    prog, bare = samples["prog"], samples["xdp_pass"]
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
                     fmt(statistics.median(b)), "", f"{over:+.1f}", spread(p),
                     action_name(action[0]) if action else "all shapes"])
        bmf.setdefault(bench, {})["latency"] = bmf_entry(p)
        bmf[bench]["over-xdp-pass"] = {"value": over}
        if action:
            bmf[bench]["action"] = {"value": action[0]}
        bmf.setdefault(bench + "/xdp_pass", {})["latency"] = bmf_entry(b)
    live = defaultdict(list)
    if live_path:
        with open(live_path) as f:
            for line in f:
                if line.strip():
                    bench, m, v = line.rstrip("\n").split("\t")
                    live[(bench, m)].append(float(v))
        for (bench, m), values in sorted(live.items()):
            bmf.setdefault(bench, {})[m] = bmf_entry(values)

    def med(arm, m):
        values = live.get((f"cost/live/{arm}", m))
        return statistics.median(values) if values else None

    for mode in ("native", "skb") if live else ():
        did = []
        for a in LIVE_ACTIONS:
            v = med(f"prog-{mode}", f"{a}-percent")
            if v:
                did.append(f"{a} {v:.0f}%")
        did = ", ".join(did) or "not counted in skb mode"
        p, b, n = (med(f"prog-{mode}", "throughput"), med(f"xdp_pass-{mode}", "throughput"),
                   med("none", "throughput"))
        rows.append([f"live {mode}", "frames/s", fmt(p), fmt(b), fmt(n),
                     f"{(p / b - 1) * 100:+.0f}%",
                     spread(live[(f"cost/live/prog-{mode}", "throughput")]), did])
        p, b = med(f"prog-{mode}", "latency"), med(f"xdp_pass-{mode}", "latency")
        rows.append([f"live {mode}", "ns/packet", fmt(p), fmt(b), "", f"{p - b:+.1f}",
                     spread(live[(f"cost/live/prog-{mode}", "latency")]), ""])
    print(f"{obj}: {names.get('prog', '?')}, measured on {machine()}, kernel "
          f"{platform.release()}. test_run: median of {rounds} rounds, each the kernel's mean "
          "of its repetitions, bare XDP_PASS run in the same rounds; spread: (max - min) / "
          "median of the program's rounds. live: one CPU's raw flood of 60-byte IPv4 frames "
          "into a veth; ns/packet from BPF run-time statistics (which add about 20 ns a run); "
          "what the program did from the veth's XDP counters. Compare within this table only."
          + kernels_note(found) + "\n")
    print_table(["benchmark", "measure", "program", "XDP_PASS", "nothing", "over XDP_PASS",
                 "spread", "action"], rows)
    os.makedirs(out_dir, exist_ok=True)
    write_bmf(os.path.join(out_dir, "cost.bmf.json"), bmf)
    return EXIT_KERNEL if missing else 0


def judge_all(samples):
    return gate.judge_timing(samples, ALL, "latency", "higher", *FLOOR)


def compare(out_dir, samples_path, confirm_path, kernels):
    samples, names, order = load(samples_path)
    found, missing = add_kernels(samples, kernels)
    base, cand = samples[gate.BASE], samples[gate.CANDIDATE]
    rows, bmf, exact_regressions, changed_actions = [], {}, [], []
    # The host's kernel, then each of the matrix's: a program can grow on one alone.
    for name, release in [(None, None)] + found:
        bench = PROG + (f"@{name}" if name else "")
        for m in STATIC:
            b, c = base[(bench, m)][0], cand[(bench, m)][0]
            v = gate.exact_verdict(b, c)
            if v == "regressed":
                on = f" on {name} ({release})" if name else ""
                exact_regressions.append(f"{m}{on} {fmt(b)} -> {fmt(c)}")
            rows.append([bench, m, fmt(b), fmt(c), f"{(c - b) / b * 100:+.2f}%", "exact",
                         "any rise", v])
            bmf.setdefault(bench, {})[m] = {"value": c}
    for bench in shapes_of(order) + [ALL]:
        r = gate.judge_timing(samples, bench, "latency", "higher", *FLOOR)
        if not r:
            continue
        lo, hi = r["ci"]
        gated = bench == ALL
        rows.append([bench, "ns/run", fmt(r["base"]), fmt(r["candidate"]),
                     f"{r['change']:+.1f}% [{lo:+.1f}, {hi:+.1f}]",
                     f"{r['aa']:+.1f}% [{r['aa_ci'][0]:+.1f}, {r['aa_ci'][1]:+.1f}]",
                     f"{r['threshold']:.1f}%" if gated else "not gated", r["verdict"]])
        bmf.setdefault(bench, {})["latency"] = bmf_entry(cand[(bench, "latency")])
        bmf[bench]["latency-change-percent"] = {"value": round(r["change"], 4),
                                                "lower_value": round(lo, 4),
                                                "upper_value": round(hi, 4)}
        a, c = base.get((bench, "action")), cand.get((bench, "action"))
        if a and c and a[0] != c[0]:
            changed_actions.append(f"{bench[5:]} {action_name(a[0])} -> {action_name(c[0])}")
    print(f"base {names.get(gate.BASE, '?')} against candidate {names.get(gate.CANDIDATE, '?')}, "
          f"side by side in one run on {machine()}, kernel {platform.release()}. Exact "
          "measures: any rise is a regression. Timings: median of the paired per-round changes "
          "[95% bootstrap interval]; A/A: the base against a second copy of itself in the same "
          "rounds; the sum over all shapes is gated: significant, above the larger of its "
          "floor and the A/A change, and confirmed by a second run."
          + kernels_note(found).replace("verifier@", "cost/prog@") + "\n")
    print_table(["benchmark", "measure", "base", "candidate", "change", "A/A", "threshold",
                 "verdict"], rows)
    os.makedirs(out_dir, exist_ok=True)
    write_bmf(os.path.join(out_dir, "cost-compare.bmf.json"), bmf)
    if changed_actions:
        print("cost-compare: note: the candidate decides differently: " +
              "; ".join(changed_actions))
    if exact_regressions:
        print("cost-compare: REGRESSION: " + "; ".join(exact_regressions))
        return gate.EXIT_REGRESSION
    if missing:
        print("cost-compare: FAIL: not measured on " + ", ".join(missing) +
              ": the guest's output.log says why")
        return EXIT_KERNEL
    r = judge_all(samples)
    if r["verdict"] == "regressed":
        if not confirm_path:
            print(f"cost-compare: all shapes {r['change']:+.1f}% over the base: "
                  "confirming with a second run")
            return gate.EXIT_TIMING_ONLY
        again = judge_all(load(confirm_path)[0])
        if again["verdict"] == "regressed":
            print(f"cost-compare: REGRESSION: all shapes {r['change']:+.1f}% and "
                  f"{again['change']:+.1f}% ns/run over the base in two runs "
                  f"(threshold {r['threshold']:.1f}%)")
            return gate.EXIT_REGRESSION
        print(f"cost-compare: PASS: the first run's {r['change']:+.1f}% was not confirmed "
              f"({again['change']:+.1f}%, {again['verdict']})")
        return 0
    print(f"cost-compare: PASS: same static figures or fewer, all shapes "
          f"{r['change']:+.1f}% ns/run ({r['verdict']}, threshold {r['threshold']:.1f}%)")
    return 0


def main():
    args, kernels = split_kernels(sys.argv[1:])
    if len(args) in (4, 5) and args[0] == "measure":
        return measure(args[1], args[2], args[3], args[4] if len(args) == 5 else None,
                       kernels)
    if len(args) in (3, 4) and args[0] == "compare":
        return compare(args[1], args[2], args[3] if len(args) == 4 else None, kernels)
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
