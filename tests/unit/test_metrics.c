// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The agent's Prometheus exposition and its --metrics address parser, on
 * their own: exact lines for known counters, a cumulative histogram, and
 * every malformed address refused.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <cmocka.h>

#include "metrics/metrics.h"

static char *format(const struct metrics_snapshot *s)
{
	size_t len = 0;
	char *buf = NULL;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	metrics_format(out, s);
	assert_int_equal(fclose(out), 0);
	return buf;
}

static void assert_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p;

	for (p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return;
	fail_msg("no line \"%s\" in:\n%s", line, text);
}

static void test_exposition_of_known_counters(void **state)
{
	struct metrics_source src = {
		.device = "eth0", .transport = "queue", .mode = "native", .sample = 4,
	};
	struct metrics_snapshot s = {
		.src = &src, .version = "1.2.3",
		.counters = {
			.packets = 104, .non_ipv4 = 7, .malformed = 3,
			.by_class = { [FBF_NONE] = 10, [FBF_FIZZ] = 20, [FBF_BUZZ] = 30,
				      [FBF_FIZZBUZZ] = 24, [FBF_FIBONACCI] = 10 },
			.not_sampled = 4, .queue_full = 4, .queue_busy = 1,
		},
		.delivered = 70,
		.drain_gap_max_ns = 12500000,
		.sinks = { { .name = "stdout", .delivered = 70 },
			   { .name = "nats", .delivered = 60, .lost = 10 } },
		.nr_sinks = 2,
	};
	char *text;

	(void)state;
	text = format(&s);
	assert_line(text, "fizzbuzzfib_sink_events_total{device=\"eth0\",sink=\"stdout\","
			  "result=\"delivered\"} 70");
	assert_line(text, "fizzbuzzfib_sink_events_total{device=\"eth0\",sink=\"stdout\","
			  "result=\"lost\"} 0");
	assert_line(text, "fizzbuzzfib_sink_events_total{device=\"eth0\",sink=\"nats\","
			  "result=\"delivered\"} 60");
	assert_line(text, "fizzbuzzfib_sink_events_total{device=\"eth0\",sink=\"nats\","
			  "result=\"lost\"} 10");
	assert_line(text, "fizzbuzzfib_build_info{version=\"1.2.3\",transport=\"queue\","
			  "mode=\"native\"} 1");
	assert_line(text, "fizzbuzzfib_packets_total{device=\"eth0\"} 104");
	assert_line(text, "fizzbuzzfib_non_ipv4_total{device=\"eth0\"} 7");
	assert_line(text, "fizzbuzzfib_malformed_total{device=\"eth0\"} 3");
	assert_line(text, "fizzbuzzfib_classified_total{device=\"eth0\",class=\"none\"} 10");
	assert_line(text, "fizzbuzzfib_classified_total{device=\"eth0\",class=\"buzz\"} 30");
	assert_line(text, "fizzbuzzfib_events_total{device=\"eth0\",result=\"delivered\"} 70");
	assert_line(text, "fizzbuzzfib_events_total{device=\"eth0\",result=\"lost_full\"} 4");
	assert_line(text, "fizzbuzzfib_events_total{device=\"eth0\",result=\"lost_busy\"} 1");
	assert_line(text, "fizzbuzzfib_events_not_sampled_total{device=\"eth0\"} 4");
	assert_line(text, "fizzbuzzfib_agent_info{device=\"eth0\",transport=\"queue\","
			  "mode=\"native\",sample=\"4\"} 1");
	/* produced 80 = classes 84 - not sampled 4 = delivered 70 + lost 5 + queued 5 */
	assert_line(text, "fizzbuzzfib_events_queued{device=\"eth0\"} 5");
	assert_line(text, "fizzbuzzfib_drain_gap_max_seconds{device=\"eth0\"} 0.012500");
	assert_line(text, "# TYPE fizzbuzzfib_packets_total counter");
	/* Run-time statistics only when they are on. */
	assert_null(strstr(text, "prog_run"));
	free(text);

	s.run_time_ns = 1500000000ULL;
	s.run_cnt = 42;
	text = format(&s);
	assert_line(text, "fizzbuzzfib_prog_run_time_seconds_total{device=\"eth0\"} 1.500000000");
	assert_line(text, "fizzbuzzfib_prog_run_count_total{device=\"eth0\"} 42");
	free(text);
}

static void test_age_histogram_is_cumulative(void **state)
{
	struct metrics_source src = { .device = "d", .transport = "t", .mode = "m" };
	struct metrics_snapshot s = { .src = &src, .version = "v" };
	char *text;

	(void)state;
	event_ages_observe(&s.ages, 5000);		/* 5 us: first bucket */
	event_ages_observe(&s.ages, 10000);		/* on the bound: still the first */
	event_ages_observe(&s.ages, 2000000);		/* 2 ms: le 0.01 */
	event_ages_observe(&s.ages, 120000000000ULL);	/* 2 min: only +Inf */
	text = format(&s);
	assert_line(text, "fizzbuzzfib_event_age_seconds_bucket{device=\"d\",le=\"1e-05\"} 2");
	assert_line(text, "fizzbuzzfib_event_age_seconds_bucket{device=\"d\",le=\"0.001\"} 2");
	assert_line(text, "fizzbuzzfib_event_age_seconds_bucket{device=\"d\",le=\"0.01\"} 3");
	assert_line(text, "fizzbuzzfib_event_age_seconds_bucket{device=\"d\",le=\"60\"} 3");
	assert_line(text, "fizzbuzzfib_event_age_seconds_bucket{device=\"d\",le=\"+Inf\"} 4");
	assert_line(text, "fizzbuzzfib_event_age_seconds_count{device=\"d\"} 4");
	assert_line(text, "fizzbuzzfib_event_age_seconds_sum{device=\"d\"} 120.002015000");
	free(text);
}

static void test_listen_addresses(void **state)
{
	static const char *const bad[] = {
		"", "127.0.0.1", ":9435", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536",
		"127.0.0.1:-1", "127.0.0.1:80x", "localhost:9435", "1.2.3:80", "::1:9435",
		"[::1]9435", "[::1]:", "[nope]:80", "[127.0.0.1]:80", "127.0.0.1:99999999999",
	};
	struct sockaddr_storage sa;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&sa;
	struct sockaddr_in *in = (struct sockaddr_in *)&sa;
	socklen_t len;
	size_t i;

	(void)state;
	assert_int_equal(parse_listen_addr("127.0.0.1:9435", &sa, &len), 0);
	assert_int_equal(sa.ss_family, AF_INET);
	assert_int_equal(len, sizeof(*in));
	assert_int_equal(ntohs(in->sin_port), 9435);
	assert_int_equal(ntohl(in->sin_addr.s_addr), 0x7f000001);
	assert_int_equal(parse_listen_addr("0.0.0.0:65535", &sa, &len), 0);
	assert_int_equal(ntohs(in->sin_port), 65535);
	assert_int_equal(parse_listen_addr("[::1]:1", &sa, &len), 0);
	assert_int_equal(sa.ss_family, AF_INET6);
	assert_int_equal(len, sizeof(*in6));
	assert_int_equal(ntohs(in6->sin6_port), 1);
	assert_true(IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse_listen_addr(bad[i], &sa, &len) != -EINVAL)
			fail_msg("\"%s\" was accepted", bad[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exposition_of_known_counters),
		cmocka_unit_test(test_age_histogram_is_cumulative),
		cmocka_unit_test(test_listen_addresses),
	};

	return cmocka_run_group_tests_name("metrics", tests, NULL, NULL);
}
