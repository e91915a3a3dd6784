#!/usr/bin/env bash
# Installs the real agent CLIs that e2e/tests/real_agents.rs starts in herdr panes, from the npm
# registry, into a repo-local prefix (never globally):
#   target/agent-clis/node_modules/.bin/{claude,codex,gemini}
# Each package is installed on its own, so one that cannot be installed does not stop the others;
# the result per package is written to target/agent-clis/status.txt as
#   <package> ok <version>        or        <package> failed <reason>
# and the test skips (with that reason) the agents whose package failed.
#
# Cache-friendly: a package already installed at the pinned version is not touched (no network);
# npm's own cache (~/.npm) makes a reinstall cheap. Versions are pinned so a run is repeatable;
# HERDR_AGENT_CLIS_LATEST=1 installs the latest versions instead.
#
# Environment: HERDR_AGENT_CLIS_DIR (default <repo>/target/agent-clis),
#              HERDR_AGENT_CLIS_TIMEOUT (seconds per package, default 600).
# Exits 0 when the status file was written (even if some package failed), 1 without npm.
set -uo pipefail
cd "$(dirname "$0")/.."

prefix="${HERDR_AGENT_CLIS_DIR:-$PWD/target/agent-clis}"
per_package_timeout="${HERDR_AGENT_CLIS_TIMEOUT:-600}"
packages=(
  "@anthropic-ai/claude-code@2.1.332"
  "@openai/codex@0.171.0"
  "@google/gemini-cli@0.61.0"
)

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "install-agent-clis: npm and node are needed (Node.js 20 or newer)" >&2
  exit 1
fi

mkdir -p "$prefix"
# A package.json of our own keeps each install from pruning the packages installed before it.
[ -f "$prefix/package.json" ] || printf '{"name":"herdr-agent-clis","private":true}\n' > "$prefix/package.json"
status="$prefix/status.txt"
: > "$status.new"

installed_version() {
  local manifest="$prefix/node_modules/$1/package.json"
  [ -f "$manifest" ] && node -e 'process.stdout.write(require(process.argv[1]).version)' "$manifest" 2>/dev/null
}

for spec in "${packages[@]}"; do
  name="${spec%@*}"
  version="${spec##*@}"
  if [ "${HERDR_AGENT_CLIS_LATEST:-}" = 1 ]; then
    spec="$name@latest"
    version=""
  fi
  have="$(installed_version "$name" || true)"
  if [ -n "$have" ] && { [ -z "$version" ] || [ "$have" = "$version" ]; } && [ "${HERDR_AGENT_CLIS_LATEST:-}" != 1 ]; then
    echo "install-agent-clis: $name $have already installed"
    echo "$name ok $have" >> "$status.new"
    continue
  fi
  echo "install-agent-clis: installing $spec into $prefix"
  log="$prefix/install-$(echo "$name" | tr '/@' '__').log"
  if timeout "$per_package_timeout" npm install --prefix "$prefix" --no-audit --no-fund --prefer-offline \
      --loglevel=error "$spec" > "$log" 2>&1; then
    have="$(installed_version "$name" || true)"
    echo "$name ok ${have:-unknown}" >> "$status.new"
    echo "install-agent-clis: $name ${have:-unknown} installed"
  else
    code=$?
    reason="npm install exited $code: $(tail -n 3 "$log" | tr '\n' ' ' | cut -c1-300)"
    echo "$name failed $reason" >> "$status.new"
    echo "install-agent-clis: $name failed ($reason)" >&2
  fi
done

mv "$status.new" "$status"
echo "install-agent-clis: status in $status"
cat "$status"
