# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The traffic generator (libcurl multi) and its tests: the address lists as
# a cmocka program in `make test`, and as a libFuzzer harness (tests/tests.mk).

TRAFFICGEN_OBJS := $(call obj,tools/trafficgen/trafficgen.c tools/trafficgen/addrlist.c \
		     lib/parse_num.c)

all: $(OUTPUT)/trafficgen

$(OUTPUT)/trafficgen: $(TRAFFICGEN_OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(CURL_LIBS) -o $@

TEST_PROGS += $(OUTPUT)/tests/test_addrlist

test-build: $(OUTPUT)/tests/test_addrlist

$(OUTPUT)/tests/test_addrlist: $(call obj,tools/trafficgen/test_addrlist.c \
		tools/trafficgen/addrlist.c)
	$(call msg,BINARY,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(CMOCKA_LIBS) -o $@

FUZZERS += $(OUTPUT)/fuzz/fuzz_addrlist

$(OUTPUT)/fuzz/fuzz_addrlist: tools/trafficgen/fuzz_addrlist.c tools/trafficgen/addrlist.c
