#!/usr/bin/env bash
# preempt_generated_test.sh PORT COMMITTED MKPREEMPT: the committed
# platforms/PORT/preempt.S must be exactly what mkpreempt prints from the
# port's table today. On a difference, regenerate it:
#   bazel run //platforms:mkpreempt -- PORT > platforms/PORT/preempt.S
set -uo pipefail
port=$1 committed=$2 mkpreempt=$3
out=$(mktemp)
"$mkpreempt" "$port" >"$out" || { echo "mkpreempt $port failed"; exit 1; }
if ! diff -u "$committed" "$out"; then
  echo "FAIL: platforms/$port/preempt.S is not what mkpreempt generates (regenerate it: see the header of this test)"
  exit 1
fi
echo "platforms/$port/preempt.S: $(wc -l <"$out") lines, identical to mkpreempt's output"
