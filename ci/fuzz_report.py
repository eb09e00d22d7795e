#!/usr/bin/env python3
"""Writes OUT/report.md for ci/fuzz-nightly.sh.

Reads OUT/results.tsv (one row per config and target: status, exit code,
seconds, corpus files before and after), each run's libFuzzer log (its last
stats line: "#N ... cov: C ft: F corp: K ... exec/s: E ..."), OUT/ceiling.tsv
when there is one (ci/ceiling.sh's lines: config, ceiling, armed, ratio,
note), the artifacts
in OUT/crashes/<config>/<target>/ and what each said when it was run again
(OUT/logs/<config>/<target>.repro-<artifact>.log).

    python3 ci/fuzz_report.py --out=OUT --time=T --mode=M --corpus-dir=DIR [--extra=FLAGS]

What counts as a finding among a run's artifacts is said here only (KINDS);
ci/fuzz.sh and ci/fuzz-nightly.sh ask:

    python3 ci/fuzz_report.py --findings=DIR    (the findings in DIR, a path a line)
"""
import csv
import datetime
import os
import re
import subprocess
import sys

STATS = re.compile(r"^#(\d+)[:\s].*\bcov: (\d+) ft: (\d+) corp: (\d+)")
EXECS_PER_SEC = re.compile(r"\bexec/s: (\d+)")
SECONDS = re.compile(r"\btime: (\d+)s")
# The artifacts that are findings: libFuzzer's crash, timeout, OOM and leak
# files. slow-unit- files are not (inputs over -report_slow_units).
KINDS = ("crash", "timeout", "oom", "leak")


def findings(art_dir):
    """The finding artifacts in art_dir, sorted: the kinds in KINDS' order."""
    arts = sorted(os.listdir(art_dir)) if os.path.isdir(art_dir) else []
    return [a for k in KINDS for a in arts if a.startswith(k + "-") and os.path.isfile(os.path.join(art_dir, a))]


def last_stats(path):
    """execs, exec/s, cov, ft, corp, seconds from the last stats line of a libFuzzer log
    (in fork mode its exec/s is the last job's; its time: the whole run's)."""
    found = None
    try:
        with open(path, errors="replace") as f:
            for line in f:
                m = STATS.match(line)
                if m:
                    e = EXECS_PER_SEC.search(line)
                    t = SECONDS.search(line)
                    found = (int(m.group(1)), int(e.group(1)) if e else None,
                             int(m.group(2)), int(m.group(3)), int(m.group(4)), int(t.group(1)) if t else None)
    except OSError:
        pass
    return found


def what_it_said(path, limit=3, campaign_log=None):
    """The first lines of a reproduction that say something (no frames, no INFO).

    A replay that passed (libFuzzer's "Executed" line, no error) said
    nothing of the finding, whatever the target prints on its way out (the
    preemption fuzzer's summary of its kept runtimes and phases was quoted
    as if it were the crash): then the campaign log's first error headline,
    if it has one, is quoted instead, as the campaign's (which of its
    findings it belongs to, the log does not say)."""
    said = []
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return ["(not run again)"]
    failed = any("ERROR" in l or "deadly signal" in l for l in lines)
    passed = not failed and any(l.startswith("Executed ") for l in lines)
    if not passed:
        for line in lines:
            s = line.strip()
            if not s or s.startswith(("INFO:", "Running:", "Executed ", "#", "MS:", "base unit:", "Dictionary:", "***")):
                continue
            if re.search(r": Running \d+ inputs \d+ time", s):
                continue
            if re.match(r"^#\d+ 0x", s) or s.startswith("0x") or "NOTE:" in s:
                continue
            said.append(s[:200])
            if len(said) == limit:
                break
    if said:
        return said
    out = ["(it said nothing: replayed alone, it passed; see the log)"]
    headline = first_error(campaign_log) if campaign_log else None
    if headline:
        out.append("the campaign's log said: " + headline)
    return out


def first_error(path):
    """The campaign log's first error headline that is not libFuzzer's own, or None."""
    try:
        with open(path, errors="replace") as f:
            for line in f:
                m = re.search(r"ERROR: (.*)", line)
                if m and not m.group(1).startswith(("libFuzzer:", "|")):
                    return m.group(1).strip()[:200]
    except OSError:
        pass
    return None


def read_ceilings(path):
    """config -> (ceiling /s, armed /s, ratio, note) from ci/ceiling.sh's lines; {} when none."""
    found = {}
    try:
        with open(path, errors="replace") as f:
            for line in f:
                cols = line.rstrip("\n").split("\t")
                if len(cols) == 5:
                    found[cols[0]] = tuple(cols[1:])
    except OSError:
        pass
    return found


def git_commit(root):
    try:
        return subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=30).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def fmt(n):
    return "-" if n is None else f"{n:,}"


def main():
    if len(sys.argv) == 2 and sys.argv[1].startswith("--findings="):
        d = sys.argv[1].partition("=")[2]
        for a in findings(d):
            print(os.path.join(d, a))
        return 0
    args = {"--out": None, "--time": "?", "--mode": "opt", "--corpus-dir": "?", "--extra": ""}
    for a in sys.argv[1:]:
        key, _, value = a.partition("=")
        if key not in args:
            print(f"fuzz_report.py: unknown argument {a!r}", file=sys.stderr)
            return 2
        args[key] = value
    out = args["--out"]
    if not out:
        print("fuzz_report.py: --out is required", file=sys.stderr)
        return 2
    mode, extra = args["--mode"], args["--extra"].strip()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(out, "results.tsv")) as f:
        rows = list(csv.DictReader(f, delimiter="\t"))

    lines = [
        "# Fuzzing report",
        "",
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, commit {git_commit(root)}, "
        f"{args['--time']} s per target per config, `-c {mode}`"
        + (f", extra Bazel flags `{extra}`" if extra else "") + ".",
        f"Corpus kept in `{args['--corpus-dir']}`; this report's folder is `{out}` (`$FUZZ_OUT` below).",
        "",
        "Figures are from libFuzzer's last stats line: execs, cov, ft are totals over the run's jobs, exec/s is"
        " the last job's rate (fork mode), and the whole run's is execs over the line's time.",
        "",
        "| config | target | status | execs | exec/s | exec/s, whole run | cov | ft | corpus files (before → after) | crashes | timeouts | ooms |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    crash_sections = []
    whole_run = {}  # config -> [(target, exec/s over the whole run)]
    for r in rows:
        c, t = r["config"], r["target"]
        stats = last_stats(os.path.join(out, r["log"])) if r["status"] != "build-failed" else None
        execs, eps, cov, ft, _, secs = stats if stats else (None,) * 6
        avg = execs // secs if execs is not None and secs else None
        whole_run.setdefault(c, []).append((t, avg))
        art_dir = os.path.join(out, "crashes", c, t)
        found = findings(art_dir)
        by_kind = {k: [a for a in found if a.startswith(k + "-")] for k in KINDS}
        status = {"ok": "ok", "found": "**found**"}.get(r["status"], f"**{r['status']}** (exit {r['rc']})")
        corpus = "-" if r["corpus_before"] == "-" else f"{r['corpus_before']} → {r['corpus_after']}"
        lines.append(f"| {c} | {t} | {status} | {fmt(execs)} | {fmt(eps)} | {fmt(avg)} | {fmt(cov)} | {fmt(ft)} | {corpus} | "
                     f"{len(by_kind['crash']) + len(by_kind['leak'])} | {len(by_kind['timeout'])} | {len(by_kind['oom'])} |")
        if not found:
            continue
        flags = f" {extra}" if extra else ""
        sec = [f"### {c} / {t}", "",
               "Reproduce from the checkout (`FUZZ_OUT` = this report's folder):", "",
               "```",
               f"bazel build --config={c} -c {mode}{flags} //fuzz:{t}",
               f"BIN=\"$(bazel info --config={c} -c {mode}{flags} bazel-bin)/fuzz/{t}\"",
               "```", ""]
        for a in found:
            path = os.path.join(art_dir, a)
            size = os.path.getsize(path)
            said = what_it_said(os.path.join(out, "logs", c, f"{t}.repro-{a}.log"),
                                campaign_log=os.path.join(out, "logs", c, f"{t}.fuzz.log"))
            sec += [f"- `{a}` ({size} bytes): " + " / ".join(f"`{s}`" for s in said),
                    "",
                    "  ```",
                    f"  platforms/toolchains/run --config={c} \"$BIN\" \"$FUZZ_OUT/crashes/{c}/{t}/{a}\"",
                    "  ```",
                    ""]
        crash_sections += sec
    lines.append("")
    ceilings = read_ceilings(os.path.join(out, "ceiling.tsv"))
    if ceilings:
        lines += ["Executions per second next to the machine's own limit, measured on the same machine right after"
                  " each config's campaigns (ci/ceiling.sh: //cmd:async_bench on one CPU, the median of its rounds):"
                  " the ceiling is bare trap+SIGURG round trips per second, armed is fully checked preemptions per"
                  " second (one execution of a campaign runs a whole program, with every armed point of its input).",
                  "",
                  "| config | ceiling, trap+SIGURG /s | armed, fully checked /s | ratio | campaigns' exec/s, whole run | note |",
                  "|---|---:|---:|---:|---|---|"]
        for c in sorted(ceilings, key=lambda k: list(whole_run).index(k) if k in whole_run else len(whole_run)):
            ceiling, armed, ratio, note = ceilings[c]
            runs = ", ".join(f"{t} {fmt(e)}" for t, e in whole_run.get(c, [])) or "-"
            lines.append(f"| {c} | {ceiling} | {armed} | {ratio} | {runs} | {note} |")
        lines.append("")
    if crash_sections:
        lines += ["## Crashes, timeouts and OOMs", ""] + crash_sections
    else:
        lines += ["No crashes, timeouts or OOMs.", ""]
    failed = [r for r in rows if r["status"] not in ("ok", "found")]
    if failed:
        lines += ["## Runs that did not finish", ""]
        for r in failed:
            lines.append(f"- {r['config']} / {r['target']}: {r['status']} (exit {r['rc']}), log `$FUZZ_OUT/{r['log']}`")
        lines.append("")
    lines += ["Logs: `$FUZZ_OUT/logs/<config>/` (build.log, <target>.fuzz.log, <target>.merge.log).", ""]
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
