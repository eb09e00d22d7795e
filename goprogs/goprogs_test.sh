#!/usr/bin/env bash
# goprogs_test.sh --programs='P...' --versions='V...': every program built
# by every Go version for the CPU of the test's config (the data holds
# goprogs/V/ARCH/ for that one ARCH) must exit 0 and print exactly the line
# in goprogs/expected/P.txt (the same for every version and arch: the
# programs are deterministic). Each runs through platforms/toolchains/run
# with the test's config: natively, or under the port's QEMU 10.
set -uo pipefail
for a in "$@"; do
  case "$a" in
    --programs=*) programs=${a#*=} ;;
    --versions=*) versions=${a#*=} ;;
    *) echo "goprogs_test: unknown argument '$a'" >&2; exit 2 ;;
  esac
done
top=${TEST_SRCDIR:?}/${TEST_WORKSPACE:?}
runner=$top/platforms/toolchains/run
config=${SAFEPOINT_CONFIG:?the runner's config (Bazel's test env)}
archs=$(cd "$top/goprogs" && for v in $versions; do ls -d "$v"/*/ 2>/dev/null; done | cut -d/ -f2 | sort -u)
[ -n "$archs" ] || { echo "goprogs_test: no programs in the data"; exit 1; }
pass=0 fail=0
for a in $archs; do
  for v in $versions; do
    for p in $programs; do
      bin=$top/goprogs/$v/$a/$p
      want=$(cat "$top/goprogs/expected/$p.txt")
      start=$(date +%s%N)
      got=$("$runner" --config="$config" "$bin" 2>&1); rc=$?
      ms=$(( ($(date +%s%N) - start) / 1000000 ))
      if [ $rc -ne 0 ]; then
        echo "FAIL go$v $a $p: exit status $rc: $(echo "$got" | head -n 5)"; fail=$((fail + 1))
      elif [ "$got" != "$want" ]; then
        echo "FAIL go$v $a $p: printed '$got', expected '$want'"; fail=$((fail + 1))
      else
        echo "ok   go$v $a $p (${ms} ms)"; pass=$((pass + 1))
      fi
    done
  done
done
echo "goprogs_test: $pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
