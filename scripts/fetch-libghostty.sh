#!/usr/bin/env bash
# Fetches the prebuilt libghostty-vt shared library from the PyPI wheel pyghostty 0.1.1 (ghostty
# 88b4cd0, ABI-checked against libghostty-vt-sys 0.2.2; see the vt-engine reference) into
# $LIBGHOSTTY_VT_DIR (default vendor/libghostty-vt) and writes a pkg-config file for it.
# Idempotent; contacts only PyPI, through pip, with the wheel's hash pinned.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${LIBGHOSTTY_VT_DIR:-$ROOT/vendor/libghostty-vt}"
VER=0.1.1
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64)  PLAT=manylinux_2_28_x86_64;  SHA=30cf24518da22687929ec2910620347d4df2178260987771580f8db17d53cb27 ;;
  # Pinned from the registry but never exercised on this project's machines.
  Linux-aarch64) PLAT=manylinux_2_28_aarch64; SHA=e7145f43d4c24d7690495855aa93334ae291d7afeea6e36927d243e7788838bb ;;
  *) echo "fetch-libghostty: no pinned wheel for $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac
STAMP="pyghostty-$VER-$SHA"
if [ -f "$DEST/.stamp" ] && [ "$(cat "$DEST/.stamp")" = "$STAMP" ] && [ -f "$DEST/lib/libghostty-vt.so" ]; then
  exit 0
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf 'pyghostty==%s --hash=sha256:%s\n' "$VER" "$SHA" > "$tmp/req.txt"
python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary :all: \
  --platform "$PLAT" --python-version 3.11 --require-hashes -r "$tmp/req.txt" -d "$tmp"
rm -rf "$DEST"
mkdir -p "$DEST/lib/pkgconfig"
python3 - "$tmp"/pyghostty-"$VER"-*.whl "$DEST" <<'PY'
import sys, zipfile, pathlib
whl, dest = sys.argv[1], pathlib.Path(sys.argv[2])
with zipfile.ZipFile(whl) as z:
    (dest / "lib" / "libghostty-vt.so").write_bytes(z.read("pyghostty/_lib/libghostty-vt.so"))
    lic = [n for n in z.namelist() if n.endswith("LICENSE.ghostty")][0]
    (dest / "LICENSE.ghostty").write_bytes(z.read(lic))
PY
# The library's SONAME; binaries record this name, not the unversioned one.
ln -sf libghostty-vt.so "$DEST/lib/libghostty-vt.so.0"
cat > "$DEST/lib/pkgconfig/libghostty-vt.pc" <<'PC'
prefix=${pcfiledir}/../..
libdir=${prefix}/lib
Name: libghostty-vt
Description: Ghostty VT core (prebuilt from PyPI pyghostty 0.1.1 = ghostty 88b4cd0)
Version: 0.0.0+88b4cd0
Libs: -L${libdir} -lghostty-vt
Cflags:
PC
echo "$STAMP" > "$DEST/.stamp"
