#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The regression gate's verdicts: the candidate against the base, measured in one run.

  gate.py check OUT_DIR HISTORY [ARM=CALLGRIND_DIR ...] SAMPLES.tsv ... [on:KERNEL=FIGURES ...]
  gate.py kernels OUT_DIR HISTORY on:KERNEL=FIGURES ...   the matrix's exact measures alone
  gate.py thresholds      each measure's percentage boundary, for ci/bencher.sh
  gate.py compare SAMPLES.tsv ...    the timing table alone, for other side-by-side runs

Arms: "base", "base-again" (the base loaded or started a second time, for the A/A
comparison) and "candidate". SAMPLES rows are "arm<TAB>benchmark<TAB>measure<TAB>value",
one per sample, in the order the rounds ran; the n-th sample of an arm is paired with the
n-th of the others, since they ran in the same round, well under a second apart (cost_run
runs each arm in turn, about 0.2 s a turn on this project's hosts); rows BENCH/cpus/N
(cost_run cpus) are judged by their scaling (CPUS_FLOOR below). CALLGRIND_DIR holds one arm's
callgrind counts (bench/micro/callgrind.sh). FIGURES holds the programs' static figures, base
and candidate, as kernel KERNEL of the matrix gave them in a guest (bench/gate/gate.sh figures),
after a line "# kernel RELEASE"; they are judged as the host's are, as benchmarks named
BENCHMARK@KERNEL, and a kernel that gave none fails, named.

Writes OUT_DIR/gate.bmf.json (the candidate's values and changes), OUT_DIR/base.bmf.json and
OUT_DIR/candidate.bmf.json (each arm's own results, for Bencher's relative mode), and appends
to HISTORY, a tab-separated record keyed by machine and kernel that is never a reference:
  commit  date  machine  kernel  benchmark  measure  base  candidate  change%  verdict

Exit status: 0 no regression; 1 a regression in an exact measure, or a gated measure missing;
3 a regression in timing measures only, which bench/gate/gate.sh confirms with a second run.
"""
import math
import os
import platform
import random
import re
import statistics
import sys
from collections import defaultdict

# bench/report.py, which every benchmark's tables and BMF files come from.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from report import bmf_entry, callgrind_results, fmt, print_table, write_json  # noqa: E402
from measured_on import git_commit, machine, now  # noqa: E402

BASE, AGAIN, CANDIDATE = "base", "base-again", "candidate"

# Exact measures: identical on every run of the same code built by the same toolchain and
# loaded into the same kernel, so base and candidate can differ only by the change itself,
# and any rise is a regression: one instruction more per address in the classifier, one
# verified instruction or one JIT byte more in the program.
EXACT = [
    ("classifier/SourceAddr/v4", "instructions"),
    ("classifier/SourceAddr/v4", "estimated-cycles"),
    ("classifier/RandomBatch/v4", "instructions"),
    ("classifier/RandomBatch/v4", "estimated-cycles"),
    ("kernel/xdp_fizzbuzzfib", "verified-instructions"),
    ("kernel/xdp_fizzbuzzfib", "translated-instructions"),
    ("kernel/xdp_fizzbuzzfib", "jited-bytes"),
]
# The ring buffer's object, alike.
EXACT += [(bench + "-ringbuf", measure) for bench, measure in EXACT
          if bench == "kernel/xdp_fizzbuzzfib"]
# What each kernel of the matrix makes of the programs: the verifier, its rewrites and the
# JIT differ by kernel, so a change can grow the program on 5.10 and not on the host's.
MATRIX_EXACT = [(bench, measure) for bench, measure in EXACT if bench.startswith("kernel/")]

# Timing measures: (benchmark, measure, which way is worse, floor %, absolute floor).
# A timing regression needs all of:
#  - significance: the 95% bootstrap interval of the median paired change (candidate
#    against base, round by round) lies wholly on the worse side of zero;
#  - an effect above the threshold: the larger of the measure's floor and this run's A/A
#    change, the median paired change of the base against its own second copy, which
#    tells how far this run's conditions alone move the measure;
#  - for measures that can sit near zero, a difference above the absolute floor;
#  - and a second, independent run that confirms it (bench/gate/gate.sh).
# The floors come from A/A runs on this project's 2-vCPU machines with other builds and
# benchmarks loading them: the largest A/A medians seen were about 3% for the in-kernel
# sum over the frame shapes and 9% for the drain rates; idle CPU time moved by up to a
# sixth, wake-ups by one or two per second.
TIMING = [
    ("kernel/all", "latency", "higher", 5.0, 0.0),
    # The lab's capture, each frame one call of one run (bench/gate/gate.sh): what its
    # traffic costs, and its slow tail, on kernel/all's floor, as make cost-compare judges
    # them; A/A changes stayed within it in bench/cost/packet/capture_bench.sh's runs.
    ("kernel/capture", "latency", "higher", 5.0, 0.0),
    ("kernel/capture/p99", "latency", "higher", 5.0, 0.0),
    ("agent/drain/quiet", "throughput", "lower", 12.0, 0.0),
    ("agent/drain/text", "throughput", "lower", 12.0, 0.0),
    ("agent/drain/json", "throughput", "lower", 12.0, 0.0),
    ("agent/idle", "wakeups", "higher", 20.0, 5.0),
    ("agent/idle", "cpu-percent", "higher", 50.0, 0.05),
]
# The same measures on the ring buffer (bench/gate/gate.sh names them .../ringbuf), with the
# same floors: its A/A changes stayed within them. All but one: the quiet drain of a ring,
# a loop over records in place and a counter at over 100 M events/s, a few ms a round,
# moves with how the build lays out code, which an A/A of one binary cannot see. Two builds
# of the same agent source (differing only in the BPF objects they embed) measured +28% on
# one host; 40% still catches an agent that does work per event it does not print.
RING_QUIET_FLOOR = 40.0
TIMING += [(bench + "/ringbuf", measure, worse,
            RING_QUIET_FLOOR if bench == "agent/drain/quiet" else floor, abs_floor)
           for bench, measure, worse, floor, abs_floor in TIMING]

# The cost on N CPUs at once (bench/cost/packet/cost_run cpus, benchmarks BENCH/cpus/N[/SUFFIX]),
# judged as "scaling": each round's ns per run on N CPUs over the same arm's on one CPU in
# that round. It is what running on many CPUs adds to a program (a shared map value, lock
# or ring fought over), apart from its cost on one CPU, which the timings above judge; a
# per-CPU counter added to a program scales as the program did. Judged at 2 CPUs, which
# any host with several has, and at the most this host has. Its floor is twice the
# in-kernel sum's: a ratio carries the noise of two timings (A/A changes of the scaling
# stayed within 6% on this project's 2-vCPU hosts). One cache line shared by 2 CPUs
# multiplied a run's cost by about 8 there.
CPUS_FLOOR = 2 * next(floor for bench, _, _, floor, _ in TIMING if bench == "kernel/all")
CPUS_BENCH = re.compile(r"^(?P<prefix>.+)/cpus/(?P<n>[0-9]+)(?P<suffix>/.+)?$")

# Fewer rounds than this: a timing is not judged at all (judge_timing gives None).
MIN_ROUNDS = 3
BOOTSTRAP_RESAMPLES = 2000
CONFIDENCE = 0.95

EXIT_REGRESSION = 1
EXIT_TIMING_ONLY = 3


def load_samples(paths):
    """{arm: {(bench, measure): [values in run order]}}"""
    samples = defaultdict(lambda: defaultdict(list))
    for path in paths:
        with open(path) as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    arm, bench, measure, value = line.rstrip("\n").split("\t")
                    samples[arm][(bench, measure)].append(float(value))
    return samples


def add_callgrind(samples, arm, directory):
    _, bmf, _ = callgrind_results(directory)
    for bench, measures in bmf.items():
        for measure, entry in measures.items():
            samples[arm][(bench, measure)].append(float(entry["value"]))


def exact_verdict(base, candidate):
    """An exact measure's verdict: any rise is a regression."""
    return "regressed" if candidate > base else "improved" if candidate < base else "unchanged"


def median_ci(values, rng):
    """The median and its percentile-bootstrap interval."""
    n = len(values)
    meds = sorted(statistics.median(rng.choices(values, k=n))
                  for _ in range(BOOTSTRAP_RESAMPLES))
    tail = (1 - CONFIDENCE) / 2
    return (statistics.median(values), meds[int(tail * BOOTSTRAP_RESAMPLES)],
            meds[int((1 - tail) * BOOTSTRAP_RESAMPLES) - 1])


def paired_log_changes(a, b, worse):
    """ln(b/a) per round, signed so that positive is worse."""
    sign = 1 if worse == "higher" else -1
    # The epsilon makes 0 against 0 no change, not an error: an idle cost can be 0.
    return [sign * math.log((y + 1e-9) / (x + 1e-9)) for x, y in zip(a, b)]


def pct(log_change, worse):
    """A signed log change back to a percent change of the measure itself."""
    sign = 1 if worse == "higher" else -1
    return (math.exp(sign * log_change) - 1) * 100


def judge_timing(samples, bench, measure, worse, floor, abs_floor):
    key = (bench, measure)
    base, again, cand = (samples[arm].get(key, []) for arm in (BASE, AGAIN, CANDIDATE))
    n = min(len(base), len(again), len(cand))
    if n < MIN_ROUNDS:
        return None
    base, again, cand = base[:n], again[:n], cand[:n]
    # A fixed seed: the same samples always give the same verdict.
    rng = random.Random(20261122)
    # Log changes signed so that positive is worse, whichever way the measure goes.
    eff, lo, hi = median_ci(paired_log_changes(base, cand, worse), rng)
    aa, aa_lo, aa_hi = median_ci(paired_log_changes(base, again, worse), rng)
    # How much worse or better, in percent of the measure itself.
    worse_pct = abs(pct(eff, worse)) * (1 if eff > 0 else -1)
    threshold = max(floor, abs(pct(aa, worse)))
    diff = statistics.median(c - b for b, c in zip(base, cand))
    worse_abs = diff if worse == "higher" else -diff
    # A scaling regresses only when even its interval's better end passes the threshold:
    # a ratio of two timings on CPUs another process may take for a while swings far
    # (+1% to +65% for a per-CPU counter on a busy 2-vCPU host), while a shared cache
    # line multiplies it, its whole interval far above any threshold.
    sure = measure != "scaling" or pct(lo, worse) > threshold
    if lo > 0 and worse_pct > threshold and worse_abs > abs_floor and sure:
        verdict = "regressed"
    elif hi < 0 and -worse_pct > threshold and -worse_abs > abs_floor:
        verdict = "improved"
    elif lo > 0 or hi < 0:
        verdict = "changed, below threshold"
    else:
        verdict = "within noise"
    return {
        "base": statistics.median(base), "candidate": statistics.median(cand),
        "change": pct(eff, worse), "ci": sorted((pct(lo, worse), pct(hi, worse))),
        "aa": pct(aa, worse), "aa_ci": sorted((pct(aa_lo, worse), pct(aa_hi, worse))),
        "threshold": threshold, "verdict": verdict, "rounds": n,
    }


def cpus_counts(samples):
    """{(prefix, suffix): sorted CPU counts} of the BENCH/cpus/N benchmarks in SAMPLES."""
    counts = defaultdict(set)
    for measures in samples.values():
        for bench, _ in measures:
            m = CPUS_BENCH.match(bench)
            if m:
                counts[(m["prefix"], m["suffix"] or "")].add(int(m["n"]))
    return {family: sorted(n) for family, n in counts.items()}


def cpus_bench(family, n):
    return f"{family[0]}/cpus/{n}{family[1]}"


def add_scaling(samples):
    """Each arm's BENCH/cpus/N scaling, round by round, from its latencies on N and on 1."""
    for family, counts in cpus_counts(samples).items():
        for measures in samples.values():
            one = measures.get((cpus_bench(family, 1), "latency"))
            for n in counts:
                on_n = measures.get((cpus_bench(family, n), "latency"))
                if one and on_n:
                    measures[(cpus_bench(family, n), "scaling")] = [
                        x / y if y else 0.0 for x, y in zip(on_n, one)]


def cpus_timing(samples):
    """TIMING's entries for the scaling at 2 CPUs and at the most measured, of each family."""
    entries = []
    for family, counts in sorted(cpus_counts(samples).items()):
        for n in sorted({2, counts[-1]} & set(counts) - {1}):
            entries.append((cpus_bench(family, n), "scaling", "higher", CPUS_FLOOR, 0.0))
    return entries


def add_matrix_kernel(samples, name, path):
    """One kernel's figures into SAMPLES as BENCH@NAME; its release, or None if it gave none."""
    release = None
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if line.startswith("# kernel "):
                    release = line.split()[2]
    if release is None:
        return None
    for arm, measures in load_samples([path]).items():
        for (bench, measure), values in measures.items():
            samples[arm][(f"{bench}@{name}", measure)].extend(values)
    return release


def check(out_dir, history, inputs, host=True):
    samples = defaultdict(lambda: defaultdict(list))
    tsvs = []
    host_kernel = platform.release()
    # (benchmark, measure, the kernel it was measured on): the host's, then each matrix kernel's.
    exact = [(bench, measure, host_kernel) for bench, measure in EXACT] if host else []
    matrix = []
    for arg in inputs:
        arm, sep, directory = arg.partition("=")
        if arg.startswith("on:") and sep:
            name = arm[len("on:"):]
            release = add_matrix_kernel(samples, name, directory)
            matrix.append(f"{name} ({release or 'gave no figures'})")
            exact += [(f"{bench}@{name}", measure, release or name)
                      for bench, measure in MATRIX_EXACT]
        elif sep and os.path.isdir(directory):
            add_callgrind(samples, arm, directory)
        else:
            tsvs.append(arg)
    for arm, measures in load_samples(tsvs).items():
        for key, values in measures.items():
            samples[arm][key].extend(values)
    add_scaling(samples)

    rows, gate_bmf, hist = [], {}, []
    regressed_exact, regressed_timing, missing = [], [], []
    for bench, measure, kernel in exact:
        key = (bench, measure)
        b, c = samples[BASE].get(key), samples[CANDIDATE].get(key)
        if not b or not c or not b[0] or not c[0]:
            # A count of 0 is a benchmark that measured nothing (verified_insns needs
            # Linux 5.16), never an improvement.
            missing.append(key)
            rows.append([bench, measure, "-", "-", "-", "-", "-", "not measured"])
            continue
        change = (c[0] - b[0]) / b[0] * 100
        v = exact_verdict(b[0], c[0])
        if v == "regressed":
            regressed_exact.append(key)
        rows.append([bench, measure, fmt(b[0]), fmt(c[0]), f"{change:+.2f}%", "exact",
                     "any rise", v])
        gate_bmf.setdefault(bench, {})[measure] = {"value": c[0]}
        gate_bmf[bench][f"{measure}-change-percent"] = {"value": round(change, 4)}
        hist.append([kernel, bench, measure, fmt(b[0]), fmt(c[0]), f"{change:+.2f}", v])

    for bench, measure, worse, floor, abs_floor in TIMING + cpus_timing(samples) if host else []:
        r = judge_timing(samples, bench, measure, worse, floor, abs_floor)
        if r is None:
            missing.append((bench, measure))
            rows.append([bench, measure, "-", "-", "-", "-", "-", "not measured"])
            continue
        if r["verdict"] == "regressed":
            regressed_timing.append((bench, measure))
        lo, hi = r["ci"]
        rows.append([bench, measure, fmt(r["base"]), fmt(r["candidate"]),
                     f"{r['change']:+.1f}% [{lo:+.1f}, {hi:+.1f}]",
                     f"{r['aa']:+.1f}% [{r['aa_ci'][0]:+.1f}, {r['aa_ci'][1]:+.1f}]",
                     f"{r['threshold']:.1f}%",
                     r["verdict"]])
        entry = bmf_entry(samples[CANDIDATE][(bench, measure)])
        gate_bmf.setdefault(bench, {})[measure] = entry
        gate_bmf[bench][f"{measure}-change-percent"] = {
            "value": round(r["change"], 4), "lower_value": round(lo, 4),
            "upper_value": round(hi, 4)}
        hist.append([host_kernel, bench, measure, fmt(r["base"]), fmt(r["candidate"]),
                     f"{r['change']:+.2f}", r["verdict"]])

    if host:
        print(f"Measured on {machine()}, kernel {host_kernel}: the exact measures of "
              "the programs are this kernel's own, and differ on others (docs/kernels.md).")
    if matrix:
        print("Benchmarks named @KERNEL: the programs' exact measures on that kernel of the "
              "matrix, booted under QEMU: " + ", ".join(matrix) + ".")
    print("Candidate against base, measured side by side in this run." + (
          " Timings: median of "
          "the paired per-round changes [95% bootstrap interval]; A/A: the same for the "
          "base against a second copy of itself in the same rounds. A timing regression "
          "must be significant and above the threshold, the larger of the measure's floor "
          "and the A/A change, and a second run must confirm it." if host else "") + "\n")
    print_table(["benchmark", "measure", "base", "candidate", "change", "A/A", "threshold",
                 "verdict"], rows)

    os.makedirs(out_dir, exist_ok=True)
    write_json(os.path.join(out_dir, "gate.bmf.json"), gate_bmf)
    for arm, name in ((BASE, "base"), (CANDIDATE, "candidate")):
        arm_bmf = {}
        for (bench, measure), values in sorted(samples[arm].items()):
            arm_bmf.setdefault(bench, {})[measure] = bmf_entry(values)
        write_json(os.path.join(out_dir, f"{name}.bmf.json"), arm_bmf)

    # Outside a git checkout there is no commit to name: "-" keeps the columns.
    date, commit, host_name = now(), git_commit() or "-", machine()
    new_history = not os.path.exists(history)
    with open(history, "a") as f:
        if new_history:
            f.write("# commit\tdate\tmachine\tkernel\tbenchmark\tmeasure\tbase\tcandidate"
                    "\tchange%\tverdict\n")
        for h in hist:
            f.write("\t".join([commit, date, host_name] + h) + "\n")

    print(f"\ngate: results in Bencher Metric Format in {out_dir} (gate, base, candidate); "
          f"history: {history}")
    on = {(bench, measure): f" (kernel {kernel})" for bench, measure, kernel in exact
          if "@" in bench}
    verdict = ([f"gate: FAIL: {key[0]} {key[1]}{on.get(key, '')} was not measured"
                for key in missing] +
               [f"gate: REGRESSION: {key[0]} {key[1]}{on.get(key, '')}"
                for key in regressed_exact + regressed_timing] or
               ["gate: PASS: no benchmark regressed"])
    # The page, named before the verdict, holds it too (bench/gate/gate_html.py).
    import gate_html  # here, not above: it imports the cost tool's page, which imports this
    path = gate_html.write(out_dir, rows, "; ".join(verdict))
    if path:
        print(f"HTML report: {path}")
    print("\n".join(verdict))
    if missing or regressed_exact:
        return EXIT_REGRESSION
    if regressed_timing:
        return EXIT_TIMING_ONLY
    return 0


def compare(paths):
    """Timing measures only, of arms named base, base-again and candidate: a table."""
    samples = load_samples(paths)
    add_scaling(samples)
    rows = []
    for bench, measure, worse, floor, abs_floor in TIMING + cpus_timing(samples):
        r = judge_timing(samples, bench, measure, worse, floor, abs_floor)
        if r is None:
            continue
        lo, hi = r["ci"]
        rows.append([bench, measure, fmt(r["base"]), fmt(r["candidate"]),
                     f"{r['change']:+.1f}% [{lo:+.1f}, {hi:+.1f}]",
                     f"{r['aa']:+.1f}% [{r['aa_ci'][0]:+.1f}, {r['aa_ci'][1]:+.1f}]",
                     r["verdict"]])
    print_table(["benchmark", "measure", "base", "candidate", "change", "A/A", "verdict"],
                rows)
    return 0


def thresholds():
    """One line per measure for Bencher's percentage thresholds: MEASURE upper|lower FRACTION."""
    seen = {}
    for _, measure in EXACT:
        seen[measure] = ("upper", 0.0)
    for bench, measure, worse, floor, _ in TIMING:
        side = "upper" if worse == "higher" else "lower"
        # One boundary per measure: the widest floor of the benchmarks that share it. Not
        # the quiet ring drain's, which would loosen every drain rate's: Bencher may alert
        # on that one benchmark where only code layout moved it, and the gate decides.
        if bench == "agent/drain/quiet/ringbuf":
            continue
        if measure not in seen or seen[measure][1] < floor / 100:
            seen[measure] = (side, floor / 100)
    seen["scaling"] = ("upper", CPUS_FLOOR / 100)
    for measure, (side, fraction) in seen.items():
        print(f"{measure} {side} {fraction:g}")
    return 0


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == "check":
        return check(sys.argv[2], sys.argv[3], sys.argv[4:])
    if len(sys.argv) >= 5 and sys.argv[1] == "kernels":
        return check(sys.argv[2], sys.argv[3], sys.argv[4:], host=False)
    if len(sys.argv) == 2 and sys.argv[1] == "thresholds":
        return thresholds()
    if len(sys.argv) >= 3 and sys.argv[1] == "compare":
        return compare(sys.argv[2:])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
