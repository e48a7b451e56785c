#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# c_columns.sh [TREE]: every line of a C source or header tracked in the git
# tree TREE (this one by default) that runs past 100 columns, "FILE:LINE: N
# columns, over 100", and exit 1 if any; exit 2 if the files cannot be listed
# or read. The C follows the kernel style of libbpf and xdp-tools, whose lines
# stop at 100 columns, and a line that runs past them wraps in an editor or a
# review laid out for them. Columns are counted as an editor shows them: a tab
# goes on to the next multiple of 8, a UTF-8 character is one column. Others'
# programs under testing/third_party/ are not checked: they stay as their
# upstream wrote them.
set -uo pipefail

tree=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$tree" || exit 2
# In the C locale awk sees bytes: a UTF-8 continuation byte adds no column.
found=$(git ls-files -z -- '*.c' '*.h' ':!:testing/third_party/' | LC_ALL=C xargs -0 -r awk '
function width(s)
{
	gsub(/[\200-\277]/, "", s)
	return length(s)
}
{
	n = split($0, part, "\t")
	col = 0
	for (i = 1; i < n; i++) {
		col += width(part[i])
		col += 8 - col % 8
	}
	if (n)
		col += width(part[n])
	if (col > 100)
		printf "%s:%d: %d columns, over 100\n", FILENAME, FNR, col
}') || exit 2
if [ -n "$found" ]; then
	echo "$found"
	exit 1
fi
exit 0
