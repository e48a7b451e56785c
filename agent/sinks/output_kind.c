// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --output's kinds: see output_kind.h. */
#include <stdio.h>
#include <string.h>

#include "sinks/output_kind.h"

#define OUTPUT_KIND_ROW(name) &output_##name,
const struct output_kind *const output_kinds[] = { OUTPUT_KINDS(OUTPUT_KIND_ROW) NULL };
#undef OUTPUT_KIND_ROW

const struct output_kind *output_kind_of(const char *url, const char **rest)
{
	const struct output_kind *const *k;
	size_t len;

	*rest = url;
	for (k = output_kinds; *k; k++) {
		len = strlen((*k)->prefix);
		if ((*k)->alias && !strcmp(url, (*k)->alias)) {
			*rest = url + strlen(url);
			return *k;
		}
		/* A prefix alone names nothing, unless its parser says why, or it is all. */
		if (strncmp(url, (*k)->prefix, len) ||
		    ((*k)->bare ? url[len] != '\0' : !(*k)->parse && !url[len]))
			continue;
		*rest = url + len;
		return *k;
	}
	return NULL;
}

void output_kinds_list(char *buf, size_t size, bool help)
{
	const struct output_kind *const *k;
	size_t n = 0;

	buf[0] = '\0';
	for (k = output_kinds; *k && n < size; k++)
		n += snprintf(buf + n, size - n, "%s%s", k == output_kinds ? "" :
			      !help && !k[1] ? " or " : ", ", help ? (*k)->help : (*k)->usage);
}
