// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>

#include "base/escape.h"

/*
 * The length of the valid UTF-8 sequence at @s (1 to 4), or 0 if the bytes
 * there are not one: a stray continuation byte, an overlong form, a
 * surrogate or a code point past U+10FFFF.
 */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0; /* also stops at the NUL */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

/* Append @len bytes of @piece whole, or nothing if they do not fit. */
static int put(char *dst, size_t size, size_t *at, const char *piece, size_t len)
{
	if (*at + len >= size)
		return -1;
	memcpy(dst + *at, piece, len);
	*at += len;
	return 0;
}

/* @how: 'j' JSON, 'p' Prometheus label, 'l' log line. */
static size_t escape(char *dst, size_t size, const char *src, char how)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t at = 0, n;
	char esc[8];
	int err = 0;

	if (!size)
		return 0;
	while (*s && !err) {
		n = utf8_len(s);
		if (*s == '\\' || *s == '"') {
			esc[0] = '\\';
			esc[1] = *s;
			/* A log line keeps its quotes: only its own escape character is doubled. */
			err = how == 'l' && *s == '"' ? put(dst, size, &at, esc + 1, 1) :
							 put(dst, size, &at, esc, 2);
		} else if (*s == '\n' && how == 'p') {
			err = put(dst, size, &at, "\\n", 2);
		} else if (how != 'p' && (*s < 0x20 || *s == 0x7f || (!n && how == 'j'))) {
			snprintf(esc, sizeof(esc), how == 'j' ? "\\u%04x" : "\\x%02x", *s);
			err = put(dst, size, &at, esc, strlen(esc));
		} else if (n || how == 'l') {
			n = n ?: 1;
			err = put(dst, size, &at, (const char *)s, n);
			s += n - 1;
		} else {
			err = put(dst, size, &at, "\xef\xbf\xbd", 3); /* U+FFFD */
		}
		s++;
	}
	dst[at] = '\0';
	return at;
}

size_t escape_json(char *dst, size_t size, const char *src)
{
	return escape(dst, size, src, 'j');
}

size_t escape_label(char *dst, size_t size, const char *src)
{
	return escape(dst, size, src, 'p');
}

size_t escape_log(char *dst, size_t size, const char *src)
{
	return escape(dst, size, src, 'l');
}
