// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addrlist.h"

/* "255.255.255.255-255.255.255.255" is the longest valid item. */
#define ITEM_MAX_LEN 31
/* Enough of a bad item to recognise it in an error message. */
#define ITEM_SHOWN_LEN 40

static int fail(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
		/* The reason quotes the user's item: one printable line, whatever it held. */
		for (char *p = err; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
	}
	return ret;
}

/* inet_pton() alone: strict dotted quad, no leading zeros, no octal or hex. */
static bool parse_addr(const char *s, uint32_t *addr)
{
	struct in_addr in;

	if (inet_pton(AF_INET, s, &in) != 1)
		return false;
	*addr = ntohl(in.s_addr);
	return true;
}

/* A range end given as a last octet: 0..255, decimal, no leading zeros. */
static bool parse_octet(const char *s, uint32_t *octet)
{
	size_t len = strlen(s);
	uint32_t v = 0;

	if (len == 0 || len > 3 || (len > 1 && s[0] == '0'))
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint32_t)(s[i] - '0');
	}
	if (v > 255)
		return false;
	*octet = v;
	return true;
}

/*
 * Parse one NUL-terminated item into an inclusive range. Returns 0 or
 * -EINVAL with err filled in.
 */
static int parse_item(const char *item, size_t idx, uint32_t *first, uint32_t *last, char *err,
		      size_t errlen)
{
	char buf[ITEM_MAX_LEN + 1];
	char *dash;

	strcpy(buf, item);
	dash = strchr(buf, '-');
	if (dash)
		*dash = '\0';

	if (!parse_addr(buf, first)) {
		if (!dash)
			return fail(err, errlen, -EINVAL,
				    "item %zu \"%s\" is not an IPv4 address or range", idx, item);
		return fail(err, errlen, -EINVAL,
			    "item %zu \"%s\": range start \"%s\" is not an IPv4 address", idx, item,
			    buf);
	}
	if (!dash) {
		*last = *first;
		return 0;
	}

	if (strchr(dash + 1, '.')) {
		if (!parse_addr(dash + 1, last))
			return fail(err, errlen, -EINVAL,
				    "item %zu \"%s\": range end \"%s\" is not an IPv4 address",
				    idx, item, dash + 1);
	} else {
		uint32_t octet;

		if (!parse_octet(dash + 1, &octet))
			return fail(err, errlen, -EINVAL,
				    "item %zu \"%s\": range end \"%s\" is not an address "
				    "or an octet",
				    idx, item, dash + 1);
		*last = (*first & 0xffffff00u) | octet;
	}
	if (*last < *first)
		return fail(err, errlen, -EINVAL,
			    "item %zu \"%s\": range end is below its start", idx, item);
	return 0;
}

/*
 * Validate and count the list (out == NULL), or fill out with the
 * addresses the counting pass found to fit.
 */
static int walk(const char *spec, uint32_t *out, size_t *count, char *err, size_t errlen)
{
	const char *p = spec;
	uint64_t total = 0;
	size_t idx = 0;

	for (;;) {
		size_t len = strcspn(p, ",");
		char item[ITEM_MAX_LEN + 1];
		uint32_t first = 0, last = 0;
		int ret;

		idx++;
		if (len == 0)
			return fail(err, errlen, -EINVAL,
				    "item %zu is empty; separate items with single commas", idx);
		if (len > ITEM_MAX_LEN)
			return fail(err, errlen, -EINVAL,
				    "item %zu \"%.*s%s\" is too long for an address or range", idx,
				    ITEM_SHOWN_LEN, p, len > ITEM_SHOWN_LEN ? "..." : "");
		memcpy(item, p, len);
		item[len] = '\0';

		ret = parse_item(item, idx, &first, &last, err, errlen);
		if (ret)
			return ret;

		/* 64 bits: one range may span the whole address space. */
		total += (uint64_t)last - first + 1;
		if (total > ADDRLIST_MAX)
			return fail(err, errlen, -E2BIG,
				    "the list expands to more than %d addresses (at item %zu)",
				    ADDRLIST_MAX, idx);
		if (out) {
			uint32_t a = first;

			/* Stop before a++ can wrap at 255.255.255.255. */
			for (;;) {
				*out++ = a;
				if (a == last)
					break;
				a++;
			}
		}

		if (p[len] == '\0')
			break;
		p += len + 1;
	}
	*count = (size_t)total;
	return 0;
}

int addrlist_parse(const char *spec, uint32_t **addrs, size_t *count, char *err, size_t errlen)
{
	uint32_t *buf;
	size_t n;
	int ret;

	if (!spec || !*spec)
		return fail(err, errlen, -EINVAL, "the list is empty");

	ret = walk(spec, NULL, &n, err, errlen);
	if (ret)
		return ret;

	buf = malloc(n * sizeof(*buf));
	if (!buf)
		return fail(err, errlen, -ENOMEM, "out of memory for %zu addresses", n);
	/* Cannot fail: the first pass accepted the same input. */
	walk(spec, buf, &n, err, errlen);

	*addrs = buf;
	*count = n;
	return 0;
}
