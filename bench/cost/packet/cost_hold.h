/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A program kept in the kernel's XDP dispatcher while it is measured. A test
 * run of more than one repetition adds its program to the dispatcher before
 * its loop and takes it out after, each a change that waits for an RCU grace
 * period (25-50 ms a call on the 6.18 hosts here, against a loop of a
 * millisecond or two). A program attached to a device is in the dispatcher
 * already, so its runs change nothing: it is attached in skb mode to the
 * loopback of a network namespace of this process's own, which is down and
 * carries no frame. Its own runs are the same either way (the dispatcher
 * holds it, and only it of the tool's, during them).
 */
#ifndef FBF_COST_HOLD_H
#define FBF_COST_HOLD_H

/*
 * Move this process into a network namespace of its own, whose loopback
 * cost_hold() attaches to, and which goes when the process does: call it
 * before any other thread exists. 0 or -errno.
 */
int cost_hold_start(void);

/* Program @prog_fd held in the dispatcher until the returned link's fd is closed, or -errno. */
int cost_hold(int prog_fd);

#endif /* FBF_COST_HOLD_H */
