#!/usr/bin/env bash
# Runs the README's commands as written, from another directory (a fresh
# temporary one holding a copy of examples/, so the README's relative paths
# are the caller's), and checks each one's exit status.
#
#   ci/readme_test.sh [--logs=DIR]
#
# The commands are read from README.md itself (its indented lines starting
# with ./safepoint or bash), so a command added there is tested here. Not
# run: `bazel ...` lines (they need the checkout as their directory) and
# ci/test.sh and ci/conformance.sh (this script is part of the first; CI
# runs it), which are run with --help instead. A command whose README
# comment says it "must fail" must exit 1; every other must exit 0.
#
# Writes DIR/readme/targets.txt and a GoogleTest-style test.xml so that
# ci/summarize.py counts each command as a case (default DIR: logs/).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
logs="$top/logs"
for a in "$@"; do
  case "$a" in
    --logs=*) logs=${a#--logs=} ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "ci/readme_test.sh: unknown flag '$a' (see --help)" >&2; exit 2 ;;
  esac
done

out="$logs/readme"
rm -rf "$out"; mkdir -p "$out/testlogs/readme/commands"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$top/examples" "$work/examples"
mkdir -p "$work/fuzz" && cp -r "$top/fuzz/corpus" "$work/fuzz/corpus"  # the README replays a seed

. "$here/cases.sh"
cases_init Readme

mapfile -t lines < <(sed -nE 's/^    ((\.\/safepoint|bash) .*)$/\1/p' "$top/README.md")
[ "${#lines[@]}" -gt 0 ] || { echo "ci/readme_test.sh: no commands found in README.md" >&2; exit 2; }
n=0
for line in "${lines[@]}"; do
  cmd=${line%%#*}; cmd=$(echo "$cmd" | sed -E 's/ +$//')
  comment=""; [[ "$line" == *"#"* ]] && comment=${line#*#}
  want=0
  [[ "$comment" == *"must fail"* ]] && want=1
  # The README's placeholders: [--arch=...] is optional, run without it.
  cmd=$(echo "$cmd" | sed -E 's/ \[--arch=\.\.\.\]//')
  case "$cmd" in
    "bash ci/test.sh"*|"bash ci/conformance.sh"*) cmd="${cmd%% --*} --help" ;;
  esac
  # From the other directory: the checkout's scripts by their full path.
  run=$(echo "$cmd" | sed -E "s#^\./safepoint#$top/safepoint#; s#^bash (ci|platforms)/#bash $top/\1/#")
  n=$((n + 1))
  t0=$(date +%s)
  (cd "$work" && timeout 1200 bash -c "$run" </dev/null >"$out/$n.log" 2>&1)
  rc=$?
  secs=$(( $(date +%s) - t0 ))
  if [ "$rc" = "$want" ]; then
    echo "   ok   ($rc, ${secs} s) $cmd"
    case_passed "$cmd" "$secs"
  else
    echo "   FAIL (exit $rc, want $want, ${secs} s) $cmd; last lines of $out/$n.log:"
    tail -n 5 "$out/$n.log" | sed 's/^/   | /'
    case_failed "$cmd" "$secs" "exit $rc, want $want (from $work); see $out/$n.log"
  fi
done
cases_write "$out/testlogs/readme/commands/test.xml" "$out/targets.txt" //readme:commands
[ "$cases_failed" = 0 ]
