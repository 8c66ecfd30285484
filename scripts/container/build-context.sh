#!/bin/sh
# Prepares the build context of the container image (Containerfile): the release binary and the
# smallest root it runs in, taken from Debian packages — glibc (libc6), the Mozilla CA bundle
# (ca-certificates), an /etc/passwd with the non-root user indx (10001) — because the image starts
# FROM scratch (no image registry needs to be reachable). Needs apt-get and dpkg-deb (Debian or
# Ubuntu); the libraries are the host architecture's.
#
#   scripts/container/build-context.sh [binary=dist/indx] [out=build/container]
#   podman build -f Containerfile -t indx build/container
set -eu

BIN=${1:-dist/indx}
OUT=${2:-build/container}
[ -x "$BIN" ] || { echo "error: $BIN is not an executable: run bun run build first" >&2; exit 1; }
command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null || { echo "error: apt-get and dpkg-deb are needed (Debian or Ubuntu)" >&2; exit 1; }

rm -rf "$OUT"
mkdir -p "$OUT/debs" "$OUT/pkg" "$OUT/rootfs/etc/ssl/certs" "$OUT/rootfs/tmp" "$OUT/rootfs/proc" "$OUT/rootfs/dev" "$OUT/rootfs/usr/local/bin" "$OUT/owned/vault" "$OUT/owned/data"
# apt-get warns that its _apt user cannot write here when run as root; the download still happens.
(cd "$OUT/debs" && apt-get download libc6 ca-certificates 2>&1 | grep -v "unsandboxed as root" >&2 || true)
ls "$OUT"/debs/libc6_*.deb "$OUT"/debs/ca-certificates_*.deb >/dev/null

for deb in "$OUT"/debs/*.deb; do dpkg-deb -x "$deb" "$OUT/pkg"; done
# glibc: its libraries and the dynamic loader, wherever this release of Debian puts them (usr-merged or not).
for dir in lib lib64 usr/lib usr/lib64; do
  [ -d "$OUT/pkg/$dir" ] || continue
  mkdir -p "$OUT/rootfs/$dir"
  cp -a "$OUT/pkg/$dir/." "$OUT/rootfs/$dir/"
done
# The CA bundle update-ca-certificates would make from the package's certificates (AI providers over https).
cat "$OUT"/pkg/usr/share/ca-certificates/mozilla/*.crt > "$OUT/rootfs/etc/ssl/certs/ca-certificates.crt"

cat > "$OUT/rootfs/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/sbin/nologin
indx:x:10001:10001:indx:/data:/sbin/nologin
PASSWD
cat > "$OUT/rootfs/etc/group" <<'GROUP'
root:x:0:
indx:x:10001:
GROUP
printf 'passwd: files\ngroup: files\nhosts: files dns\n' > "$OUT/rootfs/etc/nsswitch.conf"
chmod 1777 "$OUT/rootfs/tmp"

cp "$BIN" "$OUT/indx"
rm -rf "$OUT/debs" "$OUT/pkg"
echo "build context ready in $OUT ($(du -sh "$OUT" | cut -f1))"
