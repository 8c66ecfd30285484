#!/bin/sh
# Installs the indx binary for this machine from a GitHub release, after checking its SHA-256
# against the release's SHA256SUMS.
#
#   curl -fsSL https://github.com/indx/indx/releases/latest/download/install.sh | sh
#
# Environment (all optional):
#   INDX_VERSION       a release such as 0.1.0 (default: the latest)
#   INDX_INSTALL_DIR   where the binary goes (default: ~/.local/bin)
#   INDX_DOWNLOAD_URL  the folder holding the archives and SHA256SUMS (default: the GitHub release)
#   INDX_TARGET        linux-x64 | linux-arm64 | darwin-x64 | darwin-arm64 (default: this machine)
set -eu

REPO="indx/indx"

say() { printf '%s\n' "$*" >&2; }
fail() {
  say "install.sh: $*"
  exit 1
}

detect_target() {
  os=$(uname -s)
  arch=$(uname -m)
  case "$os" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    MINGW* | MSYS* | CYGWIN*) fail "on Windows, install with scoop (scoop install indx) or unzip indx-windows-x64.zip from the release" ;;
    *) fail "no indx build for $os; build from source (see the README)" ;;
  esac
  case "$arch" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) fail "no indx build for $os on $arch; build from source (see the README)" ;;
  esac
  # A shell under Rosetta reports x86_64 on an Apple silicon Mac: take the native build.
  if [ "$os" = darwin ] && [ "$arch" = x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || echo 0)" = 1 ]; then
    arch=arm64
  fi
  echo "$os-$arch"
}

download() { # url file
  case "$1" in
    file://*) cp "${1#file://}" "$2" ;;
    *)
      if command -v curl >/dev/null 2>&1; then
        curl -fsSL --retry 2 -o "$2" "$1"
      elif command -v wget >/dev/null 2>&1; then
        wget -q -O "$2" "$1"
      else
        fail "needs curl or wget"
      fi
      ;;
  esac
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d' ' -f1
  else
    fail "needs sha256sum or shasum to check the download"
  fi
}

target=${INDX_TARGET:-$(detect_target)}
case "$target" in
  linux-x64 | linux-arm64 | darwin-x64 | darwin-arm64) ;;
  *) fail "unknown target $target" ;;
esac
if [ -n "${INDX_DOWNLOAD_URL:-}" ]; then
  base=$INDX_DOWNLOAD_URL
elif [ -n "${INDX_VERSION:-}" ]; then
  base="https://github.com/$REPO/releases/download/v${INDX_VERSION#v}"
else
  base="https://github.com/$REPO/releases/latest/download"
fi
dir=${INDX_INSTALL_DIR:-$HOME/.local/bin}
archive="indx-$target.tar.gz"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
say "downloading $archive"
download "$base/$archive" "$tmp/$archive" || fail "could not download $base/$archive"
download "$base/SHA256SUMS" "$tmp/SHA256SUMS" || fail "could not download $base/SHA256SUMS"

expected=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$tmp/SHA256SUMS")
[ -n "$expected" ] || fail "SHA256SUMS lists no $archive"
actual=$(sha256_of "$tmp/$archive")
[ "$expected" = "$actual" ] || fail "checksum mismatch for $archive (expected $expected, got $actual): not installed"

tar -xzf "$tmp/$archive" -C "$tmp" indx
mkdir -p "$dir"
# Replace through a rename so a running indx keeps its old file.
cp "$tmp/indx" "$dir/.indx.new"
chmod 755 "$dir/.indx.new"
mv -f "$dir/.indx.new" "$dir/indx"
say "installed indx $("$dir/indx" --version 2>/dev/null || echo '') to $dir/indx"
case ":$PATH:" in
  *":$dir:"*) ;;
  *) say "add $dir to your PATH, e.g. in ~/.profile: export PATH=\"$dir:\$PATH\"" ;;
esac
