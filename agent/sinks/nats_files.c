// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The files of --nats-creds and --nats-ca: see nats_files.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/exit_codes.h"
#include "base/log.h"
#include "sinks/nats_files.h"

/* A credentials file holds a JWT and a seed, a few KiB: anything larger is not one. */
#define NATS_CREDS_MAX (64 * 1024)

const char *nats_last_error(void)
{
	const char *text, *p;
	natsStatus st;

	text = nats_GetLastError(&st);
	if (!text || !*text)
		return natsStatus_GetText(st);
	if (*text == '(' && (p = strstr(text, "): ")))
		return p + 3;
	return text;
}

/*
 * The blocks of a credentials file, as nats.c reads them: each the one line
 * between two edges, the user JWT first, then the NKey seed. How many of
 * the two it found; @text is cut into lines.
 */
static unsigned int creds_blocks(char *text, char *blocks[2])
{
	char *line, *save = NULL, *value = NULL;
	bool after_edge = false;
	unsigned int n = 0;
	size_t len;

	for (line = strtok_r(text, "\r\n", &save); line && n < 2;
	     line = strtok_r(NULL, "\r\n", &save)) {
		len = strlen(line);
		/* "-----BEGIN NATS USER JWT-----", "------END USER NKEY SEED------": an edge. */
		if (len >= 6 && !strncmp(line, "---", 3) && !strcmp(line + len - 3, "---")) {
			if (value)
				blocks[n++] = value;
			value = NULL;
			after_edge = true;
		} else {
			value = after_edge ? line : NULL;
			after_edge = false;
		}
	}
	return n;
}

/* The whole of @path into @buf (NUL-terminated): 0, -errno, or -EFBIG if it does not fit. */
static int read_small(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	int fd, err;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	err = n < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	buf[len] = '\0';
	return len == size - 1 ? -EFBIG : 0;
}

/* A credentials file whose blocks nats.c can use: 0, or an exit status after one line. */
static int creds_check(const char *path)
{
	char shown[PATH_MAX], reason[160], text[NATS_CREDS_MAX + 1], *blocks[2];
	unsigned char *sig = NULL;
	const char *why = NULL;
	unsigned int n = 0;
	int err, sig_len;

	escape_log(shown, sizeof(shown), path);
	err = read_small(path, text, sizeof(text));
	if (err && err != -EFBIG) {
		explicit_bzero(text, sizeof(text)); /* what a failed read got is the secret too */
		pr_err("output nats: cannot read --nats-creds %s: %s; name the credentials file "
		       "of the NATS user the agent publishes as\n", shown, strerror(-err));
		return AGENT_EXIT_USAGE;
	}
	if (!err && *text)
		n = creds_blocks(text, blocks);
	if (err)
		why = "larger than any credentials file (64 KiB)";
	else if (!*text)
		why = "empty";
	else if (n == 0)
		why = "no user JWT in it (a -----BEGIN NATS USER JWT----- block)";
	else if (n == 1)
		why = "no NKey seed in it (a -----BEGIN USER NKEY SEED----- block)";
	else if (nats_Sign(blocks[1], "fizzbuzzfib", &sig, &sig_len) != NATS_OK)
		why = reason;
	if (why == reason)
		snprintf(reason, sizeof(reason), "its NKey seed is not valid (%s)",
			 nats_last_error());
	free(sig);
	/* It held a secret: read onto the stack, so that no heap copy outlives this. */
	explicit_bzero(text, sizeof(text));
	if (why) {
		pr_err("output nats: --nats-creds %s is not a NATS credentials file: %s; name the "
		       ".creds file made for the agent's NATS user\n", shown, why);
		return AGENT_EXIT_USAGE;
	}
	return 0;
}

/* A CA file nats.c (OpenSSL) loads into @opts: 0, or an exit status after one line. */
static int ca_check(natsOptions *opts, const char *path)
{
	char shown[PATH_MAX], head[2];
	const char *reason, *p;
	int err;

	escape_log(shown, sizeof(shown), path);
	/* Read, not only opened: a directory opens. Its first byte is enough. */
	err = read_small(path, head, sizeof(head));
	if (err && err != -EFBIG) {
		pr_err("output nats: cannot read --nats-ca %s: %s; name a file of the PEM CA "
		       "certificates that signed the servers' own\n", shown, strerror(-err));
		return AGENT_EXIT_USAGE;
	}
	if (natsOptions_LoadCATrustedCertificates(opts, path) == NATS_OK)
		return 0;
	/* "Error loading trusted certificates 'PATH': REASON", REASON OpenSSL's. */
	reason = nats_last_error();
	for (p = reason; (p = strstr(p, "': ")); reason = p += 3)
		;
	pr_err("output nats: --nats-ca %s holds no CA certificate that TLS can load (%s); name "
	       "a file of PEM CA certificates\n", shown, reason);
	return AGENT_EXIT_USAGE;
}

int nats_files_check(natsOptions *opts, const char *creds, const char *ca)
{
	return (creds ? creds_check(creds) : 0) ?: (ca ? ca_check(opts, ca) : 0);
}
