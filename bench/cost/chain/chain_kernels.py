#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The tail call's and libxdp's dispatcher's cost, kernel by kernel, as one Markdown table.

Arguments NAME=FILE, each FILE a kernel's rows from bench/cost/chain/chain_kernels.sh: "# kernel
RELEASE", "bare 0 NS", "tail-calls N NS PER_CALL", "alone 0 NS", "dispatcher N NS PER_SLOT"
(PER_SLOT: over the program alone, divided by N),
"no-dispatcher STATUS"; with SLOTS, "slot I NAME" (the order the dispatcher runs its programs),
"slots N NS OVER_ALONE" and "share OBJECT[:PROG] NS". Each cell gives ns and, since a guest under
TCG emulates its CPU, a multiple of that kernel's own bare program (the program alone, for the
dispatcher's rows); a share, its part of the dispatcher's time.
Exit 1, after one line, where a file is missing or holds no tail-call row.
"""
import sys


def read(path):
    """A kernel's release and its rows, {(kind, n): [ns, per]}; a slot's, {("slot", I): NAME}
    and a share's, {("share", OBJECT[:PROG]): [ns]}."""
    release, rows = "?", {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            words = line.split()
            if line.startswith("# kernel "):
                release = words[2]
            elif words[:1] == ["slot"] and len(words) == 3:
                rows[("slot", int(words[1]))] = words[2]
            elif words[:1] == ["share"] and len(words) == 3:
                rows[("share", words[1])] = [float(words[2])]
            elif len(words) >= 2:
                rows[(words[0], int(words[1]))] = [float(w) for w in words[2:]]
    return release, rows


def named_lines(kernels):
    """The rows of the dispatcher with the programs SLOTS named, where a kernel ran it: the
    order it runs them, its ns over the program alone, and each program's share."""
    slots = next((n for _, rows in kernels for kind, n in rows if kind == "slots"), None)
    if slots is None:
        return []
    lines = [("dispatcher with the programs named: the order it runs them",
              lambda rows: " > ".join(rows[k] for k in sorted(k for k in rows
                                                               if k[0] == "slot")) or "-"),
             (f"dispatcher with the programs named ({slots}): ns; over alone",
              lambda rows: (f"{rows[('slots', slots)][0]:.2f}, "
                            f"{rows[('slots', slots)][1]:+.2f}")
              if ("slots", slots) in rows else "-")]
    specs = []
    for _, rows in kernels:
        specs += [n for kind, n in rows if kind == "share" and n not in specs]
    for spec in specs:
        def share(rows, spec=spec):
            if ("share", spec) not in rows or ("slots", slots) not in rows:
                return "-"
            ns, total = rows[("share", spec)][0], rows[("slots", slots)][0]
            return f"{ns:.2f} ({100 * ns / total:.0f}%)"
        lines.append((f"share of {spec.rsplit('/', 1)[-1]}: ns (of the dispatcher's)", share))
    return lines


def cell(rows, key, base_key):
    """ns, a multiple of the base program's ns; a dispatcher's, its ns a slot too."""
    if key not in rows:
        return "-"
    base = rows.get(base_key, [0])[0]
    values = rows[key]
    if key[0] == "tail-calls":
        return f"{values[1]:.3f} ({values[1] / base:.3f}x)" if base else f"{values[1]:.3f}"
    times = f" ({values[0] / base:.2f}x)" if base else ""
    slot = f", {values[1]:.2f} a slot" if len(values) > 1 else ""
    # What each slot added since the count before costs: the dispatcher's per-slot step.
    before = [n for kind, n in rows if kind == key[0] and 0 < n < key[1]]
    if before:
        step = (values[0] - rows[(key[0], max(before))][0]) / (key[1] - max(before))
        slot += f", {step:+.2f} each added"
    return f"{values[0]:.2f}{times}{slot}"


def main(args):
    kernels = []
    for arg in args:
        name, path = arg.split("=", 1)
        try:
            release, rows = read(path)
        except OSError as e:
            print(f"chain_kernels: {name} gave no figures: {e.strerror}", file=sys.stderr)
            return 1
        if ("tail-calls", 1) not in rows:
            print(f"chain_kernels: {name} gave no tail-call row", file=sys.stderr)
            return 1
        kernels.append((f"{name} {release}", rows))
    lines = [("bare XDP program, ns", "bare", 0, "bare")]
    lines += [(f"tail call, chain of {n}: ns a call", "tail-calls", n, "bare")
              for n in (1, 2, 8, 32)]
    lines += [("program alone (dispatcher's), ns", "alone", 0, "alone")]
    lines += [(f"dispatcher, {n} program{'s' if n > 1 else ''}: ns; a slot over alone; "
               "a slot added", "dispatcher", n, "alone") for n in (1, 2, 5, 10)]
    print("| figure | " + " | ".join(k for k, _ in kernels) + " |")
    print("|---|" + "---|" * len(kernels))
    for label, kind, n, base in lines:
        cells = []
        for _, rows in kernels:
            if kind == "dispatcher" and ("no-dispatcher", 55) in rows:
                cells.append("does not load (exit 55)")
            else:
                cells.append(cell(rows, (kind, n), (base, 0)))
        print(f"| {label} | " + " | ".join(cells) + " |")
    for label, cell_of in named_lines(kernels):
        cells = ["does not load (exit 55)" if ("no-dispatcher", 55) in rows else cell_of(rows)
                 for _, rows in kernels]
        print(f"| {label} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
