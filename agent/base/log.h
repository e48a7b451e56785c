/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The agent's log on stderr: its own messages with a time and a level, and
 * libbpf's and libxdp's through one level filter.
 */
#ifndef AGENT_LOG_H
#define AGENT_LOG_H

#include <stdbool.h>

/* syslog's numbers, which journald reads from a "<N>" prefix. */
enum log_level {
	LOG_LEVEL_ERR = 3,
	LOG_LEVEL_WARN = 4,
	LOG_LEVEL_INFO = 6,
	LOG_LEVEL_DEBUG = 7,
};

/*
 * One message, ending in a newline: "TIME LEVEL NAME: MESSAGE", TIME in UTC
 * (RFC 3339, microseconds), NAME the agent's as invoked; under systemd,
 * whose journal stamps the time itself, "<N>NAME: MESSAGE". With log_setup()'s
 * @json, one object instead, {"type":"log","time":...,"level":...,
 * "source":"agent","message":...}, after the "<N>" under systemd, so that a
 * log shipper reads one format. Debug messages only with -v.
 */
void pr_log(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "s" after a count of @n, but one: "1 event", "2 events". */
static inline const char *plural_s(unsigned long long n)
{
	return n == 1 ? "" : "s";
}

#define pr_err(...) pr_log(LOG_LEVEL_ERR, __VA_ARGS__)
#define pr_warn(...) pr_log(LOG_LEVEL_WARN, __VA_ARGS__)
#define pr_info(...) pr_log(LOG_LEVEL_INFO, __VA_ARGS__)
#define pr_debug(...) pr_log(LOG_LEVEL_DEBUG, __VA_ARGS__)

/*
 * Show library warnings, and info and debug output only if @verbose; write
 * every line, the libraries' too ("source":"libbpf"), as JSON if @json.
 */
void log_setup(bool verbose, bool json);

/*
 * Hold library warnings instead of printing them (unless verbose), until
 * log_release() prints them (@show) or drops them.
 */
void log_hold(void);
void log_release(bool show);

/*
 * The kernel's message on the last refused netlink request (an XDP attach)
 * since log_hold(), as libbpf relayed it; "" if none.
 */
const char *log_kernel_message(void);

#endif /* AGENT_LOG_H */
