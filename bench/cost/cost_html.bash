# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# A cost run's HTML report (cost.html) read as a browser reads it, for the bats files
# that check one (bench/cost/cost_html.bats, bench/cost/trace/trace_html.bats): SHOTS,
# where the screenshots go, is the caller's.

# browse PAGE NAME [WIDTH,HEIGHT]: PAGE opened in headless Chromium, its DOM into DOM and a
# screenshot of its top WIDTH by HEIGHT pixels (1280,2400) into SHOTS/NAME.png; what Chromium
# logged holds no message of the page's console (a page's console.log, an error, a refused
# load all log as CONSOLE).
browse()
{
	local log=$BATS_TEST_TMPDIR/$2.log

	DOM=$BATS_TEST_TMPDIR/$2.dom.html
	chromium --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
		--dump-dom "$1" >"$DOM" 2>"$log"
	chromium --headless --no-sandbox --disable-gpu --screenshot="$SHOTS/$2.png" \
		--window-size="${3:-1280,2400}" "$1" 2>/dev/null
	[ -s "$DOM" ]
	[ -s "$SHOTS/$2.png" ]
	run grep -E ':CONSOLE[:(]' "$log"
	echo "$output"
	[ "$status" -eq 1 ]
}

# check_page KIND BMF FIGURE...: the DOM Chromium read holds each FIGURE (an id; a
# figure drawn holds an SVG, "-absent" after it the line saying why there is none, and
# no figure of that id);
# every data-* figure in it equals BMF's; every figure of BMF that a page of KIND
# shows is in it; no address outside the page.
check_page()
{
	run python3 - "$DOM" "$@" <<-'EOF'
	import json, sys
	from html.parser import HTMLParser
	dom, kind, bmf_path, figures = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
	bmf = json.load(open(bmf_path))
	rows, ids, svgs, outside = [], set(), {}, []
	class Page(HTMLParser):
	    stack = []
	    def handle_starttag(self, tag, attrs):
	        a = dict(attrs)
	        if "id" in a:
	            ids.add(a["id"])
	            self.stack.append(a["id"])
	        if tag == "svg" and self.stack:
	            svgs[self.stack[-1]] = True
	        if "data-bench" in a:
	            rows.append(a)
	        for k in ("src", "href"):
	            if k in a and not a[k].startswith("#"):
	                outside.append(a[k])
	        if tag in ("script", "link", "img", "iframe"):
	            outside.append(tag)
	Page().feed(open(dom).read())
	bad = []
	for f in figures:
	    if f.endswith("-absent"):
	        if f not in ids:
	            bad.append(f"no line says why {f[:-7]} is absent")
	        if f[:-7] in ids:
	            bad.append(f"{f[:-7]} is there and said absent")
	    elif f not in ids:
	        bad.append(f"figure {f} missing")
	    elif f not in ("fig-verifier", "fig-lines", "fig-verdicts",
	                                    "fig-events", "fig-figures") and f not in svgs:
	        bad.append(f"figure {f} has no SVG")
	seen = set()
	for a in rows:
	    b, m = a["data-bench"], a["data-measure"]
	    entry = bmf.get(b, {}).get(m)
	    if entry is None:
	        bad.append(f"{b} {m} in the page, not in the BMF file")
	        continue
	    seen.add((b, m))
	    for key, name in (("value", "data-value"), ("lower_value", "data-lower"),
	                      ("upper_value", "data-upper")):
	        if (name in a) != (key in entry) or (key in entry and
	                                             float(a[name]) != entry[key]):
	            bad.append(f"{b} {m} {key}: page {a.get(name)}, BMF {entry.get(key)}")
	shown = {"measure": ("latency", "sample-percent", "verified-instructions",
	                     "translated-instructions", "jited-bytes"),
	         "compare": ("latency", "scaling", "sample-percent", "points",
	                     "verified-instructions", "translated-instructions",
	                     "jited-bytes")}[kind]
	for b, measures in bmf.items():
	    for m in measures:
	        if ((m in shown or m.endswith("-change-percent") or b.startswith("cost/live/"))
	                and (b, m) not in seen):
	            bad.append(f"{b} {m} in the BMF file, not in the page")
	if outside:
	    bad.append("the page reaches outside itself: " + ", ".join(outside))
	print(f"{len(seen)} figures equal the BMF file's")
	print("\n".join(bad))
	sys.exit(1 if bad else 0)
	EOF
	echo "$output"
	[ "$status" -eq 0 ]
}
