#!/usr/bin/env bash
# Checks ci/fuzz_targets.py and ci/fuzz_report.py on made-up inputs: a
# bazel query answer (a target with BUILD args, one without that falls back
# to fuzz/corpus/STEM/ and fuzz/STEM.dict), and a fuzzing run's folder
# (fork-mode and plain libFuzzer stats lines, a crash and a timeout, a
# build that failed; ci/ceiling.sh's lines beside them). Runs as
# //ci:fuzz_tools_test or by hand.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
die() { echo "fuzz_tools_test: FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/fuzz_tools_test.XXXXXX") || die "no temporary folder"
trap 'rm -rf "$tmp"' EXIT

# --- fuzz_targets.py --------------------------------------------------------
mkdir -p "$tmp/root/fuzz/corpus/plain"
: >"$tmp/root/fuzz/plain.dict"
cat >"$tmp/query.xml" <<'EOF'
<?xml version="1.1" encoding="UTF-8" standalone="no"?>
<query version="2">
    <rule class="cc_test" location="/x/fuzz/BUILD.bazel:22:8" name="//fuzz:parser_fuzz">
        <string name="name" value="parser_fuzz"/>
        <list name="copts">
            <string value="-fsanitize=fuzzer"/>
        </list>
        <list name="args">
            <string value="-runs=20000"/>
            <string value="-seed=1"/>
            <string value="-max_len=2048"/>
            <string value="-timeout=30"/>
            <string value="-dict=fuzz/parser.dict"/>
            <string value="fuzz/corpus/parser"/>
        </list>
    </rule>
    <rule class="cc_test" location="/x/fuzz/BUILD.bazel:40:8" name="//fuzz:plain_fuzz">
        <string name="name" value="plain_fuzz"/>
    </rule>
    <rule class="cc_test" location="/x/fuzz/BUILD.bazel:50:8" name="//fuzz:bare_fuzz">
        <string name="name" value="bare_fuzz"/>
    </rule>
</query>
EOF
got=$(python3 "$here/fuzz_targets.py" --root="$tmp/root" <"$tmp/query.xml") || die "fuzz_targets.py failed"
want=$(printf '%s\t%s\t%s\t%s\t%s\n' \
  //fuzz:parser_fuzz parser_fuzz fuzz/parser.dict fuzz/corpus/parser "-max_len=2048 -timeout=30" \
  //fuzz:plain_fuzz plain_fuzz fuzz/plain.dict fuzz/corpus/plain - \
  //fuzz:bare_fuzz bare_fuzz - - -)
[ "$got" = "$want" ] || die "fuzz_targets.py printed
$got
instead of
$want"
python3 "$here/fuzz_targets.py" </dev/null >/dev/null 2>&1 && die "fuzz_targets.py accepted an empty query answer"
echo "not xml" | python3 "$here/fuzz_targets.py" >/dev/null 2>&1 && die "fuzz_targets.py accepted a query answer that is not XML"

# --- fuzz_report.py ---------------------------------------------------------
out="$tmp/out"
mkdir -p "$out/logs/amd64" "$out/logs/arm64" "$out/crashes/amd64/a_fuzz" "$out/crashes/arm64/a_fuzz"
printf 'config\ttarget\tstatus\trc\tseconds\tcorpus_before\tcorpus_after\tlog\n' >"$out/results.tsv"
printf 'amd64\ta_fuzz\tok\t0\t39\t7\t436\tlogs/amd64/a_fuzz.fuzz.log\n' >>"$out/results.tsv"
printf 'arm64\ta_fuzz\tfound\t70\t24\t4\t4\tlogs/arm64/a_fuzz.fuzz.log\n' >>"$out/results.tsv"
printf 'loong64\ta_fuzz\tbuild-failed\t1\t0\t-\t-\tlogs/loong64/build.log\n' >>"$out/results.tsv"
cat >"$out/logs/amd64/a_fuzz.fuzz.log" <<'EOF'
INFO: -fork=1: 7 seed inputs, starting to fuzz in /tmp/x
#58854: cov: 2513 ft: 2513 corp: 7 exec/s: 29427 oom/timeout/crash: 0/0/0 time: 2s job: 1 dft_time: 0
#2120509: cov: 1718 ft: 2648 corp: 436 exec/s: 73782 oom/timeout/crash: 0/0/0 time: 30s job: 6 dft_time: 0
INFO: exiting: 0 time: 30s
EOF
# A plain (not fork-mode) run's stats line.
cat >"$out/logs/arm64/a_fuzz.fuzz.log" <<'EOF'
==safepoint-fuzz== ERROR: protocol oracle: a race [arm64]
==safepoint-fuzz== ERROR: |  at main.main+0x10
==77== ERROR: libFuzzer: deadly signal
#1089	DONE   cov: 6 ft: 7 corp: 4/10b lim: 4 exec/s: 45 rss: 41Mb
EOF
printf 'XY' >"$out/crashes/arm64/a_fuzz/crash-034f"
printf 'TTT' >"$out/crashes/arm64/a_fuzz/timeout-1a10"
# An artifact that passed when run again alone (a fork job's crash that
# needs what earlier inputs left), and a slow input, which is no finding.
printf 'PP' >"$out/crashes/arm64/a_fuzz/crash-77aa"
printf 'SS' >"$out/crashes/arm64/a_fuzz/slow-unit-5e5e"
cat >"$out/logs/arm64/a_fuzz.repro-crash-77aa.log" <<'EOF2'
Dictionary: 8 entries
INFO: Seed: 1
/some/path/a_fuzz: Running 1 inputs 1 time(s) each.
Running: /out/crashes/arm64/a_fuzz/crash-77aa
***
*** NOTE: fuzzing was not performed, you have only
***       executed the target code on a fixed set of inputs.
***
Executed /out/crashes/arm64/a_fuzz/crash-77aa in 72 ms
a_fuzz: 1 executions: per execution decode 5 us, case 3928 us
EOF2
cat >"$out/logs/arm64/a_fuzz.repro-crash-034f.log" <<'EOF'
INFO: Seed: 1
/some/path/a_fuzz: Running 1 inputs 1 time(s) each.
Running: /out/crashes/arm64/a_fuzz/crash-034f
a_fuzz: found XY
==21978== ERROR: libFuzzer: deadly signal
    #0 0x55 in __sanitizer_print_stack_trace
EOF
python3 "$here/fuzz_report.py" --out="$out" --time=30 --mode=opt --corpus-dir=/c --extra="--jobs=1" \
  || die "fuzz_report.py failed"
r="$out/report.md"
[ -s "$r" ] || die "no report.md"
expect() { grep -qF -- "$1" "$r" || die "report.md lacks: $1"$'\n'"$(cat "$r")"; }
expect "| amd64 | a_fuzz | ok | 2,120,509 | 73,782 | 70,683 | 1,718 | 2,648 | 7 → 436 | 0 | 0 | 0 |"
expect "| arm64 | a_fuzz | **found** | 1,089 | 45 | - | 6 | 7 | 4 → 4 | 2 | 1 | 0 |"
expect '- `crash-77aa` (2 bytes): `(it said nothing: replayed alone, it passed; see the log)` / `the campaign'"'"'s log said: protocol oracle: a race [arm64]`'
grep -q "per execution decode" "$r" && die "report.md quotes a passing replay's exit summary as its finding"
grep -q "slow-unit" "$r" && die "report.md lists a slow input as a finding"
expect "| loong64 | a_fuzz | **build-failed** (exit 1) | - | - | - | - | - | - | 0 | 0 | 0 |"
expect "### arm64 / a_fuzz"
expect "bazel build --config=arm64 -c opt --jobs=1 //fuzz:a_fuzz"
expect '- `crash-034f` (2 bytes): `a_fuzz: found XY` / `==21978== ERROR: libFuzzer: deadly signal`'
expect 'platforms/toolchains/run --config=arm64 "$BIN" "$FUZZ_OUT/crashes/arm64/a_fuzz/crash-034f"'
expect '- `timeout-1a10` (3 bytes): `(not run again)`'
expect "- loong64 / a_fuzz: build-failed (exit 1)"
grep -q "Running 1 inputs" "$r" && die "report.md quotes libFuzzer's 'Running 1 inputs' line"
grep -q "trap+SIGURG" "$r" && die "report.md has a ceiling table with no ceiling.tsv"
# ci/ceiling.sh's lines: one measured, one not, one malformed (skipped).
printf 'amd64\t28571\t24336\t0.86\t3 rounds of 2000, one CPU, -c opt\n' >"$out/ceiling.tsv"
printf 'loong64\t-\t-\t-\tasync_bench did not build\n' >>"$out/ceiling.tsv"
printf 'garbage line\n' >>"$out/ceiling.tsv"
python3 "$here/fuzz_report.py" --out="$out" --time=30 --mode=opt --corpus-dir=/c || die "fuzz_report.py failed with a ceiling.tsv"
expect "| amd64 | 28571 | 24336 | 0.86 | a_fuzz 70,683 | 3 rounds of 2000, one CPU, -c opt |"
expect "| loong64 | - | - | - | a_fuzz - | async_bench did not build |"
grep -q "garbage" "$r" && die "report.md shows a malformed ceiling.tsv line"
python3 "$here/fuzz_report.py" --bogus=1 >/dev/null 2>&1 && die "fuzz_report.py accepted an unknown flag"
# What ci/fuzz.sh and ci/fuzz-nightly.sh list as findings: crash before
# timeout, never a slow unit; a folder that is not there has none.
a="$out/crashes/arm64/a_fuzz"
got=$(python3 "$here/fuzz_report.py" --findings="$a") || die "fuzz_report.py --findings failed"
want=$(printf '%s\n' "$a/crash-034f" "$a/crash-77aa" "$a/timeout-1a10")
[ "$got" = "$want" ] || die "--findings listed:"$'\n'"$got"$'\n'"want:"$'\n'"$want"
[ -z "$(python3 "$here/fuzz_report.py" --findings="$out/nowhere")" ] || die "--findings listed a folder that is not there"
echo "fuzz_tools_test: ok"
