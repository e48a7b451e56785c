/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Threads named by their job, so that top -H and /proc/PID/task/TID/comm
 * tell them apart: links (the link thread), out-KIND (an output's writer),
 * metrics (libmicrohttpd's, from its first request on: before, the name
 * the library gives it). The main thread, which drains, keeps the
 * program's name: pidof, pkill -x and the service manager know the
 * process by it.
 */
#ifndef AGENT_THREAD_NAME_H
#define AGENT_THREAD_NAME_H

/* The prefix of every name, within the kernel's 15 characters. */
#define THREAD_NAME_PREFIX "fbf-"

/* Name the calling thread THREAD_NAME_PREFIX @job, cut to what the kernel keeps. */
void thread_name_self(const char *job);

#endif /* AGENT_THREAD_NAME_H */
