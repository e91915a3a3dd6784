#!/bin/sh
# Appends the event this hook fired for, one JSON line per run.
printf '%s %s\n' "$HERDR_PLUGIN_EVENT" "$HERDR_PLUGIN_EVENT_JSON" >> "$HERDR_PLUGIN_STATE_DIR/events.log"
