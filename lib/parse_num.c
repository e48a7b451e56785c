// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Strict number parsers for command lines: see parse_num.h. */
#include <errno.h>
#include <stdbool.h>

#include "parse_num.h"

/*
 * A run of decimal digits, ending at *end. Digits only: strtoull() would
 * also take spaces and a sign, and turn "-1" into a huge number.
 */
static int parse_digits_u64(const char *s, const char **end, __u64 *out)
{
	bool overflow = false;
	__u64 v = 0;

	*end = s;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned int d = *s - '0';

		if (v > (~0ULL - d) / 10)
			overflow = true;
		v = v * 10 + d;
	}
	*end = s;
	if (overflow)
		return -EOVERFLOW;
	*out = v;
	return 0;
}

int parse_u64_range(const char *s, __u64 min, __u64 max, __u64 *out)
{
	const char *end;
	__u64 v;
	int err;

	err = parse_digits_u64(s, &end, &v);
	/* Trailing junk makes any number invalid, even one too large. */
	if (err == -EINVAL || *end)
		return -EINVAL;
	if (err)
		return err;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/*
 * "SECONDS[.FRACTION]" with at most nine fraction digits, in integer
 * arithmetic: no locale, exponent, hex, inf or nan as strtod() would take.
 */
int parse_seconds_ns(const char *s, __u64 max_s, __u64 *out_ns)
{
	__u64 secs = 0, frac_ns = 0, scale = FBF_NSEC_PER_SEC;
	const char *p = s;
	int err = 0;

	if (*p != '.') {
		err = parse_digits_u64(s, &p, &secs);
		if (err == -EINVAL)
			return err;
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -EINVAL; /* "5." and "." are typos more likely than values */
		for (; *p >= '0' && *p <= '9'; p++) {
			scale /= 10;
			if (!scale)
				return -EDOM; /* finer than a nanosecond */
			frac_ns += (*p - '0') * scale;
		}
	}
	if (*p)
		return -EINVAL;
	if (err)
		return -ERANGE; /* too many seconds for 64 bits */
	if (secs > max_s || (secs == max_s && frac_ns) || (!secs && !frac_ns))
		return -ERANGE;
	*out_ns = secs * FBF_NSEC_PER_SEC + frac_ns;
	return 0;
}
