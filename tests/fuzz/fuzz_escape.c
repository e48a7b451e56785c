// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness for the escapers of names from outside (agent/base/escape.c).
 * Input: one byte for a destination size, then the name. Besides what the
 * sanitizers catch, every output is checked against what its reader needs:
 * JSON that is valid UTF-8 with only JSON's escapes and, for a name that is
 * valid UTF-8, decodes back to it; a Prometheus label value that is valid
 * UTF-8 with only the format's three escapes; a log line with no control
 * character; and a short destination gets a NUL-terminated prefix of the
 * whole, never a split escape.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"

#define BIG 8192

static void check(int ok, const char *what)
{
	if (ok)
		return;
	fprintf(stderr, "contract broken: %s\n", what);
	abort();
}

/* Valid UTF-8, by the same rules as RFC 3629 (no overlongs, surrogates, > U+10FFFF). */
static int valid_utf8(const unsigned char *s, size_t len)
{
	size_t i = 0, n, k;
	unsigned int cp;

	while (i < len) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		n = (s[i] & 0xe0) == 0xc0 ? 2 : (s[i] & 0xf0) == 0xe0 ? 3 :
		    (s[i] & 0xf8) == 0xf0 ? 4 : 0;
		if (!n || i + n > len)
			return 0;
		cp = s[i] & (0x7f >> n);
		for (k = 1; k < n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += n;
	}
	return 1;
}

/* Decode a JSON string's contents; the escapes must be JSON's. Its length, or -1. */
static long json_decode(const char *s, unsigned char *out)
{
	long n = 0;
	unsigned int u;

	for (; *s; s++) {
		check((unsigned char)*s >= 0x20 && *s != '"', "raw control or quote in JSON");
		if (*s != '\\') {
			out[n++] = *s;
			continue;
		}
		s++;
		if (*s == '\\' || *s == '"') {
			out[n++] = *s;
		} else if (*s == 'u' && sscanf(s + 1, "%4x", &u) == 1 && u < 0x100) {
			out[n++] = u; /* \u00XX: the byte XX, as the escaper writes it */
			s += 4;
		} else {
			return -1;
		}
	}
	return n;
}

static void check_label(const char *s)
{
	check(valid_utf8((const unsigned char *)s, strlen(s)), "label not UTF-8");
	for (; *s; s++) {
		check(*s != '"' && *s != '\n', "raw quote or newline in label");
		if (*s == '\\') {
			s++;
			check(*s == '\\' || *s == '"' || *s == 'n', "bad escape in label");
		}
	}
}

static void check_log(const char *s)
{
	for (; *s; s++)
		check((unsigned char)*s >= 0x20 && *s != 0x7f, "control character in log");
}

typedef size_t (*escaper)(char *dst, size_t size, const char *src);

/* A short destination: a NUL-terminated prefix of the whole that splits no escape. */
static void check_short(escaper fn, const char *name, size_t size, const char *whole)
{
	char dst[256];
	size_t len;

	memset(dst, 0x5a, sizeof(dst));
	len = fn(dst, size, name);
	check(!size || (len < size && dst[len] == '\0'), "short destination overrun");
	check(!size || !strncmp(dst, whole, len), "short output is not a prefix");
	check(dst[size] == 0x5a || size == sizeof(dst), "wrote past the destination");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char name[BIG], json[6 * BIG + 1], label[6 * BIG + 1], log[6 * BIG + 1];
	static unsigned char decoded[BIG];
	size_t short_size, len;
	long n;

	if (size < 1 || size > BIG)
		return 0;
	short_size = data[0] % 200;
	memcpy(name, data + 1, size - 1);
	name[size - 1] = '\0';
	len = strlen(name);

	escape_json(json, sizeof(json), name);
	escape_label(label, sizeof(label), name);
	escape_log(log, sizeof(log), name);

	check(valid_utf8((const unsigned char *)json, strlen(json)), "JSON not UTF-8");
	n = json_decode(json, decoded);
	check(n >= 0, "not one of JSON's escapes");
	if (valid_utf8((const unsigned char *)name, len))
		check((size_t)n == len && !memcmp(decoded, name, len), "JSON does not decode back");
	check_label(label);
	check_log(log);

	check_short(escape_json, name, short_size, json);
	check_short(escape_label, name, short_size, label);
	check_short(escape_log, name, short_size, log);
	return 0;
}
