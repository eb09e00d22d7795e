#!/usr/bin/env python3
"""The fuzz targets of fuzz/ and how each is meant to run, for shell.

Reads `bazel query --output=xml` of the fuzz targets on standard input
(ci/fuzz-nightly.sh and .clusterfuzzlite/build.sh ask for
kind(cc_test, attr(name, "_fuzz$", //fuzz:all))) and prints one line per
target, fields separated by tabs:

    LABEL  NAME  DICT  CORPUS[,CORPUS...]  OPTION[ OPTION...]

all paths relative to the workspace root. They come from the target's own
`args` (the suite's fixed run): `-dict=` is the dictionary, the arguments
that are not flags are its checked-in corpus directories, and the other
flags (-max_len, -timeout, -rss_limit_mb, ...) are kept as the target's
options, less those that only make the suite's run fixed (-runs, -seed).
A target whose args name no corpus or dictionary gets the layout
ARCHITECTURE.md asks of a new target: fuzz/corpus/STEM/ and fuzz/STEM.dict,
STEM being the name less "_fuzz", when they exist. "-" stands for none.

    python3 ci/fuzz_targets.py --root=DIR < query.xml
"""
import os
import sys
import xml.etree.ElementTree as ET

# Flags that make the suite's run a fixed one; a long run chooses its own.
FIXED_RUN_FLAGS = ("-runs=", "-seed=", "-max_total_time=", "-jobs=", "-workers=", "-fork=")


def targets(xml_text, root):
    out = []
    for rule in ET.fromstring(xml_text).iter("rule"):
        label = rule.get("name", "")
        name = label.rsplit(":", 1)[-1]
        args = []
        for lst in rule.iter("list"):
            if lst.get("name") == "args":
                args = [s.get("value", "") for s in lst.iter("string")]
        dict_path, corpora, options = "", [], []
        for a in args:
            if any(ch.isspace() for ch in a):
                raise SystemExit(f"fuzz_targets.py: {label}: argument {a!r} has white space")
            if a.startswith("-dict="):
                dict_path = a[len("-dict="):]
            elif a.startswith("-"):
                if not a.startswith(FIXED_RUN_FLAGS):
                    options.append(a)
            else:
                corpora.append(a)
        stem = name[:-len("_fuzz")] if name.endswith("_fuzz") else name
        if not corpora and os.path.isdir(os.path.join(root, "fuzz", "corpus", stem)):
            corpora = [f"fuzz/corpus/{stem}"]
        if not dict_path and os.path.isfile(os.path.join(root, "fuzz", stem + ".dict")):
            dict_path = f"fuzz/{stem}.dict"
        out.append((label, name, dict_path or "-", ",".join(corpora) or "-", " ".join(options) or "-"))
    return out


def main():
    root = "."
    for a in sys.argv[1:]:
        if a.startswith("--root="):
            root = a[len("--root="):]
        else:
            print(f"fuzz_targets.py: unknown argument {a!r}", file=sys.stderr)
            return 2
    text = sys.stdin.read()
    if not text.strip():
        print("fuzz_targets.py: no query output on standard input", file=sys.stderr)
        return 1
    try:
        rows = targets(text, root)
    except ET.ParseError as e:
        print(f"fuzz_targets.py: the query output is not XML: {e}", file=sys.stderr)
        return 1
    for row in rows:
        print("\t".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
