# Shared by the cc-<arch> compiler wrappers: one compiler family (clang-16)
# for every target, each with its own sysroot and linker. Sourced, not run.
TOOLS=${SAFEPOINT_TOOLS:-/opt/safepoint-tools}
CLANG=${SAFEPOINT_CLANG:-clang++-16}
# Bazel passes C and C++ sources alike to one tool; clang++ treats .c as C++
# unless told, so pick the driver by the source's suffix.
for a in "$@"; do
  case "$a" in
    *.c) CLANG=${CLANG%++-16}-16 ;;
  esac
done
