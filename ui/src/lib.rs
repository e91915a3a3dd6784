//! The herdr terminal UI's pure parts: everything an attached client sees and types, as plain
//! data and functions over protocol types, tested without sockets.
//!
//! - [`render`]: the compositor (sidebar, tab bar, panes, overlays), hit-testing, the frame
//!   differ and single-row repaints;
//! - [`keymap`]: the input decoder, key grammar, bindings, modes and copy-mode keys;
//! - [`config`]: the `config.toml` model (`[ui]`, `[keys]`, `[theme]`, …) and its diagnostics;
//! - what a client's keys and clicks do: [`actions`] (an action given the session snapshot
//!   becomes a [`calls`] request or a UI step), [`menu`], [`dialog`], [`confirm`], [`goto`],
//!   [`help`], custom [`commands`];
//! - what a client is shown: [`visibility`] (which panes), [`rows`] (which rows changed, for
//!   in-place repaints), [`alert`] and [`alert_gate`] (agent alerts and their rate limits),
//!   [`recent`] (the panes it saw focused, for `last_pane`).
//!
//! Not here: sockets, tokio tasks, the session model or any supervisor state. The supervisor's
//! client connections (`supervisor/src/clients/`) drive this crate: they build its views from
//! the session snapshot (a protocol type) and the pane grids mirrored from worker damage, feed it
//! keys and mouse events, and send the frames it composes.

pub mod actions;
pub mod alert;
pub mod alert_gate;
pub mod calls;
pub mod commands;
pub mod config;
pub mod confirm;
pub mod dialog;
pub mod goto;
pub mod help;
pub mod keymap;
pub mod links;
pub mod menu;
pub mod popup;
pub mod recent;
pub mod render;
pub mod rows;
pub mod title;
pub mod visibility;

#[cfg(test)]
mod tests_fixtures;
