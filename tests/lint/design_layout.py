#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""docs/design.md's layout names every source file and every folder.

design_layout.py [TREE]: print each source file and folder of the git tree
TREE (this one by default) that the layout section of its docs/design.md (the
first ``` block there) leaves out, and exit 1 if any. A file is named by its
name without extensions (sink_ipfix for sink_ipfix.c and its header), a
folder by its name and a slash (cost/). The shipped code and the lab
(SOURCE_DIRS) are checked file by file; the tests and benchmarks
(FOLDER_DIRS), whose files their folder's line describes, folder by folder.
"""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parents[2])
DESIGN = ROOT / "docs/design.md"
SOURCE_DIRS = ("xdp", "common", "lib", "agent", "testing", "tools")
FOLDER_DIRS = ("tests", "bench")
SOURCE = re.compile(r"\.(c|h|cc|py|sh|bash)$")


def layout():
    text = DESIGN.read_text()
    section = re.search(r"^## The layout\n(.*?)^## ", text, re.S | re.M)
    block = section and re.search(r"^```\n(.*?)^```", section.group(1), re.S | re.M)
    if not block:
        sys.exit(f"design_layout.py: no layout block under '## The layout' in {DESIGN}")
    return block.group(1)


def tracked(dirs):
    out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "--", *dirs],
                         check=True, capture_output=True, text=True).stdout
    return [pathlib.PurePosixPath(p) for p in out.split()]


def named(word, text):
    """word in text, not as the tail of a longer name (a folder's slash ends it)."""
    end = "" if word.endswith("/") else r"(?![\w-])"
    return re.search(r"(?<![\w.-])" + re.escape(word) + end, text) is not None


def missing(text):
    files = [p for p in tracked(SOURCE_DIRS)
             if SOURCE.search(p.name) or (ROOT / p).stat().st_mode & 0o111]
    stems = sorted({(str(p.parent), p.name.split(".")[0]) for p in files})
    gone = [f"{d}/{stem}" for d, stem in stems if not named(stem, text)]
    # The folders that hold sources, and those of the tests and benchmarks.
    folders = {p.parent for p in files}
    folders |= {pathlib.PurePosixPath(*p.parts[:2]) for p in tracked(FOLDER_DIRS)
                if len(p.parts) > 2}
    folders |= {folder for path in folders for folder in path.parents if str(folder) != "."}
    gone += [f"{d}/" for d in sorted(map(str, folders)) if not named(d.split("/")[-1] + "/", text)]
    return gone


def main():
    gone = missing(layout())
    for name in gone:
        print(f"docs/design.md's layout does not name {name}")
    return 1 if gone else 0


if __name__ == "__main__":
    sys.exit(main())
