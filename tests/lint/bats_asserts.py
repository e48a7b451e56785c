#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Assertions in bats files that cannot fail, where ShellCheck 0.9 does not look.

bats_asserts.py FILE...: print FILE:LINE: why, for each, and exit 1 if any.

bats runs a test under `set -e`, and errexit ignores a negated command and
every command of an `A && B` list but the last. ShellCheck flags a `! cmd`
mid-test (SC2314), but not one in a loop or a helper, nor `[ A ] && [ B ]`.
Flagged here, in a test or a function of a bats file:

- a statement that starts with `!` and has no `|| ...` to fail it, unless it
  is the last one of a helper function (its exit status is the answer);
- an `A && B` list whose last command is a test (`[`, `[[`, `test`, `!`) and
  that no `||` follows, on the same terms: it asserts nothing when A fails.

The fix: `run !` or `run -N` (bats 1.5), one condition per line, or both
conditions inside one `[[ ]]`.
"""
import re
import sys

HEREDOC = re.compile(r"<<-?\s*(['\"]?)(\w+)\1")
TEST_CMD = re.compile(r"^(\[\[?|test|!)(\s|$)")
CONTROL = re.compile(r"^(if|elif|while|until|for|case|then|else|do|local|return|exit)\b")
# name() { ...; }: a helper on one line, whose last command is its answer.
ONE_LINE_HELPER = re.compile(r"^[\w-]+\(\)\s*\{.*\}$")


def masked(line):
    """The line with quoted text, $(...) and [[ ... ]] emptied, and its comment gone."""
    line = re.sub(r"\\.", "__", line)
    line = re.sub(r"'[^']*'", "''", line)
    line = re.sub(r'"[^"]*"', '""', line)
    while True:
        shorter = re.sub(r"\$\([^()]*\)", "$_", line)
        if shorter == line:
            break
        line = shorter
    line = re.sub(r"\[\[.*?\]\]", "[[ ]]", line)
    return re.sub(r"(^|\s)#.*$", "", line).rstrip()


def statements(path):
    """(first line number, masked text, next significant masked line) of each statement."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    joined, heredoc, start, text = [], None, 0, ""
    for number, raw in enumerate(lines, 1):
        if heredoc:
            if raw.strip() == heredoc:
                heredoc = None
            continue
        line = masked(raw)
        found = HEREDOC.search(line)
        if found:
            heredoc = found.group(2)
        if not text:
            start = number
        text = (text + " " + line.strip()).strip()
        if re.search(r"(&&|\|\||\||\\)$", text):
            text = text.rstrip("\\").rstrip()
            continue
        if text:
            joined.append((start, text))
        text = ""
    return [(n, t, joined[i + 1][1] if i + 1 < len(joined) else "")
            for i, (n, t) in enumerate(joined)]


def problems(path):
    in_test = False
    for number, text, following in statements(path):
        if text.startswith("@test "):
            in_test = True
            continue
        if text == "}" or text.startswith("} "):
            in_test = False if text == "}" else in_test
            continue
        if CONTROL.match(text) or ONE_LINE_HELPER.match(text) or "||" in text:
            continue
        last_of_helper = not in_test and following.startswith("}")
        if last_of_helper:
            continue
        if text.startswith("! ") or text == "!":
            yield number, "a negated command mid-test asserts nothing: use run ! or run -N"
            continue
        parts = [p.strip() for p in text.split("&&")]
        if len(parts) > 1 and TEST_CMD.match(parts[-1]):
            yield number, ("A && B asserts nothing when A fails: one condition per line, "
                           "or both inside [[ ]]")


def main(paths):
    found = 0
    for path in paths:
        for number, why in problems(path):
            print(f"{path}:{number}: {why}")
            found += 1
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
