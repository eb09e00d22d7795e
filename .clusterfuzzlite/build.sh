#!/usr/bin/env bash
# ClusterFuzzLite (and OSS-Fuzz) build of safepoint's fuzz targets.
#
# Run by the image's `compile` with the OSS-Fuzz environment: $CC, $CXX,
# $CFLAGS, $CXXFLAGS (the sanitizer's flags, including
# -fsanitize=fuzzer-no-link), $LIB_FUZZING_ENGINE, $SANITIZER, $SRC, $OUT.
# For every cc_test in fuzz/ whose name ends in _fuzz (bazel query, so a new
# target is picked up without touching this file) it leaves in $OUT:
#   NAME                   the target, built with those flags
#   NAME.dict              its dictionary (the -dict= of its BUILD args)
#   NAME_seed_corpus.zip   its checked-in corpus (fuzz/corpus/...)
#   NAME.options           its -max_len, -timeout and -entropic_scale_per_exec_time, for libFuzzer
#
# Only x86-64 is fuzzed here: ClusterFuzzLite runs x86-64 targets only, so
# this is the native amd64 build. The emulated ports (arm64, loong64,
# riscv64, and amd64 under QEMU) are fuzzed by the nightly workflow
# (.github/workflows/fuzz-nightly.yml, ci/fuzz-nightly.sh) through the
# runner, under each port's QEMU.
#
# The way OSS-Fuzz's Bazel projects build: Bazel's own C++ toolchain,
# configured from $CC and $CXX (the project's clang-16 toolchains stay out
# of it), the sanitizer flags as --conlyopt/--cxxopt, the sanitizers and
# the engine as --linkopt, libc++ when $CXXFLAGS asks for it, standalone
# spawns. Its outputs go to a directory per sanitizer
# (--platform_suffix=cflite-$SANITIZER), so a checkout's ordinary builds
# are not invalidated. The fuzz targets link libFuzzer themselves
# (-fsanitize=fuzzer), so libFuzzer is the only engine. Extra Bazel flags:
# $SAFEPOINT_BAZEL_FLAGS (ci/cflite_build_test.sh passes its own).
set -uo pipefail

die() { echo ".clusterfuzzlite/build.sh: $*" >&2; exit 1; }

for v in CC CXX OUT; do
  [ -n "${!v:-}" ] || die "\$$v is not set (run by OSS-Fuzz's compile, or ci/cflite_build_test.sh)"
done
CFLAGS=${CFLAGS:-}
CXXFLAGS=${CXXFLAGS:-}
LIB_FUZZING_ENGINE=${LIB_FUZZING_ENGINE:--fsanitize=fuzzer}
SANITIZER=${SANITIZER:-address}
case "${FUZZING_ENGINE:-libfuzzer}" in
  libfuzzer) ;;
  *) die "FUZZING_ENGINE=$FUZZING_ENGINE: the fuzz targets link libFuzzer themselves; only libfuzzer is supported" ;;
esac

# The checkout: this script's parent folder when it is one, else the
# current folder (the Dockerfile's WORKDIR), else $SRC/safepoint.
is_checkout() { [ -f "$1/WORKSPACE" ] && grep -q 'workspace(name = "safepoint")' "$1/WORKSPACE"; }
here=$(cd "$(dirname "$0")" && pwd)
if is_checkout "$here/.."; then top=$(cd "$here/.." && pwd)
elif is_checkout "$PWD"; then top=$PWD
elif is_checkout "${SRC:-/src}/safepoint"; then top=${SRC:-/src}/safepoint
else die "no safepoint checkout next to $0, in $PWD or in ${SRC:-/src}/safepoint"
fi
cd "$top" || die "cannot enter $top"
command -v bazel >/dev/null || die "bazel is not on PATH (the Dockerfile installs it)"
command -v python3 >/dev/null || die "python3 is not on PATH"
command -v zip >/dev/null || die "zip is not on PATH"
mkdir -p "$OUT" || die "cannot create $OUT"

# .bazelrc.ports (the --configs; ignored here but imported by .bazelrc).
bash platforms/toolchains/ports.sh bazelrc || die "cannot write .bazelrc.ports"

# The flags.
cxxopts=-std=c++20
flags=(
  --platform_suffix="cflite-$SANITIZER"
  --extra_toolchains=@local_config_cc_toolchains//:cc-toolchain-k8
  --repo_env=CC="$CC" --repo_env=CXX="$CXX"
  --action_env=CC="$CC" --action_env=CXX="$CXX"
  --spawn_strategy=standalone
  --verbose_failures
)
for w in $CFLAGS; do flags+=(--conlyopt="$w"); done
for w in $CXXFLAGS; do flags+=(--cxxopt="$w"); done
# Link with what the compile asked for: the sanitizers' and coverage's
# runtimes, linker and thread flags, and libc++.
linkopts=()
sanitized=
for w in $CFLAGS $CXXFLAGS; do
  case "$w" in
    -fsanitize=*|-fsanitize-*) linkopts+=("$w"); sanitized=1 ;;
    -fprofile-instr-generate|-fcoverage-mapping|-pthread|-Wl,*) linkopts+=("$w") ;;
  esac
done
# Bazel's toolchain links with $CC, the C driver, which leaves out the
# sanitizers' C++ parts (UBSan's vptr and function checks need them).
[ -n "$sanitized" ] && linkopts+=(-fsanitize-link-c++-runtime)
case " $CXXFLAGS " in
  *" -stdlib=libc++ "*) cxxopts+=:-stdlib=libc++; linkopts+=(-stdlib=libc++ -lc++) ;;
esac
for w in $LIB_FUZZING_ENGINE; do linkopts+=("$w"); done
# Each once, in order.
declare -A seen=()
for w in "${linkopts[@]}"; do
  [ -n "${seen[$w]:-}" ] && continue
  seen[$w]=1
  flags+=(--linkopt="$w")
done
# The toolchain's C++ options (it asks the compiler for its include
# directories with these, so libc++'s are known to it).
flags+=(--repo_env=BAZEL_CXXOPTS="$cxxopts")
# shellcheck disable=SC2206 # a word list on purpose
flags+=(${SAFEPOINT_BAZEL_FLAGS:-})

# The targets.
query='kind(cc_test, attr(name, "_fuzz$", //fuzz:all))'
targets_tsv=$(timeout -k 30 600 bazel query --output=xml "$query" 2>/dev/null | python3 ci/fuzz_targets.py --root="$top") \
  || die "cannot list the fuzz targets (bazel query '$query')"
[ -n "$targets_tsv" ] || die "no fuzz targets in fuzz/"
labels=()
while IFS=$'\t' read -r label _; do labels+=("$label"); done <<<"$targets_tsv"

echo "build.sh: SANITIZER=$SANITIZER CC=$CC CXX=$CXX; targets: ${labels[*]}"
echo "build.sh: bazel build ${flags[*]}"
timeout -k 60 3600 bazel build "${flags[@]}" -- "${labels[@]}" || die "bazel build failed (or took over an hour)"
bin_dir=$(timeout -k 10 300 bazel info "${flags[@]}" bazel-bin 2>/dev/null) || die "bazel info bazel-bin failed"

while IFS=$'\t' read -r label name dict corpora opts; do
  pkg=${label#//}; pkg=${pkg%%:*}
  src="$bin_dir/$pkg/$name"
  [ -x "$src" ] || die "$label built, but $src is missing"
  rm -f "$OUT/$name"
  cp "$src" "$OUT/$name" || die "cannot copy $src to $OUT"
  # Its runfiles (a target's data: gobinary_fuzz's base Go binaries),
  # where the target looks for them next to its executable.
  rm -rf "$OUT/$name.runfiles"
  if [ -d "$src.runfiles" ]; then
    cp -rL "$src.runfiles" "$OUT/$name.runfiles" || die "cannot copy the runfiles of $name"
  fi
  if [ "$dict" != - ]; then
    cp "$dict" "$OUT/$name.dict" || die "cannot copy $dict"
  fi
  if [ "$corpora" != - ]; then
    rm -f "$OUT/${name}_seed_corpus.zip"
    IFS=, read -r -a dirs <<<"$corpora"
    files=()
    for d in "${dirs[@]}"; do
      [ -d "$d" ] || die "$name: its corpus $d is not a folder"
      while IFS= read -r f; do files+=("$f"); done < <(find "$d" -type f | sort)
    done
    if [ ${#files[@]} -gt 0 ]; then
      zip -q -j "$OUT/${name}_seed_corpus.zip" "${files[@]}" || die "cannot zip the corpus of $name"
    fi
  fi
  # libFuzzer options the target's BUILD args give; -rss_limit_mb is left
  # to the sanitizer's default (an ASan build needs more memory).
  {
    echo "[libfuzzer]"
    for o in $opts; do
      case "$o" in
        -max_len=*|-timeout=*|-entropic_scale_per_exec_time=*) k=${o#-}; echo "${k%%=*} = ${o#*=}" ;;
      esac
    done
  } >"$OUT/$name.options"
  echo "build.sh: $OUT/$name"
done <<<"$targets_tsv"

# Coverage builds: the sources, where OSS-Fuzz's coverage report looks for them.
if [ "$SANITIZER" = coverage ]; then
  exec_root=$(timeout -k 10 300 bazel info "${flags[@]}" execution_root 2>/dev/null) || die "bazel info execution_root failed"
  mkdir -p "$OUT/proc/self/cwd"
  (cd "$exec_root" && find -L . \( -name '*.h' -o -name '*.cc' -o -name '*.S' \) -not -path './external/*' -print0 \
     | xargs -0 cp --parents -t "$OUT/proc/self/cwd") || die "cannot copy the sources for coverage"
fi
