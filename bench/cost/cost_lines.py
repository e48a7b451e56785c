#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The hottest source lines of the programs the cost tool measured (make cost LINES=1).

  cost_lines.py measure|compare DIR [OUT_DIR]
      the section cost_report.py prints (which imports this), and with OUT_DIR the
      annotated listings there

DIR, from bench/cost/cost_lines.bash: lines.tsv, each arm's line table as its program was
loaded (cost_run run -L, bench/cost/cost_lines.h), perf.txt, `perf script -F ip,sym` of
the samples perf took while those runs ran, and event, "EVENT HZ SECONDS" (the event
sampled, how often, and how long the sampled runs took).

A sample is the program's when its address, or a return address of its call chain, lies
in the program's JIT image (jited_ksyms and jited_func_lens). Its address, or for a return
address the call before it, is placed on the line whose JIT address (jited_line_info) is
the largest at or below it within the same function. A sample in the image is the line's
own; one under it (a helper or kfunc the line called, or what that called in turn) is the
line's too, and counted under the name of the function the program called.
"""
import bisect
import math
import os
import sys
from collections import Counter, defaultdict

TOP = int(os.environ.get("FBF_COST_LINES_TOP", "10"))
# A compare's lines that fell, after those that rose: what the candidate no longer does.
FELL = 3
# A compare lists a line as moved when its samples moved by more than this many times the
# square root of their sum: two standard deviations of the difference of two counts.
NOISE = 2
# Fewer of the program's samples than this: the shares are told as a thin profile.
THIN = 1000


class Table:
    """One arm's program as loaded: its functions and the JIT address of each line entry."""

    def __init__(self):
        self.funcs = []     # (start, end, name), by start
        self.lines = {}     # start of a function -> ([address], [(file, line, text)])
        self.why = None     # why there is no table

    def func_at(self, ip):
        i = bisect.bisect_right([f[0] for f in self.funcs], ip) - 1
        return self.funcs[i] if i >= 0 and ip < self.funcs[i][1] else None

    def line_at(self, func, ip):
        """The line whose code holds IP in FUNC, or None before the first entry."""
        addrs, where = self.lines.get(func[0], ([], []))
        i = bisect.bisect_right(addrs, ip) - 1
        return where[i] if i >= 0 else None


def show_path(path):
    """A source path as the table shows it: relative to the tree cost runs in, where under it."""
    path = os.path.normpath(path)
    rel = os.path.relpath(path, os.getcwd()) if os.path.isabs(path) else path
    return path if rel.startswith("..") else rel


def load_tables(path):
    tables = defaultdict(Table)
    rows = defaultdict(list)
    with open(path) as f:
        for row in f:
            kind, arm, *rest = row.rstrip("\n").split("\t")
            if kind == "#func":
                start, size = int(rest[2], 16), int(rest[3])
                tables[arm].funcs.append((start, start + size, rest[1]))
            elif kind == "#line":
                rows[arm].append((int(rest[0], 16), show_path(rest[1]), int(rest[2]), rest[4]))
            elif kind == "#nolines":
                tables[arm].why = rest[0]
    for arm, t in tables.items():
        t.funcs.sort()
        for addr, file, line, text in sorted(rows[arm]):
            func = t.func_at(addr)
            if func:
                addrs, where = t.lines.setdefault(func[0], ([], []))
                addrs.append(addr)
                where.append((file, line, text))
    return tables


def read_chains(path):
    """Each sample's call chain from perf script: [(address, symbol)], the sampled one first."""
    chain = []
    with open(path, errors="replace") as f:
        for row in f:
            fields = row.split(None, 1)
            if not fields:
                if chain:
                    yield chain
                chain = []
                continue
            try:
                chain.append((int(fields[0], 16), fields[1].strip() if len(fields) > 1 else ""))
            except ValueError:
                continue
    if chain:
        yield chain


class Profile:
    def __init__(self, table):
        self.table = table
        self.samples = 0             # the program's
        self.unplaced = 0
        self.own = Counter()         # (file, line) -> samples in the image
        self.called = defaultdict(Counter)   # (file, line) -> {function called: samples}
        self.text = {}

    def count(self, key):
        return self.own.get(key, 0) + sum(self.called.get(key, {}).values())

    def share(self, key):
        return 100.0 * self.count(key) / self.samples

    def keys(self):
        return set(self.own) | set(self.called)

    def placed_percent(self):
        return 100.0 * (self.samples - self.unplaced) / self.samples if self.samples else 0.0


def profiles(dir_path):
    """{arm: Profile} of DIR's samples."""
    tables = load_tables(os.path.join(dir_path, "lines.tsv"))
    found = {arm: Profile(t) for arm, t in tables.items()}
    for chain in read_chains(os.path.join(dir_path, "perf.txt")):
        for i, (ip, _) in enumerate(chain):
            hit = next(((arm, f) for arm, p in found.items()
                        for f in [p.table.func_at(ip if i == 0 else ip - 1)] if f), None)
            if hit:
                break
        else:
            continue
        arm, func = hit
        p = found[arm]
        p.samples += 1
        where = p.table.line_at(func, ip if i == 0 else ip - 1)
        if not where:
            p.unplaced += 1
            continue
        key = where[:2]
        p.text.setdefault(key, where[2])
        if i == 0:
            p.own[key] += 1
        else:
            p.called[key][chain[i - 1][1].split("+")[0] or hex(chain[i - 1][0])] += 1
    return found


def event_of(dir_path):
    """(EVENT, HZ, SECONDS) of DIR's samples."""
    with open(os.path.join(dir_path, "event")) as f:
        return tuple(f.read().split())


def sampled(dir_path):
    event, hz, seconds = event_of(dir_path)
    return f"perf's {event} event at {hz} Hz on runs pinned to one CPU, {seconds} s to sample"


def place(key):
    return f"{key[0]}:{key[1]}"


def source(text, line, width=60):
    """A line's text as shown: line 0 is code the compiler made, of no line of the source."""
    if not line:
        return "(code the compiler made, of no one line)"
    return text[:width] if text else "(no text: BTF keeps none for this line)"


def helpers_cell(p, key, most=3):
    """The functions the line called, by their share; in the table, the MOST of them alone,
    and none under 0.1%."""
    called = p.called.get(key, Counter()).most_common(most)
    return ", ".join(f"{name} {100.0 * n / p.samples:.1f}%" for name, n in called
                     if not most or 1000 * n >= p.samples)


def header(name, p):
    """The profile's size and how much of it is placed: a thin one is seen as one."""
    line = (f"{name}: {p.samples:,} samples in the program, "
            f"{p.placed_percent():.1f}% placed on a source line, {p.unplaced:,} not")
    if p.samples < THIN:
        line += (f"; a thin profile (under {THIN:,} samples): more rounds "
                 "(FBF_COST_LINES_ROUNDS) give firmer shares")
    return line


def write_listing(path, name, p):
    """Every line of every function of the program, in the image's order, with its share."""
    with open(path, "w") as f:
        f.write(f"# {name}: {p.samples} samples, {p.unplaced} not placed on a line\n")
        for start, end, func in p.table.funcs:
            f.write(f"\n{func or '?'} (0x{start:x}, {end - start} bytes)\n")
            seen = set()
            for file, line, text in p.table.lines.get(start, ([], []))[1]:
                key = (file, line)
                if key in seen:
                    continue
                seen.add(key)
                share = f"{p.share(key):6.2f}%" if p.samples else "      -"
                called = helpers_cell(p, key, None)
                f.write(f"{share}  {place(key)}  {source(text, line, None)}" +
                        (f"   [{called}]" if called else "")
                        + "\n")


def print_rows(heads, rows, right):
    """A table whose columns in RIGHT (figures) are right-aligned, the rest (text) left."""
    widths = [max(len(r[i]) for r in [heads] + rows) for i in range(len(heads))]
    print()
    for row in [heads] + rows:
        print("  ".join(c.rjust(w) if i in right else c.ljust(w)
                        for i, (c, w) in enumerate(zip(row, widths))).rstrip())


def bmf_lines(p, prefix="cost/lines"):
    bmf = {prefix: {"samples": {"value": p.samples},
                    "placed-percent": {"value": round(p.placed_percent(), 2)}}}
    for key in p.keys():
        bmf[f"{prefix}/{place(key)}"] = {"sample-percent": {"value": round(p.share(key), 2)}}
    return bmf


# The listings each kind of run writes into OUT_DIR.
LISTINGS = {"measure": ["cost-lines.txt"],
            "compare": ["cost-lines-base.txt", "cost-lines-candidate.txt"]}


def remove_listings(out_dir, kind):
    """An earlier run's listings of KIND out of OUT_DIR: a run that writes none (no
    LINES=1, an object without line info, no sample) leaves none that look its own."""
    for name in LISTINGS[kind]:
        try:
            os.remove(os.path.join(out_dir, name))
        except FileNotFoundError:
            pass


def measure_section(dir_path, out_dir, arm):
    """The program's hot lines after the table; its listing into OUT_DIR; its BMF figures."""
    remove_listings(out_dir, "measure")
    p = profiles(dir_path).get(arm)
    print("\nHot lines: ", end="")
    if p is None or p.table.why:
        print(f"none: {p.table.why if p else 'no line table was written'}.")
        return {}
    print(header("the program", p) + "; " + sampled(dir_path) + ".")
    if not p.samples:
        return {}
    listing = os.path.join(out_dir, "cost-lines.txt")
    os.makedirs(out_dir, exist_ok=True)
    write_listing(listing, "the program", p)
    rows = [[f"{p.share(k):.1f}%", place(k), source(p.text[k], k[1]), helpers_cell(p, k)]
            for k in sorted(p.keys(), key=p.share, reverse=True)[:TOP]]
    print(f"share: of the program's samples, its own code on the line and the helpers and "
          f"kfuncs it called there (named beside it); every line: {listing}")
    print_rows(["share", "line", "source", "helpers and kfuncs called"], rows, {0})
    return bmf_lines(p)


def line_names(table):
    """{(file, line): (function, text, n)}: each line of the program as a compare matches it
    with the other object's. A comment shifts every line below it and a rename moves them
    all to another file, so a line is named by the function whose code holds it and its
    source text; the line number only tells apart lines of one text in one function: the
    Nth of them, by line."""
    names = {}
    for start, _, func in table.funcs:
        mine = sorted({(line, file, text) for file, line, text in
                       table.lines.get(start, ([], []))[1] if (file, line) not in names})
        seen = Counter()
        for line, file, text in mine:
            # The code the compiler made, of no line, is one name in a function, whichever
            # files it counts under: their order would change with their names.
            if not line:
                names[(file, line)] = (func, "", 0)
                continue
            text = " ".join(text.split())
            names[(file, line)] = (func, text, seen[(func, text)])
            seen[(func, text)] += 1
    return names


def by_name(p):
    """{name: [(file, line)]} of P's lines, named as line_names() names them."""
    found = defaultdict(list)
    for key, name in sorted(line_names(p.table).items()):
        found[name].append(key)
    return found


def compare_section(dir_path, out_dir, base, cand):
    """The lines whose share moved most from BASE to CAND, each matched to its own in the
    other object (line_names()); both listings; BMF figures."""
    remove_listings(out_dir, "compare")
    found = profiles(dir_path)
    b, c = found.get(base), found.get(cand)
    print("\nHot lines that moved: ", end="")
    why = next((p.table.why if p else "no line table was written"
                for p in (b, c) if p is None or p.table.why), None)
    if why:
        print(f"none: {why}.")
        return {}
    print(header("base", b) + "; " + header("candidate", c) + "; " + sampled(dir_path) + ".")
    if not b.samples or not c.samples:
        return {}
    os.makedirs(out_dir, exist_ok=True)
    for name, p in (("base", b), ("candidate", c)):
        write_listing(os.path.join(out_dir, f"cost-lines-{name}.txt"), name, p)
    at = {"base": by_name(b), "candidate": by_name(c)}

    def count(p, side, name):
        return sum(p.count(k) for k in at[side].get(name, []))

    def share(p, side, name):
        return 100.0 * count(p, side, name) / p.samples

    # Both ran the same frames as many times: a line's samples compare as they are, and
    # a line that did not change keeps its count however much the others grew.
    moved = {n: 100.0 * (count(c, "candidate", n) - count(b, "base", n)) / b.samples
             for n in at["base"].keys() | at["candidate"].keys()}
    # A line's samples are a count, whose chance spread is about its square root: a line
    # that moved less than twice that of the two counts' sum moved within the sampling's
    # noise, and every unchanged line would otherwise be listed as rising or falling.
    moved = {n: v for n, v in moved.items()
             if abs(count(c, "candidate", n) - count(b, "base", n)) >
             NOISE * math.sqrt(count(c, "candidate", n) + count(b, "base", n))}
    # A regression is in the lines that rose: they come first, however far a line that
    # did not change fell beside them (a push whose stalls the slower program now hides).
    rose = sorted((n for n in moved if moved[n] > 0), key=moved.get, reverse=True)[:TOP]
    fell = sorted((n for n in moved if moved[n] < 0), key=moved.get)[:FELL]
    top = rose + fell
    print(f"points: the line's samples in the candidate less those in the base, in percent of "
          f"the base's samples (both ran the same frames as many times): up to {TOP} that rose, "
          f"most first, then up to {FELL} that fell, each by more than {NOISE:g} times the "
          "square root of its samples on both sides (less is the sampling's noise); base, "
          "candidate: the "
          "line's share of each program's samples, helpers and kfuncs it called there "
          "included; a line is matched by its function and its source text, not its number "
          "(each side's own file:line shown, - where one side lacks it); every line: "
          f"{os.path.join(out_dir, 'cost-lines-base.txt')}, cost-lines-candidate.txt")

    def where(side, name):
        return ", ".join(place(k) for k in at[side].get(name, [])) or "-"

    rows = [[f"{moved[n]:+.1f}", f"{share(b, 'base', n):.1f}%",
             f"{share(c, 'candidate', n):.1f}%", where("base", n), where("candidate", n),
             source(n[1], (at["candidate"].get(n) or at["base"][n])[0][1])] for n in top]
    print_rows(["points", "base", "candidate", "base line", "candidate line", "source"], rows,
               {0, 1, 2})
    bmf = bmf_lines(c)
    for n in top:
        key = (at["candidate"].get(n) or at["base"][n])[0]
        bmf.setdefault(f"cost/lines/{place(key)}", {})["points"] = {
            "value": round(moved[n], 2)}
    return bmf


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[1] not in ("measure", "compare"):
        sys.exit(__doc__)
    out = sys.argv[3] if len(sys.argv) == 4 else os.path.join(sys.argv[2], "out")
    if sys.argv[1] == "measure":
        measure_section(sys.argv[2], out, "prog")
    else:
        compare_section(sys.argv[2], out, "base", "candidate")
    return 0


if __name__ == "__main__":
    sys.exit(main())
