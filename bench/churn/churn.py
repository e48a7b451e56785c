#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Pods coming and going under the agent over a pattern (-i 'pz*').

Each pod is what a container runtime makes: a network namespace with a veth
pair, eth0 inside, its host end pzN in the "host" namespace where the agent
runs (a namespace of this benchmark's own). Pods are created at a steady rate,
then in a burst of hundreds at once; each lives --life seconds and sends
--frames IPv4 frames out of its eth0 at --send-at seconds of age, which the
agent's program on pzN counts. A scraper reads /metrics every 100 ms.

Printed per run: the agent's resources before and after (file descriptors,
netlink sockets, threads, BPF programs and maps it holds, bpffs pins, lock
files, interfaces served), RSS after 100 pods and after all, the longest gap
between drain rounds (fizzbuzzfib_drain_gap_max_seconds), the slowest scrape,
CPU per pod, frames missed on pods that lived >= 1 s, how long the agent took
to let every interface go after the last pod went. Exit 0, or 1 when a run
leaked or missed anything (timings are figures, never a verdict).
"""
import argparse
import concurrent.futures
import datetime
import ctypes
import http.client
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

CLONE_NEWNET = 0x40000000
# Namespaces' names, from --name: the agent's "host", and each pod's.
HOST_NS = "fbfchurn-host"
POD_PREFIX = "fbfchurn-p"
LIBC = ctypes.CDLL(None, use_errno=True)


def setns(name):
	"""Move the calling thread (only it) into network namespace @name."""
	path = name if name.startswith("/") else "/run/netns/" + name
	fd = os.open(path, os.O_RDONLY)
	try:
		if LIBC.setns(fd, CLONE_NEWNET):
			raise OSError(ctypes.get_errno(), "setns " + path)
	finally:
		os.close(fd)


def sh(*cmd):
	subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def ipv4_frame(seq):
	"""An Ethernet frame with an IPv4 UDP packet, its source address by @seq."""
	src = bytes([10, 64, (seq >> 8) & 0xff, seq & 0xff])
	ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28, seq & 0xffff, 0, 64, 17, 0, src,
			 bytes([10, 65, 0, 1]))
	csum = sum(struct.unpack("!10H", ip))
	csum = (csum & 0xffff) + (csum >> 16)
	csum = ~((csum & 0xffff) + (csum >> 16)) & 0xffff
	ip = ip[:10] + struct.pack("!H", csum) + ip[12:]
	udp = struct.pack("!HHHH", 40000, 9, 8, 0)
	return b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + b"\x08\x00" + ip + udp


# What someone else may do to a pod's interface mid-churn, and the agent's line for it.
BAD = {
	"rename": "renamed qz%d, which --iface does not select",
	"move": "moved to network namespace",
	"replace": "lost xdp_fizzbuzzfib to someone who replaced or removed it",
}


# The agent judges a program gone from a listed interface replaced after a second (ifset.c).
BAD_JUDGED_S = 2.0


class AgentLog(threading.Thread):
	"""The agent's stderr into a file; started once it serves its metrics."""

	def __init__(self, stream, path):
		super().__init__(daemon=True)
		self.stream, self.out = stream, open(path, "w")
		self.started = threading.Event()

	def run(self):
		for line in self.stream:
			self.out.write(line)
			self.out.flush()
			if "metrics at" in line:
				self.started.set()


class Pod:
	def __init__(self, n, bad=None):
		self.n = n
		self.ns = "%s%d" % (POD_PREFIX, n)
		self.iface = "pz%d" % n
		self.created = self.deleted = None
		self.sent = 0
		self.error = None
		self.bad = bad
		self.sent_at = None

	def create(self):
		sh("ip", "netns", "add", self.ns)
		sh("ip", "-n", self.ns, "link", "add", "eth0", "type", "veth", "peer", "name",
		   self.iface, "netns", HOST_NS)
		sh("ip", "-n", self.ns, "link", "set", "eth0", "up")
		sh("ip", "-n", HOST_NS, "link", "set", self.iface, "up")
		self.created = time.monotonic()
		self.created_wall = time.time()

	def wait_ready(self):
		"""Until eth0 can send: a device just up drops what it sends (noop qdisc) until the
		kernel's linkwatch sees its carrier, which it may put off for up to a second."""
		end = time.monotonic() + 10
		while time.monotonic() < end:
			o = json.loads(subprocess.run(["ip", "-n", self.ns, "-j", "link", "show", "dev",
						       "eth0"], capture_output=True, text=True).stdout)[0]
			if o.get("operstate") == "UP" and o.get("qdisc") not in (None, "noop"):
				return
			time.sleep(0.02)
		raise OSError("eth0 of %s never came up" % self.ns)

	def send(self, frames):
		orig = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
		try:
			setns(self.ns)
			s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
			s.bind(("eth0", 0))
			for i in range(frames):
				s.send(ipv4_frame(self.n * 7 + i))
				self.sent += 1
			s.close()
		finally:
			LIBC.setns(orig, CLONE_NEWNET)
			os.close(orig)

	def misuse(self, xdp_pass):
		"""Someone else's doing, on the host's side."""
		if self.bad == "rename":
			sh("ip", "-n", HOST_NS, "link", "set", self.iface, "name", "qz%d" % self.n)
		elif self.bad == "move":
			sh("ip", "-n", HOST_NS, "link", "set", self.iface, "netns", self.ns)
		else:
			# In the mode the agent took on a veth (skb): in its place, not beside it.
			sh("ip", "-n", HOST_NS, "-force", "link", "set", "dev", self.iface, "xdpgeneric",
			   "obj", xdp_pass, "sec", "xdp")

	def delete(self):
		# As a runtime does: the namespace goes, and its veth with it.
		sh("ip", "netns", "del", self.ns)
		self.deleted = time.monotonic()

	def live(self, args, scraper):
		try:
			self.create()
			# Timing's test: sent at an age; the e2e test's: once a scrape showed it served.
			if args.send_after_attach:
				if not scraper.wait_served(self.iface, 120):
					raise OSError("the agent never attached to " + self.iface)
			else:
				time.sleep(max(0, self.created + args.send_at - time.monotonic()))
			self.wait_ready()
			self.send(args.frames)
			self.sent_at = time.monotonic()
			if self.bad:
				self.misuse(args.xdp_pass)
			time.sleep(max(0, self.created + args.life - time.monotonic(),
				       self.sent_at + args.linger + (BAD_JUDGED_S if self.bad else 0) -
				       time.monotonic()))
		except (OSError, subprocess.CalledProcessError) as e:
			self.error = getattr(e, "stderr", b"") or str(e)
		finally:
			if self.created:
				try:
					self.delete()
				except subprocess.CalledProcessError as e:
					self.error = e.stderr


class Scraper(threading.Thread):
	"""GET /metrics every @interval s from inside the host namespace; the times taken."""

	def __init__(self, port, interval):
		super().__init__(daemon=True)
		self.port, self.interval = port, interval
		self.times, self.failed, self.text = [], 0, ""
		self.stop = threading.Event()
		# Every interface a scrape has shown served (iface_info), not only the log's lines,
		# which the agent says at a bounded rate.
		self.served, self.cond = set(), threading.Condition()

	def scrape(self):
		c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
		c.request("GET", "/metrics")
		r = c.getresponse()
		text = r.read().decode()
		c.close()
		return text

	def run(self):
		setns(HOST_NS)
		while not self.stop.is_set():
			t0 = time.monotonic()
			try:
				self.text = self.scrape()
				self.times.append(time.monotonic() - t0)
				with self.cond:
					self.served.update(re.findall(
						r'^fizzbuzzfib_iface_info\{device="([^"]+)"', self.text, re.M))
					self.cond.notify_all()
			except OSError:
				self.failed += 1
			self.stop.wait(max(0, self.interval - (time.monotonic() - t0)))

	def wait_served(self, iface, timeout):
		with self.cond:
			return self.cond.wait_for(lambda: iface in self.served, timeout)

	def value(self, name):
		m = re.search(r"^fizzbuzzfib_%s\{[^}]*\} (\S+)$" % name, self.text, re.M)
		return float(m.group(1)) if m else None


class Prometheus:
	"""A real Prometheus beside the agent, scraping it every @interval s."""

	def __init__(self, tmp, port, interval):
		self.port = port + 1
		os.makedirs(tmp + "/prom")
		with open(tmp + "/prometheus.yml", "w") as f:
			f.write("global:\n  scrape_interval: %dms\n  scrape_timeout: %dms\n"
				"scrape_configs:\n  - job_name: agent\n    static_configs:\n"
				"      - targets: ['127.0.0.1:%d']\n" %
				(interval * 1000, interval * 1000, port))
		self.proc = subprocess.Popen(
			["nsenter", "--net=/run/netns/" + HOST_NS, "prometheus",
			 "--config.file=" + tmp + "/prometheus.yml", "--storage.tsdb.path=" + tmp + "/prom",
			 "--web.listen-address=127.0.0.1:%d" % self.port],
			stdout=subprocess.DEVNULL, stderr=open(tmp + "/prometheus.log", "w"))

	def query(self, q):
		"""One instant query's single value, from inside the host namespace."""
		out = subprocess.run(
			["nsenter", "--net=/run/netns/" + HOST_NS, "curl", "-s", "--get",
			 "--data-urlencode", "query=" + q, "http://127.0.0.1:%d/api/v1/query" % self.port],
			capture_output=True, text=True).stdout
		try:
			return float(json.loads(out)["data"]["result"][0]["value"][1])
		except (ValueError, KeyError, IndexError):
			return None

	def figures(self, seconds):
		w = "[%ds]" % (seconds + 5)
		return {"prom_scrape_max_ms": (self.query("max_over_time(scrape_duration_seconds" + w +
							  ")") or 0) * 1e3,
			"prom_scrapes": self.query("count_over_time(up" + w + ")"),
			"prom_scrapes_up": self.query("sum_over_time(up" + w + ")")}

	def stop(self):
		self.proc.terminate()
		self.proc.wait(30)


def bpf_held(pid):
	"""BPF programs and maps @pid holds a descriptor of, by id (its fdinfo)."""
	held = {"prog": set(), "map": set()}
	for fd in os.listdir("/proc/%d/fd" % pid):
		try:
			link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
			kind = {"anon_inode:bpf-prog": "prog", "anon_inode:bpf-map": "map"}.get(link)
			if kind:
				info = open("/proc/%d/fdinfo/%s" % (pid, fd)).read()
				held[kind].add(re.search(r"^%s_id:\s+(\d+)" % kind, info, re.M).group(1))
		except (OSError, AttributeError):
			continue
	return {k: len(v) for k, v in held.items()}


def xdp_attached():
	"""XDP programs attached in the host namespace, as bpftool lists them."""
	out = subprocess.run(["nsenter", "--net=/run/netns/" + HOST_NS, "bpftool", "-j", "net",
			      "show"], capture_output=True, text=True).stdout or "[]"
	return sum(len(o.get("xdp", [])) for o in json.loads(out))


def count_files(top):
	return sum(len(files) for _, _, files in os.walk(top)) if os.path.isdir(top) else 0


def resources(pid, lock_dir, scraper):
	# The fewest of a few looks: a scrape's connection comes and goes meanwhile.
	fds = min((os.listdir("/proc/%d/fd" % pid) for _ in range(5) if not time.sleep(0.05)),
		  key=len)
	inodes = set()
	for fd in fds:
		try:
			m = re.match(r"socket:\[(\d+)\]", os.readlink("/proc/%d/fd/%s" % (pid, fd)))
		except OSError:
			continue
		if m:
			inodes.add(m.group(1))
	with open("/proc/%d/net/netlink" % pid) as f:
		netlink = sum(1 for line in f.readlines()[1:] if line.split()[-1] in inodes)
	status = open("/proc/%d/status" % pid).read()
	held = bpf_held(pid)
	return {
		"fds": len(fds),
		"netlink": netlink,
		"threads": int(re.search(r"^Threads:\s+(\d+)", status, re.M).group(1)),
		"bpf_progs": held["prog"],
		"bpf_maps": held["map"],
		"xdp_attached": xdp_attached(),
		"bpffs_pins": count_files("/sys/fs/bpf"),
		"lock_files": count_files(lock_dir),
		"ifaces": scraper.value("ifaces"),
	}


def rss_kb(pid):
	return int(re.search(r"^VmRSS:\s+(\d+)", open("/proc/%d/status" % pid).read(),
			     re.M).group(1))


def cpu_s(pid):
	f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
	return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def wait_for(cond, timeout):
	end = time.monotonic() + timeout
	while time.monotonic() < end:
		if cond():
			return True
		time.sleep(0.05)
	return False


CLASSES = ("none", "fizz", "buzz", "fizzbuzz", "fibonacci")


def gone_accounts(err_path):
	"""Per interface name: the IPv4 frames its iface_gone accounts say (a pod's eth0 sends
	IPv6 of its own too)."""
	counted = {}
	for line in open(err_path, errors="replace"):
		if line.startswith('{"type":"iface_gone"'):
			o = json.loads(line)
			counted[o["iface"]] = counted.get(o["iface"], 0) + sum(o[c] for c in CLASSES)
	return counted


def attach_times(err_path):
	"""Per interface name: when the agent said it attached (its JSON log's time)."""
	at = {}
	for line in open(err_path, errors="replace"):
		m = re.search(r'"time":"([^"]+)Z".*attached xdp_fizzbuzzfib \(prog id \d+\) to (pz\d+) ',
			      line)
		if m:
			at[m.group(2)] = datetime.datetime.fromisoformat(m.group(1)).replace(
				tzinfo=datetime.timezone.utc).timestamp()
	return at


def run(args, rate, aggregate, first):
	tmp = tempfile.mkdtemp(prefix="fbfchurn.")
	lock_dir, err_path = tmp + "/locks", tmp + "/agent.err"
	cmd = ["nsenter", "--net=/run/netns/" + HOST_NS, args.agent, "-i", "pz*", "-q", "-j",
	       "--max-ifaces", str(args.max_ifaces), "--lock-dir", lock_dir,
	       "--metrics", "127.0.0.1:%d" % args.port]
	if aggregate:
		cmd += ["--aggregate", "1"]
	agent = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
				 errors="replace")
	log = AgentLog(agent.stderr, err_path)
	log.start()
	if not log.started.wait(30):
		agent.kill()
		sys.exit("the agent did not start: see " + err_path)
	scraper = Scraper(args.port, args.scrape_interval)
	scraper.start()
	prom = Prometheus(tmp, args.port, args.scrape_interval) if args.prometheus else None
	started = time.monotonic()
	wait_for(lambda: scraper.text, 10)
	before = resources(agent.pid, lock_dir, scraper)
	cpu0 = cpu_s(agent.pid)

	steady = min(int(rate * args.seconds), args.max_pods)
	pods, rss100 = [], None
	pool = concurrent.futures.ThreadPoolExecutor(max_workers=args.workers)
	futures = []
	t0 = time.monotonic()
	for i in range(steady):
		time.sleep(max(0, t0 + i / rate - time.monotonic()))
		bad = list(BAD)[(i // args.bad) % len(BAD)] if args.bad and i % args.bad == 1 else None
		p = Pod(first + i, bad)
		pods.append(p)
		futures.append(pool.submit(p.live, args, scraper))
		if i == 100 + int(rate * args.life):
			rss100 = rss_kb(agent.pid)
	concurrent.futures.wait(futures)
	steady_s = time.monotonic() - t0
	# The burst: hundreds at once, as a rollout recreates them.
	burst = [Pod(first + steady + i) for i in range(args.burst)]
	pods += burst
	futures = [pool.submit(p.live, args, scraper) for p in burst]
	concurrent.futures.wait(futures)
	pool.shutdown()
	last_gone = max(p.deleted for p in pods if p.deleted)
	# Caught up: no interface served, and the agent all but idle (under 50 ms of CPU in a
	# second: the scrapes cost some), so that what it still works through is not taken
	# for a leak. The catch-up ends where that second began.
	settled = wait_for(lambda: scraper.value("ifaces") == 0, 120)
	t = time.monotonic()
	while settled:
		t, c = time.monotonic(), cpu_s(agent.pid)
		time.sleep(1.0)
		if cpu_s(agent.pid) - c < 0.05 or time.monotonic() - last_gone > 120:
			break
	catch_up = t - last_gone
	if agent.poll() is not None:
		sys.exit("the agent exited (status %d) before the churn ended: see %s" %
			 (agent.returncode, err_path))
	time.sleep(2 * args.scrape_interval)
	rss_end = rss_kb(agent.pid)
	cpu = cpu_s(agent.pid) - cpu0
	after = resources(agent.pid, lock_dir, scraper)
	gap = scraper.value("drain_gap_max_seconds")
	vanished = scraper.value("ifaces_vanished_total")
	unsaid = scraper.value("ifaces_lines_unsaid_total")
	scraper.stop.set()
	scraper.join()
	prom_figures = {}
	if prom:
		prom_figures = prom.figures(time.monotonic() - started)
		prom.stop()
	agent.send_signal(signal.SIGINT)
	rc = agent.wait(60)
	log.join()
	log.out.close()

	counted = gone_accounts(err_path)
	text = open(err_path, errors="replace").read()
	bad = [p for p in pods if p.bad]
	# Each misuse said once, on its interface's line, and no line of an error.
	mishandled = sum(1 for p in bad if len(re.findall(
		r"^.*interface %s \(ifindex \d+\) .*%s.*$" % (p.iface, re.escape(
			BAD[p.bad] % p.n if "%d" in BAD[p.bad] else BAD[p.bad])), text, re.M)) != 1)
	# The churn's routine, said at a bounded rate: attached, deleted, gone before the attach.
	routine_said = len(re.findall(r"attached xdp_fizzbuzzfib \(prog id \d+\) to pz|"
				      r"\) deleted, and xdp_fizzbuzzfib with it|"
				      r"\) went away \(deleted, or moved", text))
	error_lines = len(re.findall(r"^(\S+ error |\{.*\"level\":\"error\")", text, re.M))
	lived = [p for p in pods if p.created and p.deleted and p.deleted - p.created >= 1.0 and
		 not p.bad]
	missed = sum(max(0, p.sent - counted.get(p.iface, 0)) for p in lived)
	in_burst = set(burst)
	missed_burst = sum(max(0, p.sent - counted.get(p.iface, 0)) for p in lived if p in in_burst)
	unattached = sum(1 for p in lived if p.iface not in counted)
	# From the pod's veth up to the agent's line that it attached (lines cut by the rate: none).
	at = attach_times(err_path)
	latency = sorted(max(0.0, at[p.iface] - p.created_wall) for p in pods
			 if p.created and p.iface in at)
	errors = sum(1 for p in pods if p.error)
	times = sorted(scraper.times)
	leaked = {k: after[k] - before[k] for k in before
		  if k != "bpffs_pins" and after[k] is not None and after[k] != before[k]}
	keep = args.keep or rc or leaked or missed or mishandled
	if not keep:
		shutil.rmtree(tmp)
	return {
		"rate": rate, "aggregate": aggregate, "pods": len(pods), "steady_pods": steady,
		"steady_s": steady_s, "before": before, "after": after, "leaked": leaked,
		"rss100_kb": rss100, "rss_end_kb": rss_end, "gap_ms": gap * 1e3 if gap else None,
		"scrapes": len(times), "scrape_failed": scraper.failed,
		"scrape_max_ms": times[-1] * 1e3 if times else None,
		"scrape_over_100ms": sum(1 for t in times if t > 0.1),
		"cpu_ms_per_pod": cpu * 1e3 / len(pods), "lived": len(lived),
		"frames_sent": sum(p.sent for p in lived), "missed": missed,
		"missed_burst": missed_burst,
		"attach_ms_p50": latency[len(latency) // 2] * 1e3 if latency else None,
		"attach_ms_max": latency[-1] * 1e3 if latency else None,
		"unattached": unattached, "vanished": vanished, "pod_errors": errors,
		"unsaid": unsaid, "routine_said": routine_said, "misused": len(bad), "mishandled": mishandled, "error_lines": error_lines,
		"catch_up_s": catch_up if settled else None, "agent_rc": rc,
		"kept": tmp if keep else None,
		**prom_figures,
		"missed_pods": [[p.iface, p.sent, counted.get(p.iface), round(p.sent_at - p.created, 3),
				 round(at[p.iface] - p.created_wall, 3) if p.iface in at else None]
				for p in lived if p.sent != counted.get(p.iface, 0)][:20],
	}


def fmt(v, f="%g"):
	return "-" if v is None else f % v


def table(results):
	rows = [
		("pods (steady + burst)", lambda r: "%d" % r["pods"]),
		("steady phase s", lambda r: "%.1f" % r["steady_s"]),
		("fds before/after", lambda r: "%d/%d" % (r["before"]["fds"], r["after"]["fds"])),
		("netlink sockets", lambda r: "%d/%d" % (r["before"]["netlink"],
							  r["after"]["netlink"])),
		("threads", lambda r: "%d/%d" % (r["before"]["threads"], r["after"]["threads"])),
		("BPF progs held", lambda r: "%d/%d" % (r["before"]["bpf_progs"],
							 r["after"]["bpf_progs"])),
		("BPF maps held", lambda r: "%d/%d" % (r["before"]["bpf_maps"],
							r["after"]["bpf_maps"])),
		("XDP attached (bpftool net)", lambda r: "%d/%d" % (r["before"]["xdp_attached"],
								    r["after"]["xdp_attached"])),
		("bpffs pins (host)", lambda r: "%d/%d" % (r["before"]["bpffs_pins"],
							   r["after"]["bpffs_pins"])),
		("lock files", lambda r: "%d/%d" % (r["before"]["lock_files"],
						     r["after"]["lock_files"])),
		("ifaces gauge", lambda r: "%s/%s" % (fmt(r["before"]["ifaces"]),
						       fmt(r["after"]["ifaces"]))),
		("RSS MB after 100 pods/all", lambda r: "%s/%.1f" % (
			fmt(r["rss100_kb"] and r["rss100_kb"] / 1024, "%.1f"), r["rss_end_kb"] / 1024)),
		("longest drain gap ms", lambda r: fmt(r["gap_ms"], "%.1f")),
		("slowest scrape ms", lambda r: fmt(r["scrape_max_ms"], "%.1f")),
		("scrapes > 100 ms", lambda r: "%d of %d" % (r["scrape_over_100ms"], r["scrapes"])),
		("Prometheus: slowest scrape ms", lambda r: fmt(r.get("prom_scrape_max_ms"), "%.1f")),
		("Prometheus: scrapes up/all", lambda r: "%s/%s" % (fmt(r.get("prom_scrapes_up")),
								    fmt(r.get("prom_scrapes")))),
		("agent CPU ms per pod", lambda r: "%.2f" % r["cpu_ms_per_pod"]),
		("catch-up after last pod s", lambda r: fmt(r["catch_up_s"], "%.2f")),
		("attach after veth up ms: p50/max", lambda r: "%s/%s" % (
			fmt(r["attach_ms_p50"], "%.0f"), fmt(r["attach_ms_max"], "%.0f"))),
		("frames sent (lived >= 1 s)", lambda r: "%d" % r["frames_sent"]),
		("frames missed: steady/burst", lambda r: "%d/%d" % (r["missed"] - r["missed_burst"],
								      r["missed_burst"])),
		("pods never attached", lambda r: "%d" % r["unattached"]),
		("gone before attach", lambda r: fmt(r["vanished"], "%d")),
		("log lines unsaid (rate)", lambda r: fmt(r["unsaid"], "%d")),
		("misused (rename/move/replace)", lambda r: "%d" % r["misused"]),
		("... not said exactly once", lambda r: "%d" % r["mishandled"]),
		("error lines in its log", lambda r: "%d" % r["error_lines"]),
		("leaked", lambda r: ",".join("%s%+d" % kv for kv in r["leaked"].items()) or "0"),
	]
	heads = ["%g/s%s" % (r["rate"], " agg" if r["aggregate"] else "") for r in results]
	w = max(len(n) for n, _ in rows)
	print("%-*s  %s" % (w, "", "  ".join("%12s" % h for h in heads)))
	for name, get in rows:
		print("%-*s  %s" % (w, name, "  ".join("%12s" % get(r) for r in results)))


def cleanup():
	for ns in os.listdir("/run/netns") if os.path.isdir("/run/netns") else []:
		if ns.startswith(POD_PREFIX) or ns == HOST_NS:
			subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL)


def main():
	ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
	ap.add_argument("--agent", required=True)
	ap.add_argument("--rates", default="5,17,50", help="pods a second, comma-separated")
	ap.add_argument("--modes", default="events,aggregate")
	ap.add_argument("--seconds", type=float, default=60, help="of steady churn per run")
	ap.add_argument("--max-pods", type=int, default=1000, help="in the steady phase")
	ap.add_argument("--burst", type=int, default=300)
	ap.add_argument("--life", type=float, default=2.0)
	ap.add_argument("--send-at", type=float, default=1.0)
	ap.add_argument("--frames", type=int, default=20)
	ap.add_argument("--send-after-attach", action="store_true",
			help="send once a scrape shows it served, not at --send-at")
	ap.add_argument("--linger", type=float, default=1.0,
			help="seconds a pod lives at least after it sent")
	ap.add_argument("--bad", type=int, default=0,
			help="every Nth steady pod renamed, moved or given another program")
	ap.add_argument("--xdp-pass", help="the program given (default: beside --agent)")
	ap.add_argument("--max-ifaces", type=int, default=1024)
	ap.add_argument("--workers", type=int, default=400)
	ap.add_argument("--port", type=int, default=9496)
	ap.add_argument("--scrape-interval", type=float, default=0.1)
	ap.add_argument("--json", help="write the results here too")
	ap.add_argument("--prometheus", action="store_true",
			help="a real Prometheus scrapes the agent too, every --scrape-interval")
	ap.add_argument("--name", default="fbfchurn", help="the namespaces' prefix")
	ap.add_argument("--keep", action="store_true", help="keep each run's agent log")
	args = ap.parse_args()
	args.xdp_pass = args.xdp_pass or os.path.join(os.path.dirname(args.agent),
						      "xdp_pass.bpf.o")
	global HOST_NS, POD_PREFIX
	HOST_NS, POD_PREFIX = args.name + "-host", args.name + "-p"
	if os.geteuid():
		sys.exit("run as root: it makes network namespaces")
	cleanup()
	sh("ip", "netns", "add", HOST_NS)
	sh("ip", "-n", HOST_NS, "link", "set", "lo", "up")
	results, first = [], 0
	try:
		for mode in args.modes.split(","):
			for rate in (float(r) for r in args.rates.split(",")):
				r = run(args, rate, mode == "aggregate", first)
				first += r["pods"]
				results.append(r)
				print("# %g pods/s, %s: done" % (rate, mode), file=sys.stderr)
	finally:
		cleanup()
	table(results)
	if args.json:
		json.dump(results, open(args.json, "w"), indent=1)
	bad = [r for r in results if r["leaked"] or r["missed"] or r["unattached"] or
	       r["agent_rc"] or r["pod_errors"] or r["mishandled"] or r["error_lines"]]
	for r in bad:
		print("%g/s %s: leaked, missed or failed; kept %s" %
		      (r["rate"], "aggregate" if r["aggregate"] else "events", r["kept"]))
	return 1 if bad else 0


if __name__ == "__main__":
	sys.exit(main())
