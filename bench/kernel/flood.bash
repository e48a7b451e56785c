# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# What the whole-path benchmarks share (macro_live.sh, peers.sh): the raw
# flood into the test network's veth, and the figures taken around it. Load
# it after testing/netns.bash, with fbf_net_up done, and set work (a scratch
# directory) and flood_seconds.

rawflood=$FBF_BUILD/rawflood
# Raw frames' (spoofed) sources: 4096 addresses of every class.
flood_first=10.213.16.1
flood_count=4096

# flood CPUS...: one rawflood pinned to each CPU, all at once; prints frames sent.
flood()
{
	local cpu pids=() total=0 n

	for cpu in "$@"; do
		taskset -c "$cpu" nsenter --net="/run/netns/$FBF_NS_CLI" "$rawflood" \
			"$FBF_VETH_CLI" "$flood_seconds" "$flood_first" "$flood_count" \
			"$FBF_SERVER" >"$work/flood-$cpu.out" 2>"$work/flood-$cpu.err" &
		pids+=($!)
	done
	for cpu in "${!pids[@]}"; do
		wait "${pids[cpu]}" || { cat "$work"/flood-*.err >&2; return 1; }
	done
	for cpu in "$@"; do
		read -r n <"$work/flood-$cpu.out"
		total=$((total + n))
	done
	echo "$total"
}

# cpu_ns PID...: the CPU time all the threads of the PIDs have had so far, in
# ns, from schedstat: /proc/PID/stat's utime and stime step by a clock tick
# (10 ms), half a percent of a 2 s flood, too coarse to tell 1% of a core from none.
cpu_ns()
{
	local pid

	for pid in "$@"; do
		cat /proc/"$pid"/task/*/schedstat 2>/dev/null
	done | awk '{ t += $1 } END { printf "%d", t }'
}

# map_kb PID ERR: the kernel memory of the agent's maps (bpftool's
# bytes_memlock, in kB): those its program uses (the program's map_ids) and
# those the agent holds an fd to (/proc/PID/fdinfo), which include
# --aggregate's two per-source hashes: the program reaches them only through
# an array of maps, and they are most of that mode's memory.
map_kb()
{
	local id

	{
		bpftool -j prog show id "$(fbf_agent_prog_id "$2")" | python3 -c \
			'import json, sys; print(*json.load(sys.stdin).get("map_ids", []), sep="\n")'
		grep -h '^map_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{ print $2 }'
	} | sort -un | while read -r id; do
		bpftool -j map show id "$id" && echo
	done | python3 -c 'import json, sys
print("%.1f" % (sum(json.loads(l).get("bytes_memlock", 0) for l in sys.stdin if l.strip()) / 1024))'
}

# aggregate_reported OUT: what a user of --aggregate reads in the agent's
# output OUT: the per-class totals and no_room of every interval printed, summed.
aggregate_reported()
{
	awk '$1 == "interval" { for (i = 2; i <= NF; i++) {
		split($i, kv, "=")
		if (kv[1] ~ /^(fizz|buzz|fizzbuzz|fibonacci|no_room)$/) t += kv[2] } }
		END { printf "%d", t }' "$1"
}
