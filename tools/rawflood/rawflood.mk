# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The raw frame flooder: IPv4 frames over AF_PACKET as fast as one core
# sends them, for the floods of make stress, the live benchmarks and the
# service test. No library: it builds with the product.

RAWFLOOD := $(OUTPUT)/rawflood

all: $(RAWFLOOD)

$(RAWFLOOD): $(call obj,tools/rawflood/rawflood.c)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@
