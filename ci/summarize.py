#!/usr/bin/env python3
"""Reads the test XML that bazel test left per config and prints the results.

Usage: summarize.py [--matrix] LOGDIR CONFIG...

LOGDIR/<config>/ holds a copy of that config's testlogs tree and a file
targets.txt listing the test targets with the status Bazel gave each. Every
GoogleTest case counts once per run; a target that left no XML (it failed to
build, crashed before GoogleTest started, or timed out) counts as one failed
case named after the target, so no result is lost.
"""
import os
import sys
import xml.etree.ElementTree as ET


def cases_of(xml_path):
    """Yields (suite.case, outcome, message) from one GoogleTest XML file."""
    try:
        root = ET.parse(xml_path).getroot()
    except (ET.ParseError, OSError) as e:
        yield ("<unreadable %s>" % xml_path, "failed", str(e))
        return
    for tc in root.iter("testcase"):
        name = "%s.%s" % (tc.get("classname", "?"), tc.get("name", "?"))
        failures = tc.findall("failure") + tc.findall("error")
        if failures:
            msg = (failures[0].get("message") or failures[0].text or "").strip().splitlines()
            yield (name, "failed", msg[0] if msg else "")
        elif tc.get("result") == "skipped" or tc.get("status") == "notrun" or tc.find("skipped") is not None:
            sk = tc.find("skipped")
            yield (name, "skipped", (sk.get("message") if sk is not None else "") or "")
        else:
            yield (name, "passed", "")


def target_dir(logdir, config, target):
    # //platforms:platform_test -> platforms/platform_test
    pkg, _, name = target[2:].partition(":")
    return os.path.join(logdir, config, "testlogs", pkg, name)


def collect(logdir, config):
    """Returns {case: [outcomes]} and a list of (case, message) failures."""
    results, problems = {}, []
    listing = os.path.join(logdir, config, "targets.txt")
    targets = []
    if os.path.exists(listing):
        with open(listing) as f:
            targets = [l.split() for l in f if l.strip()]
    for parts in targets:
        target, status = parts[0], (parts[1] if len(parts) > 1 else "UNKNOWN")
        if status == "SKIPPED":  # incompatible with this config (a host-only test)
            continue
        d = target_dir(logdir, config, target)
        xmls = []
        for root, _, files in os.walk(d):
            xmls += [os.path.join(root, f) for f in files if f == "test.xml"]
        # Bazel leaves older runs' XML behind: a single run writes
        # DIR/test.xml, --runs_per_test writes DIR/run_K_of_N/test.xml. Keep
        # whichever of the two kinds the latest run wrote.
        top = [x for x in xmls if os.path.dirname(x) == d]
        runs = [x for x in xmls if os.path.dirname(x) != d]
        if top and runs:
            newest = lambda xs: max(os.path.getmtime(x) for x in xs)
            xmls = top if newest(top) >= newest(runs) else runs
        failed_cases = 0
        seen = 0
        for x in sorted(xmls):
            for name, outcome, msg in cases_of(x):
                seen += 1
                results.setdefault(name, []).append(outcome)
                if outcome == "failed":
                    failed_cases += 1
                    problems.append((name, msg))
        # A target Bazel did not pass, with no failed case to show for it
        # (no XML, a crash after the last case, a timeout): one failure.
        if seen == 0 or (status not in ("PASSED", "FLAKY") and failed_cases == 0):
            name = "%s [%s]" % (target, status)
            results.setdefault(name, []).append("failed")
            problems.append((name, "no failed test case recorded; see the target's test.log"))
    return results, problems


def main(argv):
    matrix = False
    if argv and argv[0] == "--matrix":
        matrix, argv = True, argv[1:]
    if len(argv) < 2:
        print("usage: summarize.py [--matrix] LOGDIR CONFIG...", file=sys.stderr)
        return 2
    logdir, configs = argv[0], argv[1:]
    totals = {"passed": 0, "failed": 0, "skipped": 0}
    per_config = {}
    for c in configs:
        results, problems = collect(logdir, c)
        per_config[c] = results
        counts = {"passed": 0, "failed": 0, "skipped": 0}
        for outcomes in results.values():
            for o in outcomes:
                counts[o] += 1
        for k in totals:
            totals[k] += counts[k]
        print("%-11s %4d passed, %d failed, %d skipped" % (c + ":", counts["passed"], counts["failed"], counts["skipped"]))
        for name, msg in problems[:20]:
            print("    FAILED %s: %s" % (name, msg[:160]))
        if len(problems) > 20:
            print("    ... and %d more failures (see %s/%s)" % (len(problems) - 20, logdir, c))
    if matrix:
        names = sorted(set(n for r in per_config.values() for n in r))
        width = max([len(n) for n in names] + [10])
        print()
        print("%-*s  %s" % (width, "case", "  ".join("%-10s" % c for c in configs)))
        for n in names:
            row = []
            for c in configs:
                outs = per_config[c].get(n)
                if not outs:
                    cell = "-"
                elif "failed" in outs:
                    cell = "FAIL" if len(outs) == 1 else "FAIL %d/%d" % (outs.count("failed"), len(outs))
                elif all(o == "skipped" for o in outs):
                    cell = "skip"
                else:
                    cell = "ok" if len(outs) == 1 else "ok x%d" % len(outs)
                row.append("%-10s" % cell)
            print("%-*s  %s" % (width, n, "  ".join(row)))
        print()
    line = "%d passed, %d failed" % (totals["passed"], totals["failed"])
    if totals["skipped"]:
        line += ", %d skipped" % totals["skipped"]
    print(line)
    return 1 if totals["failed"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
