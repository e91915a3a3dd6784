#!/usr/bin/env bash
# Installs the system packages the build and the end-to-end tests need, and only those that are
# missing: a machine that already has everything never touches apt. Works as root (CI) or
# through sudo.
#   tmux          the benchmark's baseline and the "terminal program" checks
#   less, vim-tiny full-screen programs the e2e suites drive
#   pkg-config    libghostty-vt-sys finds the library through it
#   libssl-dev    libssh2-sys (remote bridge) builds against it
#   python3-pip   scripts/fetch-libghostty.sh downloads the pinned wheel with pip
#   nodejs        runs the installed pi/opencode integration plugins in their tests
#   dbus-daemon   a private system bus for the logind (shutdown save) e2e suite
#   systemd       a private `systemd --user`, systemctl and systemd-analyze for the service suite
#   util-linux    unshare: that manager's private mount namespace
#   openssh-server  sshd (and ssh, ssh-keygen) for the `herdr --remote` suite's loopback host
#   iproute2      ip: the network namespaces of that suite's lossy link
#   zsh, fish     syntax checks of `herdr completion zsh|fish` (cli_surface suite)
set -euo pipefail

missing=()
need_cmd() { command -v "$1" >/dev/null 2>&1 || missing+=("$2"); }
need_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed' || missing+=("$1"); }

need_cmd tmux tmux
need_cmd less less
need_cmd vi vim-tiny
need_cmd top procps
need_cmd pkg-config pkg-config
need_cmd python3 python3
need_cmd stty coreutils
need_cmd node nodejs
need_cmd dbus-daemon dbus-daemon
need_cmd systemctl systemd
need_cmd systemd-analyze systemd
need_cmd unshare util-linux
[ -x /usr/sbin/sshd ] || missing+=(openssh-server)
need_cmd ssh-keygen openssh-client
need_cmd ip iproute2
need_cmd zsh zsh
need_cmd fish fish
python3 -m pip --version >/dev/null 2>&1 || missing+=(python3-pip)
if command -v dpkg-query >/dev/null 2>&1; then
  need_pkg libssl-dev
fi

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-test-deps: everything present"
  exit 0
fi

echo "install-test-deps: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "install-test-deps: need root or sudo to install: ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
