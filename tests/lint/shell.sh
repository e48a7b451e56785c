#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tests/lint/shell.sh [FILE...]: ShellCheck over every shell and bats file of
# the project (or the FILEs), then the bats assertions it misses
# (tests/lint/bats_asserts.py). Any finding fails: what is not excluded below,
# with its reason, is an error, SC2251, SC2314 and SC2315 (an assertion that
# cannot fail) among them, and a `shellcheck disable=` of those three is one too.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)

# Excluded everywhere, each for a reason that holds for the whole tree.
excluded=(
	# bats runs each test in a subshell on purpose: what it sets is its own.
	SC2030 SC2031
	# A suite sets what the helpers it loads read, and the other way round;
	# ShellCheck does not follow bats' load.
	SC2034 SC2153 SC2154
	# awk, sed, sh -c and unit lines in single quotes are not to expand here.
	SC2016
	# `A && B || fail` as a guard: C is meant to run when A or B fails.
	SC2015
	# `a= b=`: empty variables, declared in one line.
	SC1007
	# ls over names the project or Debian gives (no newline, no glob).
	SC2012
	# cd in tests and their helpers: errexit stops at one that fails.
	SC2164
	# Style only: sed where it reads better, functions whose arguments are
	# optional, [ -z "$(grep ...)" ] where the lines matter, not the first.
	SC2001 SC2119 SC2143
)
must_fail='SC2251|SC2314|SC2315'

command -v shellcheck >/dev/null || {
	echo "lint: shellcheck is not installed: apt install shellcheck" >&2
	exit 2
}
if [ $# -eq 0 ]; then
	cd "$root"
	git rev-parse --is-inside-work-tree >/dev/null 2>&1 || {
		echo "lint: $root is not a git checkout: name the files to check" >&2
		exit 2
	}
	files=()
	while IFS= read -r f; do
		case $f in
		*.sh | *.bash | *.bats) files+=("$f") ;;
		*) head -n 1 "$f" | grep -Eq '^#!.*\b(ba)?sh\b' && files+=("$f") ;;
		esac
	done < <(git ls-files)
	set -- "${files[@]}"
fi

status=0
shellcheck --external-sources --source-path=SCRIPTDIR --format=gcc \
	--exclude="$(IFS=,; echo "${excluded[*]}")" "$@" || status=1
if grep -HnE "^[[:space:]]*#[[:space:]]*shellcheck[[:space:]]+disable=.*($must_fail)" "$@"; then
	echo "lint: $must_fail mark an assertion that cannot fail: fix it, do not disable it" >&2
	status=1
fi
mapfile -t bats < <(printf '%s\n' "$@" | grep '\.bats$' || true)
[ ${#bats[@]} -eq 0 ] || "$root/tests/lint/bats_asserts.py" "${bats[@]}" || status=1
exit $status
