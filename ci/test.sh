#!/usr/bin/env bash
# Runs every test on every config (each port's CONFIGS in platforms/NAME/port.env,
# ports in platforms/PORTS order): bazel test //..., natively or under QEMU
# 10, then prints a summary per config and a last line "N passed, N failed"
# that counts GoogleTest cases. A whole run (every config, //...) also runs
# the README's commands from another directory (ci/readme_test.sh) and what
# the workflows run besides .ci/run (ci/workflow_steps.sh: actionlint, the
# ClusterFuzzLite files and build), each counted as a case. A run of //...
# that includes the host's native config and an emulated one also runs the
# cross-port differential fuzzer's fixed campaign (ci/differential.sh),
# counted as one case; --differential=on runs it whatever the targets, =off
# never.
#
#   ci/test.sh [--arch=amd64,arm64,...] [--matrix] [--targets='//a/... //b:c']
#              [--logs=DIR] [--differential=auto|on|off] [-- extra bazel test flags]
#
# Runs ci/setup.sh first when the tools are missing. Logs: DIR/<config>/
# (default logs/ in the checkout): bazel.log, the testlogs tree, targets.txt.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
SP_TOP=$top
. "$top/platforms/toolchains/ports.sh"
mapfile -t VALID < <(sp_configs)
configs=("${VALID[@]}")
targets=("//...")
matrix=
logs="$top/logs"
differential=auto
extra=()

die() { echo "ci/test.sh: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
  case "$1" in
    --arch=*)
      ( sp_check_configs "${1#--arch=}" ) 2>&1 | sed 's/^/ci\/test.sh: /' >&2
      [ "${PIPESTATUS[0]}" = 0 ] || exit 2
      IFS=, read -r -a configs <<<"${1#--arch=}" ;;
    --matrix) matrix=--matrix ;;
    --targets=*) read -r -a targets <<<"${1#--targets=}" ;;
    --logs=*) logs=${1#--logs=} ;;
    --) shift; extra=("$@"); break ;;
    --differential=auto|--differential=on|--differential=off) differential=${1#--differential=} ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) die "unknown flag '$1' (see --help)" ;;
  esac
  shift
done

TOOLS=${SAFEPOINT_TOOLS:-/opt/safepoint-tools}
if [ ! -f "$TOOLS/.stamp-proved-$(sp_ports | tr '\n' '-')" ] || ! command -v bazel >/dev/null || ! command -v clang++-16 >/dev/null; then
  echo "ci/test.sh: tools missing; running ci/setup.sh"
  bash "$here/setup.sh" || die "setup failed"
fi

cd "$top" || exit 2
sp_write_bazelrc || die "cannot write .bazelrc.ports"
mkdir -p "$logs"
start=$(date +%s)
for c in "${configs[@]}"; do
  t0=$(date +%s)
  d="$logs/$c"
  rm -rf "$d"; mkdir -p "$d"
  echo "== $c: bazel test ${targets[*]}"
  bazel test --config="$c" --test_summary=short "${extra[@]}" -- "${targets[@]}" >"$d/bazel.log" 2>&1
  rc=$?
  # Status per test target, from Bazel's summary lines.
  sed -nE 's|^(//[^ ]+) +(\(cached\) +)?([A-Z_]+).*|\1 \3|p' "$d/bazel.log" >"$d/targets.txt"
  if [ ! -s "$d/targets.txt" ]; then
    echo "   bazel exited $rc without running tests; last lines of $d/bazel.log:"
    tail -n 15 "$d/bazel.log" | sed 's/^/   | /'
    echo "//:build FAILED_TO_BUILD" >"$d/targets.txt"
  fi
  testlogs=$(bazel info --config="$c" bazel-testlogs 2>/dev/null)
  [ -n "$testlogs" ] && [ -d "$testlogs" ] && cp -rL --preserve=timestamps "$testlogs" "$d/testlogs"
  echo "   bazel exit $rc, $(( $(date +%s) - t0 )) s"
done
# The README's commands, as a user runs them from another directory (only
# in a whole run: they build the command for the configs they name).
summarized=("${configs[@]}")
if [ "${targets[*]}" = "//..." ] && [ "${#configs[@]}" = "${#VALID[@]}" ]; then
  t0=$(date +%s)
  echo "== README commands, from another directory"
  bash "$here/readme_test.sh" --logs="$logs"
  echo "   $(( $(date +%s) - t0 )) s"
  summarized+=(readme)
  # What the workflows run besides .ci/run (actionlint, the ClusterFuzzLite
  # files and build), each a counted case.
  t0=$(date +%s)
  echo "== workflow steps (ci/workflow_steps.sh)"
  bash "$here/workflow_steps.sh" --logs="$logs"
  [ -f "$logs/workflows/targets.txt" ] || {
    mkdir -p "$logs/workflows"; echo "//workflows:steps FAILED" >"$logs/workflows/targets.txt"; }
  echo "   $(( $(date +%s) - t0 )) s"
  summarized+=(workflows)
fi
# The differential fuzzer: the host's native config against one emulated
# config per other port, among the configs of this run.
has_native=
diff_execs=()
for c in "${configs[@]}"; do
  p=$(sp_config_port "$c"); sp_port_env "$p"
  if [ "$P_UNAME_MACHINE" = "$(uname -m)" ]; then
    [ "$(sp_config_mode "$c")" = native ] && ! sp_config_sanitized "$c" && has_native=1
  elif [ "$(sp_config_mode "$c")" = qemu ] && [[ " ${diff_execs[*]} " != *" $c "* ]]; then
    seen=; for e in "${diff_execs[@]}"; do [ "$(sp_config_port "$e")" = "$p" ] && seen=1; done
    [ -n "$seen" ] || diff_execs+=("$c")
  fi
done
if [ "$differential" = on ] || { [ "$differential" = auto ] && [ "${targets[*]}" = "//..." ] && [ -n "$has_native" ] &&
                                 [ ${#diff_execs[@]} -gt 0 ]; }; then
  t0=$(date +%s)
  echo "== the differential fuzzer (ci/differential.sh)"
  dargs=(--logs="$logs")
  [ ${#diff_execs[@]} -gt 0 ] && dargs+=(--configs="$(IFS=,; echo "${diff_execs[*]}")")
  bash "$here/differential.sh" "${dargs[@]}" -- "${extra[@]}" 2>&1 | sed 's/^/   /'
  [ -f "$logs/differential/targets.txt" ] || {
    mkdir -p "$logs/differential"; echo "//differential:campaign FAILED" >"$logs/differential/targets.txt"; }
  echo "   $(( $(date +%s) - t0 )) s"
  summarized+=(differential)
fi
echo
echo "== summary ($(( $(date +%s) - start )) s; logs in $logs)"
python3 "$here/summarize.py" $matrix "$logs" "${summarized[@]}"
