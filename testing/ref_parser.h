/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A reference model of the XDP program, written for reading rather than
 * speed: what the program must do with a frame, derived from byte offsets
 * and the rules in the header comment of ref_parser.c, not from the
 * program's code. The differential fuzzer runs both and compares.
 */
#ifndef REF_PARSER_H
#define REF_PARSER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "fizzbuzzfib.h"

enum ref_outcome {
	REF_IPV4,	/* a complete IPv4 header: classified */
	REF_NON_IPV4,	/* a complete link layer that carries something else */
	REF_MALFORMED,	/* a header cut short, or an IPv4 header that is not one */
};

/* What the program must do with one frame. */
struct ref_verdict {
	__u32 retval;		/* always XDP_PASS */
	enum ref_outcome outcome;
	__u32 saddr;		/* REF_IPV4 only: source address, host byte order */
	__u32 class_id;		/* REF_IPV4 only: enum fbf_class */
	bool push;		/* an event {saddr, class_id} goes to the queue */
};

/* Parse and classify @len bytes of @frame. */
void ref_parse(const void *frame, size_t len, struct ref_verdict *v);

/*
 * The class of @saddr (host byte order), from the rule as the README states
 * it, written to be obviously right rather than fast: the Fibonacci numbers
 * are generated, not listed, and the FizzBuzz rule is spelled out with plain
 * remainders. The one reference for the classifier, in C and (through
 * testing/ref_classify) in the shell suites.
 */
enum fbf_class ref_classify(__u32 saddr);

/* Whether @octet is in the Fibonacci sequence 0, 1, 1, 2, 3, 5, ... up to 255. */
bool ref_is_fibonacci(unsigned int octet);

/*
 * 1-in-N sampling on one CPU, from the rule (docs/agent.md): of the events a
 * CPU would send, numbered from 0 since its counters were zeroed, the k-th
 * is sent if k is a multiple of N, and the others are counted as not_sampled.
 */
struct ref_sampling {
	__u32 every;		/* N; 1 sends every event */
	__u64 candidates;	/* events this CPU would have sent so far */
};

/*
 * Add what @v does to the counters into @c. @smp: the sampling of the CPU
 * the frame ran on, or NULL for none. @queue_room: whether the queue has a
 * free slot; if not, an event to push counts as queue_full instead.
 * Returns true if the event is pushed.
 */
bool ref_account(const struct ref_verdict *v, struct ref_sampling *smp, bool queue_room,
		 struct fbf_counters *c);

const char *ref_outcome_name(enum ref_outcome outcome);

#endif /* REF_PARSER_H */
