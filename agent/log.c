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

#include "log.h"

/* Enough for a few verifier logs' worth of warnings; the rest is cut. */
#define LOG_HELD_MAX 16384

static bool log_verbose;
static bool log_holding;
static char log_held[LOG_HELD_MAX];
static size_t log_held_len;
static bool log_held_cut;

static int log_print(bool warning, const char *fmt, va_list args)
{
	size_t room = sizeof(log_held) - log_held_len;
	int n;

	if (log_verbose)
		return vfprintf(stderr, fmt, args);
	if (!warning)
		return 0;
	if (!log_holding)
		return vfprintf(stderr, fmt, args);

	n = vsnprintf(log_held + log_held_len, room, fmt, args);
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

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	return log_print(level == LIBBPF_WARN, fmt, args);
}

static int libxdp_print(enum libxdp_print_level level, const char *fmt, va_list args)
{
	return log_print(level == LIBXDP_WARN, fmt, args);
}

/* stderr is the journal: JOURNAL_STREAM names its device and inode (systemd.exec(5)). */
static bool stderr_is_journal(void)
{
	const char *env = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	return env && sscanf(env, "%llu:%llu", &dev, &ino) == 2 && !fstat(2, &st) &&
	       st.st_dev == dev && st.st_ino == ino;
}

static const char *level_name(enum log_level level)
{
	switch (level) {
	case LOG_LEVEL_ERR:
		return "error";
	case LOG_LEVEL_WARN:
		return "warning";
	case LOG_LEVEL_INFO:
		return "info";
	case LOG_LEVEL_DEBUG:
	default:
		return "debug";
	}
}

void pr_log(enum log_level level, const char *fmt, ...)
{
	static int journal = -1;
	struct timespec ts;
	char when[32];
	struct tm tm;
	va_list ap;

	if (level == LOG_LEVEL_DEBUG && !log_verbose)
		return;
	if (journal < 0)
		journal = stderr_is_journal();
	if (journal) {
		fprintf(stderr, "<%d>%s: ", level, program_invocation_short_name);
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
		gmtime_r(&ts.tv_sec, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
		fprintf(stderr, "%s.%06ldZ %s %s: ", when, ts.tv_nsec / 1000, level_name(level),
			program_invocation_short_name);
	}
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void log_setup(bool verbose)
{
	log_verbose = verbose;
	libbpf_set_print(libbpf_print);
	libxdp_set_print(libxdp_print);
}

void log_hold(void)
{
	log_holding = true;
	log_held_len = 0;
	log_held_cut = false;
}

void log_release(bool show)
{
	if (show && log_held_len) {
		fwrite(log_held, 1, log_held_len, stderr);
		if (log_held_cut)
			fprintf(stderr, "\n(library messages cut short; run with -v for all)\n");
	}
	log_holding = false;
	log_held_len = 0;
}
