/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The files of --nats-creds and --nats-ca, checked before any server is
 * dialed. nats.c reads a credentials file only once a server answers, and
 * a CA file it cannot load reads as "SSL Error": either way the operator
 * would be told that the server cannot be reached, and never which file is
 * wrong and how.
 */
#ifndef AGENT_NATS_FILES_H
#define AGENT_NATS_FILES_H

#include <nats/nats.h>

/*
 * Whether @creds (a credentials file: a user JWT and an NKey seed) and @ca
 * (PEM CA certificates), each NULL if not given, are readable and well
 * formed; the CA certificates are loaded into @opts, which must exist (it
 * opens the library). 0, or AGENT_EXIT_USAGE after one line that names the
 * file and what is wrong with it.
 */
int nats_files_check(natsOptions *opts, const char *creds, const char *ca);

/* The text of nats.c's last error, without the source file and line it starts with. */
const char *nats_last_error(void);

#endif /* AGENT_NATS_FILES_H */
