#!/bin/sh
# Writes the action's id, pane and context JSON, then renames the file into place whole.
out="$HERDR_PLUGIN_STATE_DIR/context"
printf '%s %s %s\n' "$HERDR_PLUGIN_ACTION_ID" "$HERDR_PANE_ID" "$HERDR_PLUGIN_CONTEXT_JSON" > "$out.tmp"
mv "$out.tmp" "$out"
echo recorded
