/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef FBF_ADDRLIST_H
#define FBF_ADDRLIST_H

#include <stddef.h>
#include <stdint.h>

/* Most addresses one list may expand to. */
#define ADDRLIST_MAX 65536

/*
 * Parse a comma-separated list of IPv4 source addresses. Each item is an
 * address (10.0.0.1) or an inclusive range whose end is a full address
 * (10.0.0.1-10.0.0.20) or only a last octet (10.0.0.1-20). No spaces.
 *
 * On success returns 0 and stores in *addrs a malloc'ed array of *count
 * addresses in host byte order, in list order (duplicates kept); the
 * caller frees it. On failure returns -EINVAL (bad syntax, reversed
 * range), -E2BIG (more than ADDRLIST_MAX addresses) or -ENOMEM, leaves
 * *addrs and *count alone and writes one line explaining why to err
 * (if errlen > 0).
 */
int addrlist_parse(const char *spec, uint32_t **addrs, size_t *count, char *err, size_t errlen);

#endif /* FBF_ADDRLIST_H */
