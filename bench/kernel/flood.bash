# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# What the whole-path benchmarks share (macro_live.sh, peers.sh, ifaces.sh):
# the raw flood into the test network's veth, and the figures taken around it
# (an agent's CPU, wake-ups and kernel memory; agent_rates.sh takes those
# too). Load it after testing/netns.bash, with fbf_net_up done (or
# FBF_NS_CLI, FBF_VETH_CLI and FBF_SERVER set), and set work (a scratch
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

# thread_stat PID: "CPU_NS TIMESLICES" summed over the process's threads, from
# schedstat: the CPU time and the number of times a thread was put on a CPU
# (every wake-up is one).
thread_stat()
{
	# %.0f: awk's %d is a C int in mawk, and a busy agent's ns pass 2^31 in 2 s.
	cat /proc/"$1"/task/*/schedstat | awk '{ ns += $1; n += $3 } END { printf "%.0f %.0f\n", ns, n }'
}

# bpf_kb PID: "PROGS PROG_KB MAPS MAP_KB": the BPF programs and maps PID holds
# an fd to (/proc/PID/fdinfo's prog_id and map_id; Debian's bpftool shows no
# pids) and the maps those programs use, with their kernel memory (bpftool's
# bytes_memlock, in kB). One listing each, however many there are.
bpf_kb()
{
	local fdinfo

	fdinfo=$(grep -hE '^(prog|map)_id:' /proc/"$1"/fdinfo/* 2>/dev/null || true)
	python3 -c 'import json, subprocess, sys
def show(kind):
    out = subprocess.run(["bpftool", "-j", kind, "show"], check=True, capture_output=True)
    return json.loads(out.stdout or b"[]")
held = [l.split() for l in sys.argv[1].splitlines()]
progs = {p["id"]: p for p in show("prog") if ["prog_id:", str(p["id"])] in held}
map_ids = {int(i) for k, i in held if k == "map_id:"}
map_ids |= {i for p in progs.values() for i in p.get("map_ids", [])}
maps = [m for m in show("map") if m["id"] in map_ids]
kb = lambda objs: sum(o.get("bytes_memlock", 0) for o in objs) / 1024
print(len(progs), "%.1f" % kb(progs.values()), len(maps), "%.1f" % kb(maps))' "$fdinfo"
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

# agent_mode ERR: the mode (native or skb) the agent's start line in ERR says it attached in.
agent_mode() { grep -Eom1 '\((native|skb) mode' "$1" | grep -Eo 'native|skb'; }

# percentile P FILE: the P-th percentile of the numbers in FILE, one per line
# (whole numbers: ns or us).
percentile()
{
	sort -n "$2" | awk -v p="$1" '{ v[NR] = $1 } END {
		if (NR) { i = int(NR * p / 100 + 0.999); printf "%.0f", v[i < 1 ? 1 : i] } }'
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

# fbf_lab_up PID_VAR [QUEUES]: the test network in the caller's work
# directory ($work), QUEUES queues per veth (default 1); at exit the process
# whose pid the variable PID_VAR holds, if any, is stopped, then the network
# and $work go.
fbf_lab_up()
{
	fbf_lab_pid_var=$1
	fbf_cleanup_on_exit fbf_lab_down
	FBF_VETH_QUEUES=${2:-1} fbf_net_up "$work"
}

fbf_lab_down()
{
	local pid=${!fbf_lab_pid_var:-}

	# Under set -e, a wait that reports the signal (143) would end the trap
	# here and leave the namespaces and the HTTP server behind.
	if [ -n "$pid" ] && kill "$pid" 2>/dev/null; then
		wait "$pid" 2>/dev/null || true
	fi
	fbf_net_down
	rm -rf "$work"
}
