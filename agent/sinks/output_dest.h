/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where an --output writes, so that two outputs that name one place are
 * refused: each would write every event into it, and a reader would take
 * the copies for the agent's. Unlike output_url.h, this looks at the file
 * system: the same file may be named by different paths.
 */
#ifndef AGENT_OUTPUT_DEST_H
#define AGENT_OUTPUT_DEST_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

struct output_kind;

struct output_dest {
	const struct output_kind *kind;
	const char *rest;	/* the URL past its kind's prefix */
	bool has_inode;		/* a file that exists, or stdout: dev and ino name it */
	dev_t dev;
	ino_t ino;
	char path[PATH_MAX];	/* else a file's absolute path; another's URL past its prefix */
};

/* Where @url (an --output value the options accepted, kept by the caller) writes. */
void output_dest_get(const char *url, struct output_dest *d);

/* Whether two outputs write to the same place. */
bool output_dest_same(const struct output_dest *a, const struct output_dest *b);

#endif /* AGENT_OUTPUT_DEST_H */
