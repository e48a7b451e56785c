// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ref_classify ADDR...: the reference model's class of each dotted IPv4
 * address, one name per line ("none", "Fizz", ...), so that the shell
 * suites check the agent against the same reference as the C tests.
 */
#include <arpa/inet.h>
#include <stdio.h>

#include "ref_parser.h"

int main(int argc, char **argv)
{
	struct in_addr addr;
	int i;

	for (i = 1; i < argc; i++) {
		if (inet_pton(AF_INET, argv[i], &addr) != 1) {
			fprintf(stderr, "ref_classify: '%s' is not a dotted IPv4 address\n",
				argv[i]);
			return 2;
		}
		printf("%s\n", fbf_class_name(ref_classify(ntohl(addr.s_addr))));
	}
	return 0;
}
