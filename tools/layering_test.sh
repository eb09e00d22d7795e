#!/usr/bin/env bash
# The layering test: first proves the checker catches each kind of
# violation on a small synthetic tree, then checks this checkout.
set -uo pipefail
check=$(dirname "$(readlink -f "$0")")/layering.sh
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
mkdir -p "$t"/{core,platforms,runtime,harness,oracle,conformance,cmd}
echo amd64 >"$t/platforms/PORTS"
echo '#include "core/ir.h"' >"$t/runtime/ok.cc"
"$check" "$t" >/dev/null || { echo "FAIL: a clean tree was rejected"; exit 1; }
expect_caught() {  # FILE LINE WHAT
  echo "$2" >"$t/$1"
  if "$check" "$t" >/dev/null; then echo "FAIL: not caught: $3"; exit 1; fi
  rm "$t/$1"
  echo "caught: $3"
}
expect_caught core/up.h '#include "runtime/runtime.h"' "a lower layer (core) including a higher one (runtime)"
expect_caught platforms/up.cc '#include "harness/sweep.h"' "platforms including harness"
expect_caught runtime/up.cc '#include "oracle/decision.h"' "runtime including oracle"
expect_caught harness/up.cc '#include "conformance/rules.h"' "harness including conformance"
expect_caught cmd/side.cc '#include "conformance/rules.h"' "cmd including conformance"
expect_caught oracle/peek.cc '#include "core/functab.h"' "the oracle including the function table"
echo '#include "core/functab.h"' >"$t/oracle/frame_table.cc"
"$check" "$t" >/dev/null || { echo "FAIL: the frame-table oracle may include the function table it judges"; exit 1; }
rm "$t/oracle/frame_table.cc"
echo "allowed: the frame-table oracle including the function table"
expect_caught runtime/arch.cc '#if defined(__x86_64__)' "an architecture macro in the runtime"
expect_caught conformance/name.cc 'if (port == "amd64") {}' "a port name in a suite"
# Under Bazel the tree is the test's declared inputs (tools/BUILD.bazel),
# not the checkout: the result is cached like any test's. Every layer and
# every port of the list must be there, or the check would pass on nothing.
tree=
if [ -n "${TEST_SRCDIR:-}" ]; then
  tree="$TEST_SRCDIR/${TEST_WORKSPACE:-safepoint}"
  for d in core platforms runtime harness realgo oracle conformance fuzz cmd; do
    [ -n "$(find "$tree/$d" -maxdepth 1 -name '*.cc' 2>/dev/null | head -n 1)" ] ||
      { echo "FAIL: no sources of $d/ among the test's inputs (tools/BUILD.bazel)"; exit 1; }
  done
  while read -r p; do
    [ -n "$(find "$tree/platforms/$p" -maxdepth 1 -name '*.cc' 2>/dev/null | head -n 1)" ] ||
      { echo "FAIL: no sources of port $p among the test's inputs"; exit 1; }
  done < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$tree/platforms/PORTS" | grep -v '^$')
fi
"$check" $tree
