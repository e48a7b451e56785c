// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Threads named by their job: see thread_name.h. */
#define _GNU_SOURCE /* pthread_setname_np */
#include <pthread.h>
#include <stdio.h>

#include "base/thread_name.h"

/* The kernel keeps 15 characters and the NUL. */
#define THREAD_NAME_SIZE 16

void thread_name_self(const char *job)
{
	char name[THREAD_NAME_SIZE];

	snprintf(name, sizeof(name), THREAD_NAME_PREFIX "%s", job);
	pthread_setname_np(pthread_self(), name);
}
