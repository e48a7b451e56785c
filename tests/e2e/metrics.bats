#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# --metrics: the agent's Prometheus endpoint, scraped by a real Prometheus
# and linted by promtool, and what bad input does to it: a bad address, a port
# in use, another path, slow and half-open clients, a thousand connections.

load ../../testing/netns

bats_require_minimum_version 1.5.0

# Ports on the server namespace's own loopback: nothing else listens there.
METRICS=127.0.0.1:19435
PROM=127.0.0.1:19090

setup_file() { fbf_bats_setup_file metrics; }
teardown_file() { fbf_bats_teardown_file; }
setup() { fbf_bats_setup; MOUNTED=; }
teardown()
{
	if [ -n "${PROM_PID:-}" ]; then
		kill "$PROM_PID" 2>/dev/null
		wait "$PROM_PID" 2>/dev/null
	fi
	fbf_bats_teardown
	# After the agent is gone: its output holds the file open.
	[ -z "$MOUNTED" ] || umount "$MOUNTED"
}

scrape() { fbf_in_srv curl -sS --max-time 10 "$@"; }
listening() { fbf_in_srv ss -Hltn "sport = :$1" | grep -q .; }

# metric_value NAME_AND_LABELS: its value in one scrape of the agent.
metric_value()
{
	scrape "http://$METRICS/metrics" | awk -v m="$1" '$1 == m { print $2 }'
}

@test "a real Prometheus scrapes the agent and counts every class as the summary does" {
	local class key
	local -A prom

	command -v prometheus >/dev/null ||
		skip "prometheus is not installed (Debian package prometheus; make deps)"
	fbf_agent_start "$OUT" "$ERR" --metrics "$METRICS"
	prom_start
	fbf_traffic 3

	# Quiet again: wait until Prometheus has scraped what the agent counts now,
	# and read it before the agent stops (then its series go stale).
	fbf_wait_for 60 prom_matches_agent
	for class in fizz buzz fizzbuzz fibonacci none; do
		prom[$class]=$(prom_value "fizzbuzzfib_classified_total{class=\"$class\"}")
	done
	prom[delivered]=$(prom_value 'fizzbuzzfib_events_total{result="delivered"}')
	fbf_stop_agent INT
	fbf_check_summary "$ERR" "$(wc -l <"$OUT")"
	for key in fizz buzz fizzbuzz fibonacci none delivered; do
		echo "$key: Prometheus ${prom[$key]}, summary $(fbf_summary_value "$ERR" "$key")"
		[ "${prom[$key]}" = "$(fbf_summary_value "$ERR" "$key")" ]
	done
}

# prom_start [RULES]: Prometheus in the server's namespace, scraping the agent
# every second as job fizzbuzzfib, with the alert rules file RULES if given.
prom_start()
{
	local dir=$FBF_WORK/prom.$BATS_TEST_NUMBER

	mkdir -p "$dir/data"
	cat >"$dir/prometheus.yml" <<-EOF
	global:
	  scrape_interval: 1s
	  evaluation_interval: 1s
	rule_files: [${1:-}]
	scrape_configs:
	  - job_name: fizzbuzzfib
	    static_configs:
	      - targets: ['$METRICS']
	EOF
	nsenter --net="/run/netns/$FBF_NS_SRV" prometheus --config.file="$dir/prometheus.yml" \
		--storage.tsdb.path="$dir/data" --web.listen-address="$PROM" \
		>"$dir/prometheus.log" 2>&1 3>&- &
	PROM_PID=$!
}

# prom_value QUERY: the one value Prometheus returns for an instant query.
prom_value()
{
	fbf_in_srv python3 - "$PROM" "$1" <<-'EOF'
	import json, sys, urllib.parse, urllib.request
	url = f"http://{sys.argv[1]}/api/v1/query?" + urllib.parse.urlencode({"query": sys.argv[2]})
	try:
	    result = json.load(urllib.request.urlopen(url, timeout=5))["data"]["result"]
	except Exception:
	    sys.exit(1)
	if len(result) != 1:
	    sys.exit(1)
	print(result[0]["value"][1])
	EOF
}

# Prometheus' latest sample of every class and of delivered events equals the
# agent's count now.
prom_matches_agent_once()
{
	local series agent prom

	for series in 'classified_total{class="fizz"}' 'classified_total{class="buzz"}' \
		'classified_total{class="fizzbuzz"}' 'classified_total{class="fibonacci"}' \
		'classified_total{class="none"}' 'events_total{result="delivered"}'; do
		agent=$(metric_value "fizzbuzzfib_${series/\{/\{device=\"$FBF_VETH_SRV\",}")
		prom=$(prom_value "fizzbuzzfib_$series" 2>/dev/null) || return 1
		[ "$prom" = "$agent" ] && [ "$agent" -gt 0 ] || return 1
	done
}

# Twice, two scrape intervals apart: the last late TCP segment has been counted.
prom_matches_agent() { prom_matches_agent_once && sleep 2 && prom_matches_agent_once; }

@test "--sample 16: agent_info says so; events not sampled, a counter of their own, add up" {
	local scraped=$FBF_WORK/metrics dev="device=\"$FBF_VETH_SRV\"" key classes=0 events=0
	local not_sampled

	fbf_agent_start "$OUT" "$ERR" --quiet --sample 16 --metrics "$METRICS"
	fbf_traffic 10
	scrape "http://$METRICS/metrics" >"$scraped"
	fbf_stop_agent INT
	key="transport=\"$FBF_TRANSPORT\",mode=\"(native|skb)\",sample=\"16\""
	grep -Eqx "fizzbuzzfib_agent_info\\{$dev,$key\\} 1" "$scraped"
	value() { awk -v m="$1" '$1 == m { print $2 }' "$scraped"; }
	for key in fizz buzz fizzbuzz fibonacci; do
		classes=$((classes + $(value "fizzbuzzfib_classified_total{$dev,class=\"$key\"}")))
	done
	for key in delivered lost_full lost_busy; do
		events=$((events + $(value "fizzbuzzfib_events_total{$dev,result=\"$key\"}")))
	done
	not_sampled=$(value "fizzbuzzfib_events_not_sampled_total{$dev}")
	echo "classes $classes not_sampled $not_sampled events $events"
	# One scrape's figures: the classes = not sampled + what became of the rest + queued.
	[ "$classes" -eq $((not_sampled + events + $(value "fizzbuzzfib_events_queued{$dev}"))) ]
	[ "$not_sampled" -gt $((classes / 2)) ]
	# The summary, after the scrape, has counted at least as many.
	[ "$(fbf_summary_value "$ERR" not_sampled)" -ge "$not_sampled" ]
}

@test "--aggregate: the intervals and the counts by source add up to the classes; promtool passes" {
	local scraped=$FBF_WORK/metrics dev="device=\"$FBF_VETH_SRV\"" key classes=0 intervals
	local read_ no_room pending

	fbf_agent_start "$OUT" "$ERR" --aggregate 0.2 --max-sources 4 --metrics "$METRICS"
	fbf_traffic 5
	# Two intervals after the traffic: its last packets are read (or no_room) by then.
	intervals_from() {
		[ "$(metric_value "fizzbuzzfib_aggregate_intervals_total{$dev}")" -ge "$1" ]
	}
	intervals=$(metric_value "fizzbuzzfib_aggregate_intervals_total{$dev}")
	fbf_wait_for 50 intervals_from $((intervals + 2))
	scrape "http://$METRICS/metrics" >"$scraped"
	fbf_stop_agent INT
	value() { awk -v m="$1" '$1 == m { print $2 }' "$scraped"; }
	for key in fizz buzz fizzbuzz fibonacci; do
		classes=$((classes + $(value "fizzbuzzfib_classified_total{$dev,class=\"$key\"}")))
	done
	read_=$(value "fizzbuzzfib_aggregated_total{$dev,result=\"read\"}")
	no_room=$(value "fizzbuzzfib_aggregated_total{$dev,result=\"no_room\"}")
	pending=$(value "fizzbuzzfib_aggregated_pending{$dev}")
	echo "classes $classes read $read_ no_room $no_room pending $pending"
	[ "$classes" -gt 0 ]
	[ "$classes" -eq $((read_ + no_room + pending)) ]
	# More sources than 4 sent: the map was full, and said so.
	[ "$no_room" -gt 0 ]
	[ "$(value "fizzbuzzfib_aggregate_interval_seconds{$dev}")" = 0.2 ]
	[ "$(value "fizzbuzzfib_aggregate_last_sources{$dev}")" -le 4 ]
	# No series per source address: one per class at most.
	run -1 grep -q 'saddr\|10\.213\.' "$scraped"
	[ "$(fbf_summary_value "$ERR" aggregated_read)" -ge "$read_" ]
	if command -v promtool >/dev/null; then
		promtool check metrics <"$scraped"
	fi
}

@test "promtool finds nothing to lint in the exposition; / links it, other paths are 404" {
	local m info

	command -v promtool >/dev/null || skip "promtool is not installed (package prometheus)"
	fbf_agent_start "$OUT" "$ERR" --metrics "$METRICS"
	fbf_traffic 1
	run bash -c "nsenter --net=/run/netns/$FBF_NS_SRV curl -sS http://$METRICS/metrics |
		promtool check metrics"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# A landing page, as exporters have; 404 elsewhere; 405 says what is allowed.
	[ "$(scrape -o /dev/null -w '%{http_code}' "http://$METRICS/")" = 200 ]
	scrape "http://$METRICS/" | grep -q '<a href="/metrics">'
	[ "$(scrape -o /dev/null -w '%{http_code}' "http://$METRICS/nothing")" = 404 ]
	run scrape -i -X POST "http://$METRICS/metrics"
	[[ "$output" == "HTTP/1.1 405 "* ]]
	grep -qix 'allow: GET, HEAD' <<<"${output//$'\r'/}"
	# The process and what it watches, as operators expect of an exporter.
	for m in process_cpu_seconds_total process_resident_memory_bytes process_open_fds \
		process_max_fds process_start_time_seconds; do
		[ "$(metric_value "$m")" != "" ]
	done
	info="fizzbuzzfib_agent_info\\{device=\"$FBF_VETH_SRV\",transport=\"$FBF_TRANSPORT\","
	info+="mode=\"(native|skb)\",sample=\"1\""
	scrape "http://$METRICS/metrics" | grep -Eqx "${info}\\} 1"
	# Counters never go down while it runs.
	before=$(metric_value "fizzbuzzfib_packets_total{device=\"$FBF_VETH_SRV\"}")
	fbf_traffic 1
	[ "$(metric_value "fizzbuzzfib_packets_total{device=\"$FBF_VETH_SRV\"}")" -gt "$before" ]
	fbf_stop_agent INT
}

# probe PATH: "CODE LINE", the status and the one line /healthz or /readyz answers.
probe()
{
	local body code

	body=$(scrape -w '\n%{http_code}' "http://$METRICS$1") || return 1
	code=${body##*$'\n'}
	echo "$code ${body%$'\n'*}"
}

# probe_is PATH CODE: PATH answers CODE now.
probe_is() { [[ "$(probe "$1")" == "$2 "* ]]; }

# Stop the agent's drain thread alone (the main thread; the metrics thread
# goes on) for $2 seconds: PTRACE_SEIZE + PTRACE_INTERRUPT stop one thread,
# where SIGSTOP would stop them all.
stop_main_thread()
{
	python3 - "$1" "$2" <<-'EOF'
	import ctypes, os, sys, time
	libc = ctypes.CDLL(None, use_errno=True)
	libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
	tid, secs = int(sys.argv[1]), float(sys.argv[2])
	if libc.ptrace(0x4206, tid, None, None) or libc.ptrace(0x4207, tid, None, None):
	    sys.exit("ptrace: " + os.strerror(ctypes.get_errno()))
	os.waitpid(tid, 0x40000000)
	time.sleep(secs)
	libc.ptrace(17, tid, None, None)
	EOF
}

@test "/healthz: 200 while the loop goes round; 503 saying since when once it stops; 200 again" {
	local tracer stalled

	fbf_agent_start "$OUT" "$ERR" --metrics "$METRICS"
	probe /healthz
	[[ "$(probe /healthz)" =~ ^200\ ok:\ the\ drain\ loop\ went\ round\ [0-9.]+\ s\ ago$ ]]
	[[ "$(probe /readyz)" == "200 ready: every interface selected has the program"* ]]
	# Quiet, the loop still comes round: the gauge follows the clock.
	[ "$(metric_value "fizzbuzzfib_ifaces_unattached{device=\"$FBF_VETH_SRV\"}")" = 0 ]
	sleep 2
	awk -v now="$(date +%s.%N)" '$1 ~ /^fizzbuzzfib_loop_last_round_timestamp_seconds/ {
		exit !(now - $2 < 5) }' <(scrape "http://$METRICS/metrics")
	stop_main_thread "$FBF_AGENT_PID" 14 &
	tracer=$!
	fbf_wait_for 30 probe_is /healthz 503
	probe /healthz
	stalled='^503 stalled: the drain loop last went round [0-9.]+ s ago \(more than 10 s\)$'
	[[ "$(probe /healthz)" =~ $stalled ]]
	wait "$tracer"
	fbf_wait_for 10 probe_is /healthz 200
	fbf_traffic 1
	fbf_stop_agent INT
	fbf_check_summary "$ERR" "$(wc -l <"$OUT")"
}

@test "/readyz: an output that cannot write is 503 naming it, sink_up 0; 200 once it writes again" {
	local full=$FBF_WORK/full.$BATS_TEST_NUMBER

	mkdir -p "$full"
	mount -t tmpfs -o size=16k tmpfs "$full"
	MOUNTED=$full
	fbf_agent_start "$OUT" "$ERR" --metrics "$METRICS" --output "file:$full/events"
	probe_is /readyz 200
	[ "$(metric_value "fizzbuzzfib_sink_up{device=\"$FBF_VETH_SRV\",sink=\"file\"}")" = 1 ]
	fbf_traffic 5
	fbf_wait_for 10 probe_is /readyz 503
	probe /readyz
	[ "$(probe /readyz)" = "503 not ready: output file ($full/events) cannot write: No space $(
		)left on device" ]
	[ "$(metric_value "fizzbuzzfib_sink_up{device=\"$FBF_VETH_SRV\",sink=\"file\"}")" = 0 ]
	# Room again: the next write succeeds.
	: >"$full/events"
	fbf_traffic 1
	fbf_wait_for 10 probe_is /readyz 200
	[ "$(metric_value "fizzbuzzfib_sink_up{device=\"$FBF_VETH_SRV\",sink=\"file\"}")" = 1 ]
	fbf_stop_agent INT
}

@test "/readyz: a selected interface refused the program is 503 naming it; 200 once it goes" {
	local br=fbfb$$

	fbf_in_srv ip link add "$br" type bridge
	fbf_in_srv ip link set "$br" up
	# A bridge has no native XDP: refused, and the agent serves the veth.
	FBF_START_SAYS="serving every interface" fbf_srv_start "$OUT" "$ERR" "$AGENT" \
		--iface "$FBF_VETH_SRV,$br" --mode native --metrics "$METRICS"
	grep -q "the driver of $br (bridge) has no native XDP" "$ERR"
	probe /readyz
	[ "$(probe /readyz)" = "503 not ready: 1 interface selected could not have $(
		)xdp_fizzbuzzfib ($br first; the log says why)" ]
	probe_is /healthz 200
	[ "$(metric_value "fizzbuzzfib_ifaces_unattached{device=\"$FBF_VETH_SRV,$br\"}")" = 1 ]
	fbf_in_srv ip link del "$br"
	fbf_wait_for 10 probe_is /readyz 200
	[ "$(metric_value "fizzbuzzfib_ifaces_unattached{device=\"$FBF_VETH_SRV,$br\"}")" = 0 ]
	fbf_stop_agent INT
}

@test "deploy/prometheus: promtool tests each alert rule, firing on its series, silent beside it" {
	command -v promtool >/dev/null || skip "promtool is not installed (package prometheus)"
	run promtool check rules deploy/prometheus/fizzbuzzfib-alerts.yml
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"SUCCESS: 6 rules found"* ]]
	run promtool test rules deploy/prometheus/fizzbuzzfib-alerts.test.yml
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *SUCCESS* ]]
}

@test "deploy/kubernetes: a namespace, an account without a token, a rollout by percentage; its comments true" {
	"$AGENT" --help >"$FBF_WORK/help"
	python3 - deploy/kubernetes/fizzbuzzfib-agent.yaml "$FBF_WORK/help" <<-'EOF'
	import re, sys, yaml
	text = open(sys.argv[1]).read()
	docs = {d["kind"]: d for d in yaml.safe_load_all(text)}
	assert set(docs) == {"Namespace", "ServiceAccount", "DaemonSet"}, set(docs)
	ns = docs["Namespace"]["metadata"]["name"]
	sa, ds = docs["ServiceAccount"], docs["DaemonSet"]
	assert sa["metadata"]["namespace"] == ns and ds["metadata"]["namespace"] == ns
	assert sa["automountServiceAccountToken"] is False
	pod = ds["spec"]["template"]["spec"]
	assert pod["serviceAccountName"] == sa["metadata"]["name"]
	assert pod["automountServiceAccountToken"] is False
	roll = ds["spec"]["updateStrategy"]["rollingUpdate"]
	assert re.fullmatch(r"[0-9]+%", str(roll["maxUnavailable"])), roll
	# The header counts the capabilities the container adds.
	added = pod["containers"][0]["securityContext"]["capabilities"]["add"]
	words = {1: "one", 2: "two", 3: "three", 4: "four"}
	assert f"dropped but the {words[len(added)]} the kernel asks" in " ".join(text.split()), added
	# The grace period's comment gives --output-timeout's default as --help does.
	said = re.search(r"--output-timeout, ([0-9]+) s by default", text).group(1)
	helped = re.search(r"--output-timeout=SECONDS.*?\(default: ([0-9]+)\)",
	                   " ".join(open(sys.argv[2]).read().split())).group(1)
	assert said == helped, (said, helped)
	EOF
}

@test "tools/daemonset-pod.py: the DaemonSet's pod as a Pod for podman kube play; a bad file one line" {
	tools/daemonset-pod.py --iface 'eth*' --lock-dir /var/lib/fbf-locks --events \
		>"$FBF_WORK/pod.yaml"
	python3 - deploy/kubernetes/fizzbuzzfib-agent.yaml "$FBF_WORK/pod.yaml" <<-'EOF'
	import sys, yaml
	ds = next(d for d in yaml.safe_load_all(open(sys.argv[1])) if d["kind"] == "DaemonSet")
	pod = yaml.safe_load(open(sys.argv[2]))
	want, got = ds["spec"]["template"]["spec"], pod["spec"]
	assert pod["kind"] == "Pod" and pod["metadata"]["name"] == ds["metadata"]["name"], pod
	assert "serviceAccountName" not in got
	c, t = got["containers"][0], want["containers"][0]
	assert "ports" not in c
	port = t["ports"][0]["containerPort"]
	for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
	    assert c[probe]["httpGet"]["port"] == port, c[probe]
	assert c["args"][0] == "--iface=eth*" and "--quiet" not in c["args"], c["args"]
	assert c["securityContext"] == t["securityContext"] and c["image"] == t["image"]
	ann = pod["metadata"]["annotations"]
	assert ann["seccomp.security.alpha.kubernetes.io/pod"] == "localhost/seccomp.json", ann
	locks = next(v for v in got["volumes"] if v["name"] == "locks")
	assert locks["hostPath"]["path"] == "/var/lib/fbf-locks", locks
	EOF
	run tools/daemonset-pod.py "$FBF_WORK/none.yaml"
	[ "$status" -eq 1 ]
	[ "$output" = "daemonset-pod.py: cannot read $FBF_WORK/none.yaml: No such file or directory" ]
}

@test "deploy/: every page of docs/ a manifest, a rule or the dashboard cites exists" {
	local cited page

	cited=$(grep -rhoE 'docs/[A-Za-z0-9_.-]+\.md' deploy/ | sort -u)
	[ -n "$cited" ]
	for page in $cited; do
		echo "$page"
		[ -f "$page" ]
	done
}

# dashboard_queries JSON: each query of the Grafana dashboard JSON run on
# Prometheus, its variables as "All" and a 30 s rate window; one line each,
# the number of series and the query; 1 if any returns no series or NaN.
dashboard_queries()
{
	fbf_in_srv python3 - "$PROM" "$1" <<-'EOF'
	import json, math, sys, urllib.parse, urllib.request
	dash = json.load(open(sys.argv[2]))
	bad = 0
	for panel in dash["panels"]:
	    for target in panel["targets"]:
	        q = target["expr"].replace("$instance", ".*").replace("$__rate_interval", "30s")
	        url = f"http://{sys.argv[1]}/api/v1/query?" + urllib.parse.urlencode({"query": q})
	        result = json.load(urllib.request.urlopen(url, timeout=5))["data"]["result"]
	        ok = result and all(math.isfinite(float(r["value"][1])) for r in result)
	        bad |= not ok
	        print(len(result), "ok" if ok else "EMPTY OR NaN", panel["title"] + ":", q)
	sys.exit(bad)
	EOF
}

# prom_api PATH: what Prometheus' API answers at /api/v1/PATH, one word a
# line: for rules, the health of each rule; for alerts, each one's name.
prom_api()
{
	fbf_in_srv python3 - "$PROM" "$1" <<-'EOF'
	import json, sys, urllib.request
	url = f"http://{sys.argv[1]}/api/v1/{sys.argv[2]}"
	data = json.load(urllib.request.urlopen(url, timeout=5))["data"]
	if sys.argv[2] == "rules":
	    print(*[r["health"] for g in data["groups"] for r in g["rules"]], sep="\n")
	else:
	    print(*[a["labels"]["alertname"] for a in data["alerts"]], sep="\n")
	EOF
}

# prom_rules_ok N: Prometheus has evaluated N rules, each without error.
prom_rules_ok() { [ "$(prom_api rules | grep -cx ok)" -eq "$1" ]; }

# dashboard_ok: every dashboard query returns finite data now.
dashboard_ok() { dashboard_queries deploy/grafana/fizzbuzzfib-dashboard.json >/dev/null; }

# dashboard_in_mode ARGS...: the agent with ARGS, scraped by a real Prometheus
# with the alert rules, traffic sent; every dashboard query then returns data,
# and no alert fires. The agent is left running.
dashboard_in_mode()
{
	fbf_srv_start "$OUT" "$ERR" "$AGENT" --metrics "$METRICS" "$@"
	prom_start "$PWD/deploy/prometheus/fizzbuzzfib-alerts.yml"
	# A sample before the traffic, so that the rates see it.
	fbf_wait_for 60 prom_value 'up{job="fizzbuzzfib"} == 1'
	fbf_traffic 3
	fbf_wait_for 60 prom_value 'sum(fizzbuzzfib_classified_total) > 0'
	# Each rate with its samples from after the traffic: until every query has data.
	fbf_wait_for 60 dashboard_ok
	run dashboard_queries deploy/grafana/fizzbuzzfib-dashboard.json
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq "$(grep -c '"expr"' deploy/grafana/fizzbuzzfib-dashboard.json)" ]
	# The rules load in the real thing; a healthy agent sets none off.
	fbf_wait_for 10 prom_rules_ok 6
	run prom_api alerts
	echo "alerts: $output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "deploy/grafana: every dashboard query returns data from a real Prometheus scraping the agent over a pattern" {
	command -v prometheus >/dev/null ||
		skip "prometheus is not installed (Debian package prometheus; make deps)"
	# A pattern, so that the per-interface families are there too.
	FBF_START_SAYS="serving every interface" dashboard_in_mode --iface "$FBF_VETH_SRV*"
	fbf_stop_agent INT
	fbf_check_summary "$ERR" "$(wc -l <"$OUT")"
}

@test "deploy/grafana: the same for an agent on one interface" {
	command -v prometheus >/dev/null ||
		skip "prometheus is not installed (Debian package prometheus; make deps)"
	dashboard_in_mode --iface "$FBF_VETH_SRV"
	fbf_stop_agent INT
	fbf_check_summary "$ERR" "$(wc -l <"$OUT")"
}

@test "deploy/grafana: the same for an agent that counts by source (--aggregate)" {
	command -v prometheus >/dev/null ||
		skip "prometheus is not installed (Debian package prometheus; make deps)"
	dashboard_in_mode --iface "$FBF_VETH_SRV" --aggregate 1
	fbf_wait_for 60 prom_value 'sum(fizzbuzzfib_aggregated_total{result="read"}) > 0'
	fbf_stop_agent INT
}

# Linux allows any byte but '/', ':', whitespace and NUL in an interface name.
@test "an interface named q\"a\\b: the JSON lines, the exposition and the log stay valid" {
	local name='q"a\b' peer=fbfp$$

	command -v promtool >/dev/null || skip "promtool is not installed (package prometheus)"
	fbf_in_srv ip link add "$name" type veth peer name "$peer"
	fbf_in_srv ip link set "$peer" up
	fbf_in_srv ip link set "$name" up
	fbf_srv_start "$OUT" "$ERR" "$AGENT" --iface "$name" --json --stats-interval 1 \
		--metrics "$METRICS"
	fbf_wait_for 10 grep -q '^{"type":"stats"' "$ERR"
	run bash -c "nsenter --net=/run/netns/$FBF_NS_SRV curl -sS http://$METRICS/metrics |
		promtool check metrics"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	scrape "http://$METRICS/metrics" | grep -qF 'fizzbuzzfib_packets_total{device="q\"a\\b"}'
	kill -INT "$FBF_AGENT_PID"
	wait "$FBF_AGENT_PID"
	FBF_AGENT_PID=
	fbf_in_srv ip link del "$name"
	# Every JSON line parses, and says the name as it is.
	python3 -c 'import json, sys
objs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
objs = [o for o in objs if o["type"] != "log"]
assert objs and all(o["iface"] == sys.argv[2] for o in objs), objs' "$ERR" "$name"
	# The log line, under --json an object too, shows it escaped as a log line does.
	python3 -c 'import json, sys
logs = [json.loads(l)["message"] for l in open(sys.argv[1]) if l.startswith("{\"type\":\"log\"")]
assert any(" to q\"a\\\\b (" in m for m in logs), logs' "$ERR"
}

@test "a bad --metrics value is a usage error; a port in use exits 12; neither attaches" {
	local value holder

	for value in 127.0.0.1 :9435 127.0.0.1:0 127.0.0.1:65536 localhost:9435 "[::1]9435"; do
		run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --metrics "$value"
		echo "$value: $output"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "agent: --metrics '$value': use ADDR:PORT"* ]]
	done
	# SO_REUSEADDR: the earlier tests' scrapes leave TIME_WAIT behind on the port.
	# nsenter itself, not a function's subshell: $! must be the holder.
	nsenter --net="/run/netns/$FBF_NS_SRV" python3 -c 'import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 19435)); s.listen(); time.sleep(30)' 3>&- &
	holder=$!
	fbf_wait_for 10 listening 19435
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --metrics "$METRICS"
	kill "$holder"
	wait "$holder" || true
	echo "$output"
	[ "$status" -eq 12 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"cannot serve metrics on $METRICS: Address already in use; pick another port" ]]
	run fbf_in_srv "$AGENT" --iface "$FBF_VETH_SRV" --metrics 192.0.2.1:9435
	[ "$status" -eq 12 ]
	[[ "$output" == *"use an address of this host"* ]]
	fbf_xdp_detached
}

@test "half-open, slow and a thousand clients: scrapes are answered, the agent accounts exactly" {
	local clients opened=$FBF_WORK/opened

	fbf_agent_start "$OUT" "$ERR" --metrics "$METRICS"
	# A thousand connections that send nothing, and one that sends half a request.
	nsenter --net="/run/netns/$FBF_NS_SRV" python3 - "$METRICS" "$opened" <<-'EOF' 3>&- &
	import socket, sys, time
	host, port = sys.argv[1].split(":")
	socks = []
	for i in range(1000):
	    try:
	        s = socket.create_connection((host, int(port)), timeout=5)
	        socks.append(s)
	    except OSError:
	        pass
	socks[0].send(b"GET /metr")
	open(sys.argv[2], "w").write("%d\n" % len(socks))
	time.sleep(20)
	EOF
	clients=$!
	fbf_wait_for 60 test -s "$opened"
	echo "idle connections open: $(cat "$opened")"
	# While they are open (they time out after 5 s): a scrape has a slot at once.
	# With a slot only when one timed out, it took 5 to 8 s.
	scrape -o /dev/null --max-time 3 "http://$METRICS/metrics"
	fbf_traffic 3
	fbf_wait_for 60 scrape -o /dev/null "http://$METRICS/metrics"
	kill "$clients"
	wait "$clients" || true
	fbf_stop_agent INT
	fbf_check_summary "$ERR" "$(wc -l <"$OUT")"
	[ "$(fbf_summary_value "$ERR" delivered)" -gt 0 ]
}
