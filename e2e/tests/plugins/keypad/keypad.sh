#!/bin/sh
# Keypad: records how it was started (one line in the plugin's state dir), then draws a box with
# the last key typed, reading raw keys one byte at a time, until `q`.
state="${HERDR_PLUGIN_STATE_DIR:-.}"
printf 'entry=%s plugin=%s pane=%s pwd=%s extra=%s\n' "$HERDR_PLUGIN_ENTRYPOINT_ID" \
    "$HERDR_PLUGIN_ID" "${HERDR_PANE_ID:-none}" "$(pwd)" "${KEYPAD_EXTRA:-none}" >>"$state/started"
saved=$(stty -g)
trap 'stty "$saved"' EXIT
stty raw -echo
last=none
draw() {
    printf '\033[2J\033[H'
    printf '+--------------+\r\n'
    printf '| keypad       |\r\n'
    printf '| last: %-6s |\r\n' "$last"
    printf '+--------------+\r\n'
}
draw
while :; do
    key=$(dd bs=1 count=1 2>/dev/null)
    [ "$key" = q ] && break
    last="key-$key"
    draw
done
