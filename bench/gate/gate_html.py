#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The gate's page, OUT_DIR/cost.html beside gate.bmf.json (gate.py check calls write()),
made of bench/cost/cost_html.py's parts: the verdict first, each timing's change with its
95% interval drawn (red regressed, green improved), the table with every measure's verdict,
and every figure of gate.bmf.json in data-* attributes, so that a test (bench/gate/gate.bats)
holds the page to the file.
"""
import json
import os
import platform
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cost"))
import cost_html as page  # noqa: E402
from measured_on import git_commit, machine, now  # noqa: E402
from report import fmt  # noqa: E402

# Settings shown in the header, as gate.sh exports them.
SETTINGS = ["FBF_GATE_BASE_COMMIT", "FBF_GATE_KERNELS", "FBF_GATE_KERNEL_ROUNDS",
            "FBF_GATE_KERNEL_REPEAT", "FBF_GATE_AGENT_ROUNDS"]


def figures(bmf):
    """Every figure of the file, as it holds it: the exact measures' changes have no
    interval to draw, and are read here and in the table."""
    rows = [page.data_row(b, m, e, [b, m] + [fmt(e[k]) if k in e else ""
                                             for k in ("value", "lower_value", "upper_value")])
            for b in sorted(bmf) for m, e in sorted(bmf[b].items())]
    return ('<h2>Every figure of gate.bmf.json</h2><div id="fig-figures">' +
            page.table(["benchmark", "measure", "value", "lower", "upper"], rows) + "</div>")


def document(bmf, rows, closing):
    head = [("host", machine()), ("kernel", platform.release()), ("when", now()),
            ("commit", git_commit() or "-")] + page.settings_rows(SETTINGS)
    verdicts = {(r[0], r[1]): r[-1] for r in rows}
    return page.document("gate.bmf.json", [
        page.header_table("gate: the candidate against the base", head),
        page.verdict_line(closing), page.changes(bmf, rows, verdicts), figures(bmf)])


def write(out_dir, rows, closing):
    """OUT_DIR/cost.html of the gate's judgement; its path, or None and one line said."""
    with open(os.path.join(out_dir, "gate.bmf.json")) as f:
        bmf = json.load(f)
    return page.save(out_dir, lambda: document(bmf, rows, closing))
