#!/usr/bin/env bash
# Runs the benchmarks on every config (or --arch=...): cooperative
# preemption (preemptone latency next to the mcall/gogo round trip, the
# prologue check's cost) and armed, fully checked asynchronous preemptions
# next to the bare trap+SIGURG ceiling. Figures only; nothing is asserted.
#
#   ci/bench.sh [--arch=amd64,arm64,...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.." || exit 2
VALID=(amd64 amd64_qemu arm64 loong64)
configs=("${VALID[@]}")
for a in "$@"; do
  case "$a" in
    --arch=*) IFS=, read -r -a configs <<<"${a#--arch=}" ;;
    *) echo "ci/bench.sh: unknown flag '$a'" >&2; exit 2 ;;
  esac
done
for c in "${configs[@]}"; do
  ok=; for v in "${VALID[@]}"; do [ "$c" = "$v" ] && ok=1; done
  [ -n "$ok" ] || { echo "ci/bench.sh: unknown architecture '$c'; valid: ${VALID[*]}" >&2; exit 2; }
done
TOOLS=${SAFEPOINT_TOOLS:-/opt/safepoint-tools}
[ -f "$TOOLS/.stamp-proved" ] || bash "$here/setup.sh" || exit 2
rc=0
for c in "${configs[@]}"; do
  echo "== $c"
  log=$(mktemp)
  if ! bazel build --config="$c" //runtime:coop_bench //cmd:async_bench >"$log" 2>&1; then
    cat "$log"; rm -f "$log"; rc=1; continue
  fi
  rm -f "$log"
  bin=$(bazel info --config="$c" bazel-bin 2>/dev/null)
  platforms/toolchains/run-"$c" "$bin/runtime/coop_bench" || rc=1
  platforms/toolchains/run-"$c" "$bin/cmd/async_bench" 5000 || rc=1
done
exit $rc
