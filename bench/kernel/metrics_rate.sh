#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make bench-macro's cost of --metrics: the agent's drain rate and idle cost
# with a scraper fetching /metrics ten times a second, against the agent
# without --metrics, side by side in one run (bench/kernel/agent_rates.sh), and an
# A/A copy of the plain agent for the run's own noise. Samples on stdout;
# the comparison table on stderr.
#
#   metrics_rate.sh [ROUNDS [EVENTS]]
set -euo pipefail

rounds=${1:-5}
events=${2:-200000}
build=${FBF_BUILD:?FBF_BUILD is set by make}
here=$(dirname "$0")
samples=$(mktemp /tmp/fbf-metrics-rate.XXXXXX)
trap 'rm -f "$samples"' EXIT

# Arms named as the gate names them, so that gate.py compare reads them.
FBF_SCRAPE_URL=http://127.0.0.1:19435/metrics "$here/agent_rates.sh" "$rounds" "$events" \
	"base=$build/agent" "base-again=$build/agent" \
	"candidate=$build/agent,--metrics,127.0.0.1:19435" >"$samples"
echo "== drain and idle: scraped 10 times a second (candidate) against no --metrics (base) ==" >&2
"$here/../gate/gate.py" compare "$samples" >&2
sed -e 's/^base\t/no-metrics\t/' -e 's/^base-again\t/no-metrics-again\t/' \
	-e 's/^candidate\t/scraped\t/' "$samples" | awk -F'\t' -v OFS='\t' '{ print $2 "/" $1, $3, $4 }'
