#!/usr/bin/env bash
# Installs everything safepoint needs on a fresh Debian 12 machine, as root.
#
# Idempotent: every step checks a stamp or the thing itself first, so a
# second run changes nothing and takes seconds. It never edits the system's
# apt sources: packages from Debian 13 (trixie) and Debian testing are fetched
# by name with private APT_CONFIGs and extracted into one tool directory,
# $SAFEPOINT_TOOLS (default /opt/safepoint-tools), which the build finds
# through the same variable. Versions fetched are logged to
# $SAFEPOINT_TOOLS/versions.log.
#
# Layout of the tool directory:
#   host/          Debian 13 amd64 host programs and the libraries they need
#                  (loongarch64 binutils), patched to run on Debian 12
#   qemu/          static QEMU 10 user-mode emulators
#   apt/           the private apt configurations, lists and downloaded .debs
#   sysroot-loong64/  Debian 13 loong64 glibc, libstdc++ and gcc runtime
#   clang-rt-arm64/ clang-rt-loong64/  clang resource directories with each
#                  target's libFuzzer and sanitizer runtimes
#   bin/           the emulator and objdump entry points the build calls
set -euo pipefail

TOOLS=${SAFEPOINT_TOOLS:-/opt/safepoint-tools}
LOG=${SAFEPOINT_SETUP_LOG:-/tmp/safepoint-setup.log}
mkdir -p "$TOOLS"
: >"$LOG"

say() { echo "setup: $*"; }
die() { echo "setup: error: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (apt-get install is needed)"
[ "$(uname -m)" = x86_64 ] || die "the host must be x86_64, this is $(uname -m)"

# --- 1. Debian 12 packages -------------------------------------------------
BOOKWORM_PKGS=(
  bazel-bootstrap bazel-rules-cc bazel-rules-java bazel-platforms bazel-skylib
  googletest clang-16 lld-16 llvm-16 libclang-rt-16-dev
  libc6-dev-arm64-cross libstdc++-12-dev-arm64-cross binutils-aarch64-linux-gnu
  patchelf xz-utils file python3
)
missing=()
for p in "${BOOKWORM_PKGS[@]}"; do
  dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing from Debian 12: ${missing[*]}"
  apt-get update -q >>"$LOG" 2>&1 || die "apt-get update failed (see $LOG)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >>"$LOG" 2>&1 \
    || die "apt-get install ${missing[*]} failed (see $LOG)"
fi

# --- 2. private apt configurations -------------------------------------------
# make_apt NAME SUITE ARCH: a self-contained apt tree under $TOOLS/apt/NAME.
make_apt() {
  local name=$1 suite=$2 arch=$3 d="$TOOLS/apt/$1"
  mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/etc/preferences.d" "$d/etc/apt.conf.d"
  : >"$d/status"
  cat >"$d/sources.list" <<EOF
deb [arch=$arch signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main
EOF
  cat >"$d/apt.conf" <<EOF
Dir::State "$d";
Dir::State::Lists "$d/lists";
Dir::State::status "$d/status";
Dir::Cache "$d/cache";
Dir::Etc::SourceList "$d/sources.list";
Dir::Etc::SourceParts "/nonexistent";
Dir::Etc::Preferences "/nonexistent";
Dir::Etc::PreferencesParts "$d/etc/preferences.d";
Dir::Etc::Parts "$d/etc/apt.conf.d";
APT::Architecture "$arch";
APT::Architectures { "$arch"; };
Acquire::Languages "none";
APT::Sandbox::User "root";
// The archive served here can be a frozen snapshot whose Release files have
// passed their Valid-Until date; signatures are still checked.
Acquire::Check-Valid-Until "false";
EOF
  # Debian testing may be signed by a key newer than Debian 12's keyring.
  if [ "$suite" = testing ] && ! APT_CONFIG="$d/apt.conf" apt-get update -q >>"$LOG" 2>&1; then
    say "testing's signing key is unknown to Debian 12's keyring; retrying with the archive trusted by name"
    sed -i 's/signed-by=[^]]*/trusted=yes/' "$d/sources.list"
  fi
}

apt_update() { # NAME: refresh a private list at most once per run (and once a day)
  local d="$TOOLS/apt/$1"
  if [ -z "$(find "$d/lists" -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null)" ]; then
    APT_CONFIG="$d/apt.conf" apt-get update -q >>"$LOG" 2>&1 || die "apt-get update for $1 failed (see $LOG)"
  fi
}

# fetch NAME DEST PKG...: download packages by name with config NAME and
# extract them into DEST, logging each version.
fetch() {
  local name=$1 dest=$2; shift 2
  local d="$TOOLS/apt/$name" dl="$TOOLS/apt/$name/debs"
  mkdir -p "$dl" "$dest"
  for p in "$@"; do
    if ! ls "$dl/${p}_"*.deb >/dev/null 2>&1; then
      (cd "$dl" && APT_CONFIG="$d/apt.conf" apt-get download -q "$p" >>"$LOG" 2>&1) \
        || die "download of package '$p' from $name failed: $(tail -n 2 "$LOG" | tr '\n' ' ')"
    fi
    local deb; deb=$(ls "$dl/${p}_"*.deb | head -n 1)
    dpkg-deb -x "$deb" "$dest" || die "cannot extract $deb"
    echo "$name $(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version) $(dpkg-deb -f "$deb" Architecture)" >>"$TOOLS/versions.log"
  done
}

# --- 3. Debian 13: loong64 toolchain, its host libraries, QEMU 10 -------------
if [ ! -f "$TOOLS/.stamp-trixie" ]; then
  say "fetching the loong64 cross toolchain and QEMU 10 from Debian 13"
  make_apt trixie trixie amd64
  apt_update trixie
  rm -rf "$TOOLS/host" "$TOOLS/qemu-deb"
  # binutils for loongarch64 and exactly the Debian 13 host libraries it links.
  fetch trixie "$TOOLS/host" binutils-loongarch64-linux-gnu binutils-common libbinutils \
    libctf-nobfd0 libctf0 libsframe1 libgprofng0 libjansson4 libzstd1 zlib1g libc6 libgcc-s1 libstdc++6 libelf1t64
  fetch trixie "$TOOLS/qemu-deb" qemu-user
  # Keep only the static emulators the ports use.
  mkdir -p "$TOOLS/qemu"
  for q in x86_64 aarch64 loongarch64 riscv64; do
    [ -x "$TOOLS/qemu-deb/usr/bin/qemu-$q" ] || die "qemu-$q missing from Debian 13's qemu-user"
    cp "$TOOLS/qemu-deb/usr/bin/qemu-$q" "$TOOLS/qemu/"
  done
  rm -rf "$TOOLS/qemu-deb"
  make_apt trixie-loong trixie amd64
  cp "$TOOLS/apt/trixie/lists/"* "$TOOLS/apt/trixie-loong/lists/" 2>/dev/null || true
  rm -rf "$TOOLS/sysroot-loong64"
  fetch trixie "$TOOLS/sysroot-loong64" libc6-loong64-cross libc6-dev-loong64-cross linux-libc-dev-loong64-cross \
    libgcc-s1-loong64-cross libgcc-14-dev-loong64-cross libstdc++6-loong64-cross libstdc++-14-dev-loong64-cross
  touch "$TOOLS/.stamp-trixie"
fi

# --- 4. patch Debian 13 host programs to use their own loader and libraries ---
if [ ! -f "$TOOLS/.stamp-patched" ]; then
  say "pointing Debian 13 host programs at their own loader"
  H="$TOOLS/host"
  loader="$H/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
  [ -e "$loader" ] || loader="$H/lib64/ld-linux-x86-64.so.2"
  [ -e "$loader" ] || die "no loader in $H"
  for f in "$H"/usr/bin/loongarch64-linux-gnu-* "$H"/usr/loongarch64-linux-gnu/bin/*; do
    [ -f "$f" ] && [ ! -L "$f" ] || continue
    file -b "$f" | grep -q "ELF 64-bit.*dynamically linked" || continue
    patchelf --set-interpreter "$loader" --force-rpath --set-rpath "$H/usr/lib/x86_64-linux-gnu" "$f"
  done
  touch "$TOOLS/.stamp-patched"
fi

# --- 5. libFuzzer runtimes: arm64 from Debian 12, loong64 from testing -------
if [ ! -f "$TOOLS/.stamp-rt" ]; then
  say "fetching libFuzzer runtimes for arm64 (Debian 12) and loong64 (Debian testing)"
  make_apt bookworm-arm64 bookworm arm64
  apt_update bookworm-arm64
  rm -rf "$TOOLS/rt-arm64-deb" "$TOOLS/rt-loong64-deb"
  fetch bookworm-arm64 "$TOOLS/rt-arm64-deb" libclang-rt-16-dev
  make_apt testing-loong64 testing loong64
  apt_update testing-loong64
  # Testing moves: take the newest libclang-rt-N-dev it carries.
  rtpkg=$(APT_CONFIG="$TOOLS/apt/testing-loong64/apt.conf" apt-cache pkgnames libclang-rt- 2>/dev/null \
          | grep -E '^libclang-rt-[0-9]+-dev$' | sort -t- -k3 -n | tail -n 1)
  [ -n "$rtpkg" ] || die "Debian testing carries no libclang-rt-N-dev for loong64"
  fetch testing-loong64 "$TOOLS/rt-loong64-deb" "$rtpkg"
  # A private clang resource directory per target: the host clang-16's
  # headers plus that target's runtime archives, so -fsanitize=fuzzer works.
  hostres=$(clang++-16 -print-resource-dir)
  for a in arm64:aarch64 loong64:loongarch64; do
    arch=${a%%:*} triple=${a##*:}
    lib=$(find "$TOOLS/rt-$arch-deb" -name "libclang_rt.fuzzer-$triple.a" | head -n 1)
    [ -n "$lib" ] || die "no libclang_rt.fuzzer-$triple.a in the $arch runtime package"
    res="$TOOLS/clang-rt-$arch"
    rm -rf "$res"; mkdir -p "$res/lib/linux"
    ln -s "$hostres/include" "$res/include"
    [ -d "$hostres/share" ] && ln -s "$hostres/share" "$res/share"
    cp "$(dirname "$lib")"/*.a "$res/lib/linux/"
  done
  rm -rf "$TOOLS/rt-arm64-deb" "$TOOLS/rt-loong64-deb"
  touch "$TOOLS/.stamp-rt"
fi

# --- 6. entry points ---------------------------------------------------------
mkdir -p "$TOOLS/bin"
for q in x86_64 aarch64 loongarch64; do
  ln -sf "$TOOLS/qemu/qemu-$q" "$TOOLS/bin/qemu-$q"
done
ln -sf "$TOOLS/host/usr/bin/loongarch64-linux-gnu-ld" "$TOOLS/bin/loongarch64-linux-gnu-ld"
ln -sf "$TOOLS/host/usr/bin/loongarch64-linux-gnu-objdump" "$TOOLS/bin/loongarch64-linux-gnu-objdump"

# --- 7. prove each toolchain: compile, link and run under each emulator -------
if [ ! -f "$TOOLS/.stamp-proved" ]; then
  say "proving each toolchain"
  here=$(cd "$(dirname "$0")" && pwd)
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  cat >"$work/hello.cc" <<'EOF'
#include <cstdio>
#include <string>
#include <thread>
int main() {
  std::string s = "toolchain ok";
  std::thread t([&] { s += " with threads"; });
  t.join();
  std::puts(s.c_str());
  return 0;
}
EOF
  cat >"$work/fuzz.cc" <<'EOF'
#include <cstddef>
#include <cstdint>
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
  return (n > 2 && d[0] == 's' && d[1] == 'p') ? 0 : 0;
}
EOF
  for arch in amd64 arm64 loong64; do
    "$here/../platforms/toolchains/cc-$arch" -O1 -pthread "$work/hello.cc" -o "$work/hello-$arch" \
      || die "the $arch toolchain cannot build a C++ program"
    out=$(SAFEPOINT_TOOLS="$TOOLS" "$here/../platforms/toolchains/run-$arch" "$work/hello-$arch") \
      || die "the $arch program does not run under its emulator"
    [ "$out" = "toolchain ok with threads" ] || die "the $arch program printed '$out'"
    say "  $arch: $out"
    "$here/../platforms/toolchains/cc-$arch" -O1 -fsanitize=fuzzer "$work/fuzz.cc" -o "$work/fuzz-$arch" \
      || die "the $arch toolchain cannot link a libFuzzer target"
    SAFEPOINT_TOOLS="$TOOLS" "$here/../platforms/toolchains/run-$arch" "$work/fuzz-$arch" -runs=200 -seed=1 \
      >"$work/fuzz-$arch.log" 2>&1 || die "the $arch libFuzzer target failed: $(tail -n 3 "$work/fuzz-$arch.log")"
    grep -q "Done 200 runs" "$work/fuzz-$arch.log" || die "the $arch libFuzzer target did not finish its runs"
    say "  $arch: libFuzzer ok"
  done
  touch "$TOOLS/.stamp-proved"
fi
say "ready: $TOOLS (versions in $TOOLS/versions.log)"
