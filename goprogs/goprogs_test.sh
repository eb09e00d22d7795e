#!/usr/bin/env bash
# goprogs_test.sh --programs='P...' --versions='V...' --archs='A...':
# every program built by every Go version for every arch must exit 0 and
# print exactly the line in goprogs/expected/P.txt (the same for every
# version and arch: the programs are deterministic). amd64 binaries run
# natively; the others through platforms/toolchains/run --config=A, which
# starts them under the port's QEMU 10.
set -uo pipefail
for a in "$@"; do
  case "$a" in
    --programs=*) programs=${a#*=} ;;
    --versions=*) versions=${a#*=} ;;
    --archs=*) archs=${a#*=} ;;
    *) echo "goprogs_test: unknown argument '$a'" >&2; exit 2 ;;
  esac
done
top=${TEST_SRCDIR:?}/${TEST_WORKSPACE:?}
runner=$top/platforms/toolchains/run
pass=0 fail=0
for a in $archs; do
  for v in $versions; do
    for p in $programs; do
      bin=$top/goprogs/$v/$a/$p
      want=$(cat "$top/goprogs/expected/$p.txt")
      start=$(date +%s%N)
      if [ "$a" = amd64 ]; then
        got=$("$bin" 2>&1); rc=$?
      else
        got=$("$runner" --config="$a" "$bin" 2>&1); rc=$?
      fi
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
