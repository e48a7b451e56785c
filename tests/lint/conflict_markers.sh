#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# conflict_markers.sh [TREE]: every line of a file tracked in the git tree
# TREE (this one by default) that a merge left as a conflict marker, "FILE:LINE:
# ...", and exit 1 if any. A conflict left in a document or a script builds
# and runs, and says both sides at once. The markers are git's own, seven
# characters and a space; a line of seven '=' alone is also a Markdown rule
# and so is not counted.
set -uo pipefail

tree=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
found=$(git -C "$tree" grep -nE '^(<{7}|>{7}) ' -- .)
case $? in
0)
	echo "$found" | sed 's/$/: a merge conflict left in the file/'
	exit 1
	;;
1) exit 0 ;;
*) exit 2 ;;
esac
