# What ci/setup.sh fetches for the arm64 port (sourced; its helpers are in
# scope). The cross glibc and libstdc++ are Debian 12 packages (SETUP_APT in
# port.env); the libFuzzer runtime is Debian 12's libclang-rt-16-dev for
# arm64, fetched by name and merged into a private clang resource directory.
port_setup() {
  make_apt bookworm-arm64 bookworm arm64
  apt_update bookworm-arm64
  rm -rf "$TOOLS/rt-arm64-deb"
  fetch bookworm-arm64 "$TOOLS/rt-arm64-deb" libclang-rt-16-dev
  resource_dir arm64 aarch64 "$TOOLS/rt-arm64-deb"
  rm -rf "$TOOLS/rt-arm64-deb"
}
