// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libxdp probes kernel features by loading programs that may fail, and
 * libbpf reports each failure as a warning even when libxdp then falls back
 * to something that works. So while attaching, warnings are held: shown if
 * the attach fails in a way the agent cannot explain itself, dropped
 * otherwise. -v shows everything as it happens.
 */
#define _GNU_SOURCE /* program_invocation_short_name */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "base/escape.h"
#include "base/log.h"

/* Enough for a few verifier logs' worth of warnings; the rest is cut. */
#define LOG_HELD_MAX 16384

/* A library message or an agent message, escaped, fits; a longer one is cut. */
#define LOG_LINE_MAX 4096

static bool log_verbose;
static bool log_json;
static bool log_holding;
static char log_held[LOG_HELD_MAX];
static size_t log_held_len;
static bool log_held_cut;
static char log_kernel_msg[256];

/* stderr is the journal: JOURNAL_STREAM names its device and inode (systemd.exec(5)). */
static bool stderr_is_journal(void)
{
	const char *env = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	return env && sscanf(env, "%llu:%llu", &dev, &ino) == 2 && !fstat(2, &st) &&
	       st.st_dev == dev && st.st_ino == ino;
}

/* The log's line prefix, before the message: "<N>" under systemd, else the time too. */
static int journal_prefix(char *buf, size_t size, int level)
{
	static int journal = -1;

	if (journal < 0)
		journal = stderr_is_journal();
	*buf = '\0';
	return journal ? snprintf(buf, size, "<%d>", level) : 0;
}

static const char *const level_names[] = {
	[LOG_LEVEL_ERR] = "error", [LOG_LEVEL_WARN] = "warning", [LOG_LEVEL_INFO] = "info",
	[LOG_LEVEL_DEBUG] = "debug",
};

/* The line as log.h's JSON object, into @buf; the message's own newline, if any, is its end. */
static int json_line(char *buf, size_t size, int level, const char *source, const char *fmt,
		     va_list args)
{
	static char escaped[LOG_LINE_MAX * 6];
	char msg[LOG_LINE_MAX];
	struct timespec ts;
	char when[32];
	struct tm tm;
	size_t len;
	int n;

	vsnprintf(msg, sizeof(msg), fmt, args);
	len = strlen(msg);
	if (len && msg[len - 1] == '\n')
		msg[len - 1] = '\0';
	escape_json(escaped, sizeof(escaped), msg);
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	n = journal_prefix(buf, size, level);
	return n + snprintf(buf + n, size - n, "{\"type\":\"log\",\"time\":\"%s.%06ldZ\","
			    "\"level\":\"%s\",\"source\":\"%s\",\"message\":\"%s\"}\n", when,
			    ts.tv_nsec / 1000, level_names[level], source, escaped);
}

static int log_print(bool warning, const char *fmt, va_list args)
{
	static char line[LOG_LINE_MAX * 6 + 256];
	size_t room = sizeof(log_held) - log_held_len;
	int n;

	if (!log_verbose && !warning)
		return 0;
	if (log_json)
		json_line(line, sizeof(line), warning ? LOG_LEVEL_WARN : LOG_LEVEL_DEBUG, "libbpf",
			  fmt, args);
	if (log_verbose || !log_holding)
		return log_json ? fputs(line, stderr) : vfprintf(stderr, fmt, args);
	n = log_json ? snprintf(log_held + log_held_len, room, "%s", line) :
		       vsnprintf(log_held + log_held_len, room, fmt, args);
	if (n < 0)
		return n;
	if ((size_t)n >= room) {
		log_held_len = sizeof(log_held) - 1;
		log_held_cut = true;
	} else {
		log_held_len += n;
	}
	return n;
}

/*
 * libbpf prints the netlink extended ack of a refused XDP attach as a
 * warning: the driver's own words on why (virtio_net: which offloads stand
 * in the way), which the agent repeats in its one line.
 */
static void kernel_msg_keep(const char *fmt, va_list args)
{
	static const char prefix[] = "libbpf: Kernel error message: ";
	char msg[sizeof(prefix) + sizeof(log_kernel_msg)];
	const char *text = msg + sizeof(prefix) - 1;

	vsnprintf(msg, sizeof(msg), fmt, args);
	/* Its first line, cut to fit. */
	if (!strncmp(msg, prefix, sizeof(prefix) - 1))
		snprintf(log_kernel_msg, sizeof(log_kernel_msg), "%.*s", (int)strcspn(text, "\n"),
			 text);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	va_list copy;

	if (log_holding && level == LIBBPF_WARN) {
		va_copy(copy, args);
		kernel_msg_keep(fmt, copy);
		va_end(copy);
	}
	return log_print(level == LIBBPF_WARN, fmt, args);
}

static int libxdp_print(enum libxdp_print_level level, const char *fmt, va_list args)
{
	return log_print(level == LIBXDP_WARN, fmt, args);
}

void pr_log(enum log_level level, const char *fmt, ...)
{
	static char line[LOG_LINE_MAX * 6 + 256];
	char prefix[16];
	struct timespec ts;
	char when[32];
	struct tm tm;
	va_list ap;

	if (level == LOG_LEVEL_DEBUG && !log_verbose)
		return;
	if (log_json) {
		va_start(ap, fmt);
		json_line(line, sizeof(line), level, "agent", fmt, ap);
		va_end(ap);
		fputs(line, stderr);
		return;
	}
	if (journal_prefix(prefix, sizeof(prefix), level)) {
		fprintf(stderr, "%s%s: ", prefix, program_invocation_short_name);
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
		gmtime_r(&ts.tv_sec, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
		fprintf(stderr, "%s.%06ldZ %s %s: ", when, ts.tv_nsec / 1000, level_names[level],
			program_invocation_short_name);
	}
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void log_setup(bool verbose, bool json)
{
	log_verbose = verbose;
	log_json = json;
	libbpf_set_print(libbpf_print);
	libxdp_set_print(libxdp_print);
}

void log_hold(void)
{
	log_holding = true;
	log_held_len = 0;
	log_held_cut = false;
	log_kernel_msg[0] = '\0';
}

const char *log_kernel_message(void)
{
	return log_kernel_msg;
}

void log_release(bool show)
{
	if (show && log_held_len) {
		/* A JSON line cut in two is no JSON: keep the whole ones. */
		while (log_json && log_held_cut && log_held_len &&
		       log_held[log_held_len - 1] != '\n')
			log_held_len--;
		fwrite(log_held, 1, log_held_len, stderr);
		if (log_held_cut && !log_json)
			fputc('\n', stderr);
		if (log_held_cut)
			pr_warn("library messages cut short; run with -v for all\n");
	}
	log_holding = false;
	log_held_len = 0;
}
