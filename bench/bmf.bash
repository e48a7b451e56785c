# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# What the benchmarks' own bats suites share: a setup that works from the
# repository with a results directory of its own, and a check of BMF files.
# Load it after testing/netns.bash.

fbf_bench_setup()
{
	cd "$FBF_ROOT"
	! fbf_is_sanitized "$FBF_BUILD/agent" ||
		skip "benchmarks measure the build without sanitizers"
	RESULTS=$BATS_TEST_TMPDIR/results
	mkdir -p "$RESULTS"
}

# check_bmf FILE BENCH...: FILE is {"BENCH": {"MEASURE": {"value": V, ...}}}
# with a number in every value and bound, and holds each BENCH named.
check_bmf()
{
	python3 - "$@" <<-'EOF'
	import json, numbers, sys
	bmf = json.load(open(sys.argv[1]))
	assert isinstance(bmf, dict) and bmf, "empty"
	for bench, measures in bmf.items():
	    assert isinstance(measures, dict) and measures, bench
	    for measure, entry in measures.items():
	        assert isinstance(entry["value"], numbers.Number), (bench, measure)
	        assert set(entry) <= {"value", "lower_value", "upper_value"}, (bench, measure)
	        lo = entry.get("lower_value", entry["value"])
	        hi = entry.get("upper_value", entry["value"])
	        assert lo <= entry["value"] <= hi, (bench, measure, entry)
	for bench in sys.argv[2:]:
	    assert bench in bmf, f"{bench} missing"
	EOF
}

# check_bmf_measures FILE BENCH:MEASURE...: FILE's BENCH has MEASURE, for each pair.
check_bmf_measures()
{
	python3 - "$@" <<-'EOF'
	import json, sys
	bmf = json.load(open(sys.argv[1]))
	missing = [pair for pair in sys.argv[2:]
	           if pair.rsplit(":", 1)[1] not in bmf.get(pair.rsplit(":", 1)[0], {})]
	assert not missing, f"missing: {' '.join(missing)}"
	EOF
}
