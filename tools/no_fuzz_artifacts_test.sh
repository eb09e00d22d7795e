#!/usr/bin/env bash
# No libFuzzer artifact at the top of the tree, and .gitignore keeps every
# kind of them out of commits (findings worth keeping live in
# fuzz/findings/). Argument: the .gitignore. The artifacts at the top are
# the test's inputs (//:fuzz_artifacts, a glob: none when the tree is
# clean), found at the top of its runfiles; without Bazel, the checkout's.
set -uo pipefail
ignore=$1
top=${TEST_SRCDIR:+$TEST_SRCDIR/${TEST_WORKSPACE:-safepoint}}
top=${top:-$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)}
bad=0
for kind in crash leak timeout oom slow-unit; do
  grep -qx "$kind-\*" "$ignore" || { echo "FAIL: .gitignore does not cover $kind-*"; bad=1; }
done
grep -qx '!/fuzz/findings/\*\*' "$ignore" || { echo "FAIL: .gitignore does not let fuzz/findings/ keep a finding"; bad=1; }
shopt -s nullglob
for f in "$top"/crash-* "$top"/leak-* "$top"/timeout-* "$top"/oom-* "$top"/slow-unit-*; do
  echo "FAIL: a fuzzer artifact at the top of the tree: ${f##*/} (move it into fuzz/findings/ with what it shows, or delete it)"
  bad=1
done
[ $bad = 0 ] && echo "no fuzzer artifacts at the top; .gitignore covers crash-, leak-, timeout-, oom- and slow-unit-"
exit $bad
