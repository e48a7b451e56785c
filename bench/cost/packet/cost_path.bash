# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# A path (TC=, FBF_COST_TC): an XDP program and, after it on the same veth's ingress, a TC
# program, as the kernel runs them on a frame that XDP passes. cost.sh checks the pair
# before anything runs (path_check); the live part (cost_live.sh) floods them attached
# together, as arms path-MODE, one for each XDP mode, and reads each program's own
# bpf_stats over the flood. Each program is loaded by its own cost_run: where both come
# from one object, each has its own copy of its maps, so a map that XDP writes for TC to
# read is not shared. Per arm and round, rows "BENCHMARK<TAB>MEASURE<TAB>VALUE":
#
#   cost/path/MODE/xdp/PROG   latency (ns per frame it ran on), runs, share-percent
#   cost/path/MODE/tc/PROG    latency, runs, share-percent
#   cost/path/MODE/total      throughput (frames/s the flood reached), sent, latency (both
#                             programs' ns over the frames XDP ran on), tc-unseen-percent
#
# share-percent: the program's part of both programs' time; tc-unseen-percent: the frames
# XDP ran on that TC did not (XDP dropped, redirected or sent them back).

# The statuses of bench/cost/cost_exits.h's path block.
path_exit_no_tc=56 path_exit_not_tc=57 path_exit_no_xdp=58 path_exit_no_live=59

# path_check OBJ PROG TYPE LIVE_ROUNDS: TC= checked against OBJ's program, of type TYPE,
# before anything runs; sets path_tc, "OBJECT:PROG" of the TC program, the object OBJ where
# TC= names a program alone. Or one line, and the run ends with the path's status.
path_check()
{
	local obj=$1 prog=$2 type=$3 tc_obj tc_prog tc_type mode status=0

	path_tc=
	[ -n "${FBF_COST_TC:-}" ] || return 0
	if [ "$4" -eq 0 ]; then
		echo "cost: TC= is measured in the live part, which FBF_COST_LIVE_ROUNDS=0 leaves" \
		     "out: give it 1 or more rounds" >&2
		exit $path_exit_no_live
	fi
	if [ "$type" != xdp ]; then
		echo "cost: TC= runs after an XDP program, and $obj's ${prog:-program} is a" \
		     "${type^^} program: name the XDP program as the one measured" >&2
		exit $path_exit_no_xdp
	fi
	tc_obj=$obj tc_prog=$FBF_COST_TC
	if [[ $FBF_COST_TC == *:* ]]; then
		tc_obj=${FBF_COST_TC%:*} tc_prog=${FBF_COST_TC##*:}
		need_file TC "$tc_obj"
	fi
	[ -n "$tc_prog" ] || usage "TC=$FBF_COST_TC names no program: TC=[OBJECT:]PROG"
	tc_type=$("$build/bench/cost_run" type -p "$tc_prog" "$tc_obj" 2>"$work/path.err") ||
		status=$?
	case $status in
	0) ;;
	4 | 6)	# no program of a type measured, or none of that name
		echo "cost: TC=$FBF_COST_TC: $tc_obj has no program $tc_prog" >&2
		exit $path_exit_no_tc ;;
	*)	cat "$work/path.err" >&2
		exit "$status" ;;
	esac
	read -r tc_type _ mode _ <<<"$tc_type"
	if [ "$tc_type" != tc ]; then
		echo "cost: TC=$FBF_COST_TC: $tc_prog is ${tc_type^^}, not a TC program" >&2
		exit $path_exit_not_tc
	fi
	if [ "$mode" != ingress ]; then
		echo "cost: TC=$FBF_COST_TC: $tc_prog attaches on TC $mode, and a path runs TC" \
		     "ingress after XDP" >&2
		exit $path_exit_not_tc
	fi
	path_tc=$tc_obj:$tc_prog
}

# path_attach ARM: the path's TC program on the server veth's ingress, beside the XDP
# program attach() put there, through a cost_run of its own (path_pid).
path_attach()
{
	local tc_obj=${FBF_COST_PATH_TC%:*} args=(-p "${FBF_COST_PATH_TC##*:}")

	# MAPS and SET name the XDP object's maps and globals: the TC program's too where
	# both are of one object. CHAIN's slots are XDP's: a tail call stays in its type.
	if [ "$tc_obj" = "$obj" ]; then
		[ -z "$maps" ] || args+=(-m "$maps")
		[ -z "${FBF_COST_SET:-}" ] || args+=(-s "$FBF_COST_SET")
	fi
	FBF_NS_SRV=$FBF_NS_SRV fbf_srv_start "$work/path.out" "$work/path.err" \
		"$FBF_BUILD/bench/cost_run" attach "${args[@]}" "$FBF_VETH_SRV" ingress "$tc_obj" ||
		{ echo "cost: $1: $(grep '^cost:' "$work/path.err" | tail -n 1)" >&2; exit 10; }
	path_pid=$FBF_AGENT_PID
}

path_detach()
{
	[ -n "${path_pid:-}" ] || return 0
	kill -INT "$path_pid"
	wait "$path_pid"
	path_pid=
}

# path_down: the TC program's cost_run ended on any way out, as fbf_lab_down ends attach()'s.
path_down()
{
	[ -n "${path_pid:-}" ] && kill "$path_pid" 2>/dev/null || return 0
	wait "$path_pid" 2>/dev/null || true
}

# path_flood FLOODER OUT: the flood, under both programs' run-time statistics at once
# (bpf_run_stats, the TC program's within the XDP program's), into OUT: the frames sent,
# then TC's "run_cnt=N run_time_ns=N", then XDP's.
path_flood()
{
	"$FBF_BUILD/bench/bpf_run_stats" "$(fbf_agent_prog_id "$work/attach.err")" -- \
		"$FBF_BUILD/bench/bpf_run_stats" "$(fbf_agent_prog_id "$work/path.err")" -- \
		bash -c "$1 0" >"$2"
}

# path_rows MODE SENT OUT: the arm's rows, from path_flood's OUT.
path_rows()
{
	local xdp tc

	# "cost: attached NAME (prog id N) ...": the programs' names, for the benchmarks'.
	xdp=$(sed -n 's/^cost: attached \([^ ]*\) (prog id.*/\1/p' "$work/attach.err")
	tc=$(sed -n 's/^cost: attached \([^ ]*\) (prog id.*/\1/p' "$work/path.err")
	grep -o 'run_[a-z_]*=[0-9]*' "$3" | cut -d= -f2 | paste -sd' ' |
		awk -v n="cost/path/$1" -v xdp="$xdp" -v tc="$tc" -v sent="$2" \
			-v s="$flood_seconds" '{
		tc_cnt = $1; tc_ns = $2; xdp_cnt = $3; xdp_ns = $4
		printf "%s/total\tthroughput\t%.0f\n", n, sent / s
		printf "%s/total\tsent\t%d\n", n, sent
		if (xdp_cnt <= 0 || xdp_ns + tc_ns <= 0)
			exit
		printf "%s/total\tlatency\t%.2f\n", n, (xdp_ns + tc_ns) / xdp_cnt
		printf "%s/total\ttc-unseen-percent\t%.3f\n", n,
			tc_cnt < xdp_cnt ? 100 * (xdp_cnt - tc_cnt) / xdp_cnt : 0
		printf "%s/xdp/%s\tlatency\t%.2f\n", n, xdp, xdp_ns / xdp_cnt
		printf "%s/xdp/%s\truns\t%d\n", n, xdp, xdp_cnt
		printf "%s/xdp/%s\tshare-percent\t%.3f\n", n, xdp, 100 * xdp_ns / (xdp_ns + tc_ns)
		if (tc_cnt > 0)
			printf "%s/tc/%s\tlatency\t%.2f\n", n, tc, tc_ns / tc_cnt
		printf "%s/tc/%s\truns\t%d\n", n, tc, tc_cnt
		printf "%s/tc/%s\tshare-percent\t%.3f\n", n, tc, 100 * tc_ns / (xdp_ns + tc_ns)
	}'
}
