/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Names from outside (an interface may be called anything but '/', ':',
 * whitespace and NUL) written safely into a JSON string, a Prometheus label
 * value or a log line. Each writes at most @size bytes into @dst, NUL
 * included, never splits an escape, and returns the length it wrote.
 */
#ifndef AGENT_ESCAPE_H
#define AGENT_ESCAPE_H

#include <stddef.h>

/* Enough for an interface name (15 bytes) escaped the longest way, 6 bytes each. */
#define ESCAPE_IFNAME_SIZE 96

/*
 * A JSON string's contents (RFC 8259): '"' and '\' escaped, control
 * characters and DEL as \u00XX; valid UTF-8 as it is, any other byte as
 * \u00XX (read as Latin-1), so that the line is always valid UTF-8 JSON.
 */
size_t escape_json(char *dst, size_t size, const char *src);

/*
 * A Prometheus label value (text format 0.0.4): '\', '"' and newline
 * escaped; a byte that is not valid UTF-8 becomes U+FFFD, which the format
 * requires and promtool checks.
 */
size_t escape_label(char *dst, size_t size, const char *src);

/* A log line's: '\', control characters and DEL as \xNN; the rest as it is. */
size_t escape_log(char *dst, size_t size, const char *src);

#endif /* AGENT_ESCAPE_H */
