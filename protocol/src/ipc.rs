//! Supervisor <-> pane-worker frames.
//!
//! Transport: a Unix stream socketpair made by the supervisor at spawn; the worker inherits one
//! end (`herdr-pane-worker --ipc-fd N`). Every frame is a little-endian `u32` length followed by
//! that many bytes of bincode (serde, standard config). File descriptors travel beside frames with
//! `SCM_RIGHTS`: a frame that carries an fd is written in one `sendmsg` together with its fd, and
//! the receiver queues every fd it receives in arrival order; a frame whose doc says "an fd travels
//! with this frame" takes the oldest queued fd.
//!
//! Handshake: the supervisor writes [`SupervisorToWorker::Hello`] first, with the range of link
//! versions it speaks; the worker picks the link's version ([`version::negotiate`]) and answers
//! [`WorkerToSupervisor::Hello`] with its own newest version, or [`WorkerToSupervisor::Refused`]
//! naming both sides' versions, and exits. After a successful `Start::Spawn`, the worker sends
//! [`WorkerToSupervisor::Spawned`] with a dup of the PTY master fd, so the pane's program
//! outlives a worker crash.
//!
//! Compatibility: frames only ever gain variants at the end of an enum; a released variant's
//! fields never change (a new field means a new variant); neither side sends a variant newer than
//! the link's version. The handshake and hand-over frames are frozen outright, so any later
//! build can greet, adopt and upgrade a worker of any version it still speaks; their bytes are
//! pinned by `tests/ipc_golden.rs`.
//!
//! Upgrade: [`SupervisorToWorker::HandOver`] asks a worker to give its pane to a new worker
//! binary: it stops reading the PTY, answers [`WorkerToSupervisor::HandingOver`] and the dump of
//! its terminal in [`WorkerToSupervisor::DumpChunk`]s, removes its socket and exits without
//! hanging up the program. The supervisor starts the new worker with [`Start::Restore`] and the
//! same dump in [`SupervisorToWorker::DumpChunk`]s.
//!
//! Re-adoption: every worker also listens on its own socket ([`WorkerIdentity::socket`],
//! `<session runtime dir>/workers/<pane uid>.sock`, 0600 in a 0700 dir). A worker whose link
//! closes without a `Shutdown` (its supervisor died) keeps its program, PTY, terminal and
//! scrollback and waits there for a new supervisor of the same session, at most
//! [`WorkerIdentity::orphan_timeout_ms`]. That supervisor connects, the worker checks the peer's
//! uid, and the first frame must be [`SupervisorToWorker::Adopt`] with the session secret; the
//! worker answers [`WorkerToSupervisor::Adopted`] (a dup of the PTY master fd beside it) and
//! then re-sends its state as ordinary events (title, cwds, agent identity, screen state, and
//! `Exited` if the program ended while nobody was linked). The connection is from then on the
//! worker's link, exactly like the inherited one.

use serde::{Deserialize, Serialize};

use crate::grid::{CursorPlacement, GridCell};

pub mod version;

pub use version::{FACTS_VERSION, IPC_BASE_VERSION, IPC_VERSION, MIN_IPC_VERSION, VersionRange};

/// Shortest time between two damages of the focused pane (about 120 a second).
pub const FOCUSED_FRAME_INTERVAL_MS: u64 = 8;
/// Shortest time between two damages of any other visible pane (30 a second).
pub const BACKGROUND_FRAME_INTERVAL_MS: u64 = 33;

/// A restored pane whose program exits with a failure this soon after starting stays in the
/// layout showing the error (see [`Start::Spawn`]).
pub const HOLD_FAILURE_WINDOW_MS: u64 = 2_000;

/// Largest frame either side accepts; a bigger length prefix is a protocol violation.
pub const MAX_FRAME_LEN: usize = 32 * 1024 * 1024;

/// Most dump bytes in one [`WorkerToSupervisor::DumpChunk`] or [`SupervisorToWorker::DumpChunk`]:
/// a terminal with a full scrollback dumps to more than one frame may hold.
pub const DUMP_CHUNK_LEN: usize = 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SupervisorToWorker {
    /// First frame on the inherited link: the supervisor speaks link versions `min_version` to
    /// `version`. With `Start::Adopt` or `Start::Restore`, the PTY master fd travels with this
    /// frame. Frozen.
    Hello {
        version: u32,
        min_version: u32,
        start: Start,
        identity: WorkerIdentity,
    },
    /// First frame on a connection to a worker's own socket: a new supervisor of the session
    /// (speaking `min_version` to `version`) takes the worker over. Refused (and the connection
    /// closed, the worker still waiting) when they share no version, on a wrong secret, or while
    /// another supervisor is linked. Frozen.
    Adopt {
        version: u32,
        min_version: u32,
        secret: String,
    },
    Request {
        id: u64,
        body: WorkerRequest,
    },
    /// The supervisor gave up on request `id` (timeout, client gone); drop it without answering.
    Cancel {
        id: u64,
    },
    /// Close the pane: hang up the program (SIGHUP, then SIGKILL after a grace period) and exit.
    Shutdown,
    /// Give the pane to a new worker binary: stop reading the PTY (unread output waits in the
    /// kernel for the next worker), answer [`WorkerToSupervisor::HandingOver`] and the dump, then
    /// remove the socket and exit without hanging up the program. A worker that cannot (no
    /// program runs, the dump failed) answers `Refused` and carries on. Frozen.
    HandOver,
    /// Part of the dump a `Start::Restore` announced, in order. Frozen.
    DumpChunk {
        bytes: Vec<u8>,
    },
}

/// Who a worker is beyond its link, so a later supervisor can find it again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerIdentity {
    /// The pane's stable uid (lowercase hex), persisted in `session.json`.
    pub uid: String,
    /// Where the worker listens for a re-adopting supervisor. The supervisor has created the
    /// directory (0700); the worker binds the socket 0600, replacing a stale socket (one that
    /// refuses connections) but never any other kind of file, and removes it when it exits.
    pub socket: String,
    /// The per-session secret an `Adopt` must carry. Never put in any environment.
    pub secret: String,
    /// How long the worker waits for a new supervisor after losing its link before it hangs up
    /// its program and exits.
    pub orphan_timeout_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Start {
    /// Open a new PTY of `cols` x `rows` and start `argv` (None: `$SHELL`, else `/bin/sh`) in
    /// `cwd` (None: inherit). `env` is applied in order on top of the worker's own environment,
    /// later entries winning; the supervisor puts the `HERDR_*` variables last.
    ///
    /// `hold_failure` (panes restored from `session.json`): when the program cannot start (the
    /// cwd is gone, the executable is missing) or exits with a failure within
    /// [`HOLD_FAILURE_WINDOW_MS`] of starting, the pane is not given up: the worker reports
    /// [`WorkerEvent::StartFailed`] (after `Spawned`, which it sends either way) and stays,
    /// its terminal showing what the program printed and then the error, until `Shutdown`.
    ///
    /// `replay` (a pane started again after a server restart, with pane history on): bytes the
    /// worker feeds into its terminal before the program starts, as if printed by it, so the
    /// pane shows its saved recent screen with the new shell's prompt below. Whatever the
    /// terminal would answer to them is dropped: there is no program yet to hear it.
    Spawn {
        argv: Option<Vec<String>>,
        cwd: Option<String>,
        env: Vec<(String, String)>,
        cols: u16,
        rows: u16,
        hold_failure: bool,
        replay: Option<Vec<u8>>,
    },
    /// Take over a running program after a worker died: the PTY master fd travels with the
    /// `Hello` frame; `child_pid` is the program. The worker resizes the PTY (which nudges the
    /// program to redraw) and carries on. Frozen.
    Adopt { child_pid: i32, cols: u16, rows: u16 },
    /// Take over a running program from a worker that handed it over: as `Adopt`, and the old
    /// worker's dump (`dump_len` bytes, sent next in [`SupervisorToWorker::DumpChunk`]s) goes into
    /// the terminal before the PTY is read; `revision` is where the old terminal's count of
    /// output chunks stood. Frozen.
    Restore { child_pid: i32, cols: u16, rows: u16, revision: u64, dump_len: u64 },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum WorkerRequest {
    Read(ReadSpec),
    /// Raw bytes to the PTY, as given (no bracketed paste, no Enter).
    SendText(String),
    /// Raw bytes to the PTY, exactly as a client's terminal produced them (8-bit input included).
    SendBytes(Vec<u8>),
    /// Whether some attached client shows this pane. A visible pane sends [`WorkerEvent::Damage`]
    /// (a full frame at once, then changed rows); a hidden one (the default) keeps parsing and
    /// sends nothing.
    SetVisible(bool),
    /// Whether this pane has the session's focus (the default is not). A focused visible pane
    /// sends damage up to every [`FOCUSED_FRAME_INTERVAL_MS`], the others at most every
    /// [`BACKGROUND_FRAME_INTERVAL_MS`]: a spinner in a pane nobody types in does not need more,
    /// and every damage wakes three processes.
    SetFocused(bool),
    /// Named keys (the public key grammar), encoded for the program's keyboard mode. All keys are
    /// validated before anything is written; an unknown key answers `invalid_key`.
    SendKeys(Vec<String>),
    /// A key the user typed: `bytes` exactly as their terminal sent it, `key` the same key in
    /// the public key grammar (`ctrl+shift+a`, `enter`). The worker writes `bytes` unchanged,
    /// unless the program asked for a keyboard mode (kitty keyboard flags, modifyOtherKeys) in
    /// which `key` encodes differently from a legacy terminal: then it writes that encoding.
    TypeKey {
        bytes: Vec<u8>,
        key: String,
    },
    /// `text` wrapped in bracketed paste iff the program enabled it, then `keys`.
    SendInput {
        text: Option<String>,
        keys: Vec<String>,
    },
    /// Answer when a line of `read` matches: immediately if it already does, else as new content
    /// arrives. No timeout on this side: the supervisor sends `Cancel`.
    WaitOutput {
        read: ReadSpec,
        matcher: Matcher,
    },
    /// Watch for output matching `matcher`, edge-triggered: answered once with `Ok` (or an error),
    /// then a [`WorkerEvent::OutputMatched`] carrying this request's id every time the read goes
    /// from not matching to matching (at once if it already matches). Ended by `Cancel`.
    WatchOutput {
        read: ReadSpec,
        matcher: Matcher,
    },
    ProcessInfo,
    /// The detector's evidence for `agent.explain`, answered with [`WorkerResponse::Explain`].
    Explain,
    /// A full-lifecycle hook authority for the pane's agent is live (true) or gone (false):
    /// screen scans pause while it is live.
    SetScansSuspended(bool),
    /// `pane.release_agent` accepted: forget the agent; it is re-identified after 1 s if still in front.
    ReleaseAgent,
    /// The agent manifests changed on disk (`server.reload_agent_manifests`): reload them.
    ReloadManifests,
    Resize {
        cols: u16,
        rows: u16,
    },
    /// A client's mouse over the pane's grid. The worker decides what it means from the
    /// program's modes: encoded for the program when it asked for mouse reporting (nothing when
    /// it did not); a wheel notch otherwise becomes arrow keys on the alternate screen, or
    /// scrolls the viewport through the scrollback.
    Mouse(PaneMouse),
    /// Moves the pane's viewport (`pane.scroll`, typing jumps back to the bottom by itself).
    Scroll(ScrollTo),
    /// Copy mode and mouse selection over the pane's screen and scrollback. Answered with
    /// [`WorkerResponse::Copied`] when the request produced text (`Yank`, `SelectFinish`), else
    /// `Ok`; the new [`CopyView`] arrives in the next [`WorkerEvent::Damage`] (sent at once when
    /// only the overlay changed), so the overlay always matches the rows it is drawn over.
    Copy(CopyRequest),
    /// A question about the pane's text in screen coordinates (row 0: the oldest history row)
    /// that leaves copy mode and the viewport alone: the API's client-owned copy methods.
    /// Answered with [`WorkerResponse::Text`] (or `invalid_params` for a point past the text,
    /// `content_changed` when `revision` is given and the output moved on). New at link version
    /// [`version::FACTS_VERSION`], like [`WorkerRequest::Facts`].
    TextQuery {
        query: TextQuery,
        revision: Option<u64>,
    },
    /// The pane's live facts for its API record (`pane.get`, `pane.list`, ...), answered with
    /// [`WorkerResponse::Facts`]. Link version [`version::FACTS_VERSION`] and later.
    Facts,
}

/// What [`WorkerRequest::TextQuery`] asks; points are `(row, col)` in screen coordinates.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum TextQuery {
    /// Where `motion` takes a cursor at `cursor`.
    Motion { cursor: (u32, u16), motion: CopyMotion },
    /// The text from `anchor` to `cursor` inclusive (either order).
    Selection { anchor: (u32, u16), cursor: (u32, u16) },
    /// Copy mode's literal smart-case search from `cursor`, the match it moves to and all matches.
    Search { query: String, backward: bool, cursor: (u32, u16) },
}

/// The answer to a [`TextQuery`]; `revision` is the terminal's output count it was read at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum TextAnswer {
    Moved {
        cursor: (u32, u16),
        revision: u64,
    },
    Selected(String),
    /// Inclusive `(start, end)` cell spans in reading order (at most `limit` of them),
    /// the number of matches in all, and the index of the one the search moved to.
    Found {
        matches: Vec<((u32, u16), (u32, u16))>,
        total: u64,
        current: Option<u64>,
        revision: u64,
    },
}

/// What copy mode or a mouse selection does. Copy mode keeps a cursor in the scrollback (screen
/// coordinates inside the worker, so it stays on its text while output arrives); the viewport
/// follows the cursor. Viewport coordinates below are 0-based cells of the pane's grid as shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum CopyRequest {
    /// Enter copy mode: the cursor starts where the program's cursor is (in the viewport as shown).
    Enter,
    /// Leave copy mode: selection and search cleared, viewport back to the live screen.
    Leave,
    Motion(CopyMotion),
    /// `v` / Space: start a selection at the cursor, or drop the one in progress.
    ToggleSelection,
    /// Esc inside copy mode with a selection or search shown: clear them (a second Esc leaves).
    ClearSelection,
    /// `/` (forward, toward newer output) or `?` (backward, toward older output): literal, smart
    /// case (case-insensitive unless the query has an uppercase letter). The cursor moves to the
    /// match; no match leaves it where it is and the view says so.
    Search {
        query: String,
        backward: bool,
    },
    /// `n` (`reverse` false: the last search's direction) / `N` (the opposite one).
    SearchAgain {
        reverse: bool,
    },
    /// `y` / Enter: answers [`WorkerResponse::Copied`] with the selection's text (the cursor's
    /// line when nothing is selected) and leaves copy mode.
    Yank,
    /// Mouse: a left press at a viewport cell anchors a new selection (clearing any old one).
    SelectStart {
        col: u16,
        row: u16,
    },
    /// Mouse: a drag extends the selection to this viewport cell. A drag above the viewport
    /// (`row` < 0) or below it (`row` >= its height) scrolls it by a row toward the mouse and
    /// selects to its first or last row.
    SelectExtend {
        col: u16,
        row: i32,
    },
    /// Mouse: a double-click selects the word under this viewport cell.
    SelectWord {
        col: u16,
        row: u16,
    },
    /// Mouse: the button was released. Answers [`WorkerResponse::Copied`] with the selected text
    /// (or `Ok` when the selection is empty, a click without a drag). The selection stays shown
    /// until `SelectClear` or the next `SelectStart`.
    SelectFinish,
    /// Drop a mouse selection (a click elsewhere, typing).
    SelectClear,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CopyMotion {
    Left,
    Down,
    Up,
    Right,
    /// `w` / `b` / `e`: vi words (letters, digits, `_`; runs of other punctuation are words too).
    WordForward,
    WordBackward,
    WordEnd,
    /// `W` / `B` / `E`: whitespace-separated words.
    BigWordForward,
    BigWordBackward,
    BigWordEnd,
    /// `0`, `^`, `$`.
    LineStart,
    FirstNonBlank,
    LineEnd,
    /// `{` / `}`: the previous / next blank line.
    ParagraphBackward,
    ParagraphForward,
    /// PgUp / ctrl+b, PgDn / ctrl+f: a viewport height.
    PageUp,
    PageDown,
    /// ctrl+u / ctrl+d: half a viewport.
    HalfPageUp,
    HalfPageDown,
    /// `g` / `G`: the oldest history row / the live screen's last row.
    Top,
    Bottom,
    /// `H` / `M` / `L`: the viewport's top, middle and bottom rows.
    ViewportTop,
    ViewportMiddle,
    ViewportBottom,
}

/// The copy overlay a compositor draws over a pane, in viewport coordinates.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CopyView {
    /// Copy mode's cursor; `None` outside copy mode (a mouse selection alone), or when the cursor
    /// is outside the viewport.
    pub cursor: Option<(u16, u16)>,
    /// Copy mode is on (the cursor may be scrolled out of view).
    pub active: bool,
    /// The selected cells: from `start` to `end` inclusive in reading order, `(col, row)`,
    /// clipped to the viewport (a selection starting above the view starts at `(0, 0)`).
    pub selection: Option<((u16, u16), (u16, u16))>,
    /// The last search and whether it found anything.
    pub search: Option<CopySearch>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopySearch {
    pub query: String,
    pub backward: bool,
    pub found: bool,
}

/// One mouse event in the pane's grid cells (0-based, already relative to the program's grid).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaneMouse {
    pub action: PaneMouseAction,
    pub x: u16,
    pub y: u16,
    pub shift: bool,
    pub alt: bool,
    pub ctrl: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PaneMouseButton {
    Left,
    Middle,
    Right,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PaneMouseAction {
    Press(PaneMouseButton),
    Release(PaneMouseButton),
    /// Motion with a button held.
    Drag(PaneMouseButton),
    /// Motion with no button held.
    Move,
    /// One wheel notch; `lines` is how far it scrolls the viewport or how many arrow keys it
    /// sends (a program with mouse reporting gets one wheel event).
    Wheel {
        up: bool,
        lines: u16,
    },
}

/// Where to put the pane's viewport.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScrollTo {
    /// This many rows above the live screen (clamped to the history there is).
    OffsetFromBottom(u32),
    /// Back to the live screen.
    Bottom,
}

/// How far a pane's viewport is scrolled back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ScrollPosition {
    /// Rows between the viewport's bottom and the live screen's bottom (0: following output).
    pub offset_from_bottom: u32,
    /// The most it can be: the history rows above the live screen.
    pub max_offset_from_bottom: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReadSource {
    Visible,
    Recent,
    RecentUnwrapped,
    Detection,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReadFormat {
    Text,
    Ansi,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadSpec {
    pub source: ReadSource,
    /// Already clamped by the supervisor to 1..=1000; None = the source's default.
    pub lines: Option<u32>,
    pub format: ReadFormat,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Matcher {
    Substring(String),
    /// A Rust `regex` pattern, matched per line. The supervisor validates it before sending.
    Regex(String),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadOutput {
    pub text: String,
    pub truncated: bool,
    /// Count of output chunks the terminal has consumed; grows with every PTY read.
    pub revision: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessInfo {
    pub shell_pid: Option<u32>,
    pub foreground_process_group_id: Option<u32>,
    pub tty: Option<String>,
    pub foreground_processes: Vec<ForegroundProcess>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForegroundProcess {
    pub pid: u32,
    pub name: String,
    pub argv0: Option<String>,
    pub argv: Option<Vec<String>>,
    pub cmdline: Option<String>,
    pub cwd: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum WorkerResponse {
    Ok,
    Read(ReadOutput),
    Matched {
        matched_line: String,
        read: ReadOutput,
    },
    ProcessInfo(ProcessInfo),
    /// `agent.explain` evidence as JSON text (bincode cannot carry a `serde_json::Value`).
    Explain(String),
    /// Text copied by a [`CopyRequest`] (yank, end of a mouse selection).
    Copied(String),
    /// A public API error (`code` is one of the reference's codes, e.g. `invalid_key`).
    Error {
        code: String,
        message: String,
    },
    /// The answer to a [`WorkerRequest::TextQuery`].
    Text(TextAnswer),
    /// Answer to [`WorkerRequest::Facts`].
    Facts(PaneFacts),
}

/// What a pane's record shows live: where its program and its foreground job are, and how far
/// its scrollback reaches, whether a client shows the pane or not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaneFacts {
    /// `/proc/<program pid>/cwd` (None once the program ended or when it cannot be read).
    pub cwd: Option<String>,
    /// `/proc/<foreground process group leader>/cwd` (None without a foreground group).
    pub foreground_cwd: Option<String>,
    pub scroll: ScrollPosition,
    pub viewport_rows: u16,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum WorkerToSupervisor {
    /// The handshake succeeded; `version` is the newest link version the worker speaks (the link
    /// speaks the older of it and the supervisor's). Frozen.
    Hello {
        version: u32,
        worker_pid: i32,
    },
    /// The handshake, an adoption or a hand-over was refused, and why. Frozen.
    Refused {
        reason: String,
    },
    /// The program started; a dup of the PTY master fd travels with this frame.
    Spawned {
        child_pid: i32,
    },
    /// The program could not be started (bad cwd, missing executable, ...). The worker exits.
    /// (Not sent with `hold_failure`: see [`WorkerEvent::StartFailed`].)
    SpawnFailed {
        message: String,
    },
    /// Answer to [`SupervisorToWorker::Adopt`]: the worker is this supervisor's now. A dup of
    /// the PTY master fd travels with this frame. `version` is the worker's newest link version,
    /// as in `Hello`; `child_pid` is the pane's program (0 when a held failure never started
    /// one); `cols` x `rows` the terminal's size. Frozen.
    Adopted {
        version: u32,
        worker_pid: i32,
        child_pid: i32,
        cols: u16,
        rows: u16,
    },
    Response {
        id: u64,
        body: WorkerResponse,
    },
    Event(WorkerEvent),
    /// Answer to [`SupervisorToWorker::HandOver`]: the worker no longer reads its PTY; its
    /// terminal's dump (`dump_len` bytes) follows in `DumpChunk`s, then the worker exits.
    /// `revision` is its count of output chunks. Frozen.
    HandingOver {
        revision: u64,
        dump_len: u64,
    },
    /// Part of the dump `HandingOver` announced, in order. Frozen.
    DumpChunk {
        bytes: Vec<u8>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum WorkerEvent {
    /// OSC 0/2 title changed (None: cleared).
    Title(Option<String>),
    /// OSC 7 working directory reported by the program, decoded to a local path.
    Cwd(String),
    /// The working directory of the pane's program as the OS reports it (`/proc/<pid>/cwd`),
    /// sent when it differs from the last one sent: checked at start, after output (so a `cd`
    /// at a prompt is reported once the prompt prints) and on adoption. What `session.json`
    /// saves in preference to the program's own report. Never sent for a held failure.
    LiveCwd(String),
    /// A `hold_failure` pane's program could not start or failed at once; `message` says why
    /// (also shown in the pane). The pane stays until closed.
    StartFailed { message: String },
    /// Watch `watch` (a `WatchOutput` request id) started matching.
    OutputMatched { watch: u64, matched_line: String, read: ReadOutput },
    /// The foreground agent changed (upstream's `pane.agent_detected`). Agent labels are the
    /// canonical lowercase names (`claude`, `codex`, ...).
    AgentIdentity { agent: Option<String>, previous: Option<String>, reason: IdentityReason },
    /// A screen verdict: sent when the state, a visible flag or the agent changed, or to
    /// re-assert a still-visible blocker (`refresh`).
    ScreenState(ScreenState),
    /// What changed on a visible pane's screen since the last damage (at most one per frame
    /// interval).
    Damage(GridDamage),
    /// The program rang the bell (BEL outside a string sequence), visible or hidden. At most one
    /// per 100 ms per pane: the bells of a burst in between are dropped, not queued.
    Bell,
    /// The pane's program exited; the worker exits after sending this.
    /// `code`/`signal` are known only when the worker is the program's parent.
    Exited { code: Option<i32>, signal: Option<i32> },
}

/// Changed rows of a visible pane's screen. `full`: every row is here and replaces the mirrored
/// grid (first frame after becoming visible, after a resize); otherwise apply `rows` onto a grid
/// of the same `cols` x `rows` size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GridDamage {
    pub cols: u16,
    pub rows: u16,
    pub full: bool,
    /// `(row index, cells from column 0)`: at most `cols` cells, the rest of the row is blank
    /// (default cells); a wide grapheme is followed by its empty spacer cell.
    pub lines: Vec<(u16, Vec<GridCell>)>,
    pub cursor: CursorPlacement,
    pub modes: PaneModes,
    /// Where the viewport is; rows show the scrolled-back view while `offset_from_bottom > 0`.
    pub scroll: ScrollPosition,
    /// Copy mode / mouse selection overlay for these rows (`None`: nothing to draw).
    pub copy: Option<CopyView>,
}

/// Terminal modes the compositor and keymap care about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PaneModes {
    /// Any mouse reporting mode (X10, normal, button or any-event tracking) is on.
    pub mouse_reporting: bool,
    /// SGR mouse encoding (DEC 1006).
    pub mouse_sgr: bool,
    /// Bracketed paste (DEC 2004).
    pub bracketed_paste: bool,
    /// Focus in/out reports (DEC 1004).
    pub focus_events: bool,
    /// The alternate screen is active.
    pub alt_screen: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum IdentityReason {
    Detected,
    Exited,
    Released,
}

/// What the screen says, before the supervisor arbitrates it against hook reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DetectedState {
    Idle,
    Working,
    Blocked,
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScreenState {
    pub agent: Option<String>,
    pub state: DetectedState,
    pub visible_idle: bool,
    pub visible_blocker: bool,
    pub visible_working: bool,
    /// The winning manifest rule's id, if a rule matched.
    pub rule: Option<String>,
    /// The agent's process just exited.
    pub process_exited: bool,
    /// Re-assertion of an unchanged blocker; not a change in itself.
    pub refresh: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error("frame of {0} bytes exceeds the {MAX_FRAME_LEN}-byte limit")]
    TooLarge(usize),
    #[error("could not encode frame: {0}")]
    Encode(#[from] bincode::error::EncodeError),
    #[error("could not decode frame: {0}")]
    Decode(#[from] bincode::error::DecodeError),
}

fn config() -> bincode::config::Configuration {
    bincode::config::standard()
}

/// Encodes `msg` as one length-prefixed frame.
pub fn encode_frame<T: Serialize>(msg: &T) -> Result<Vec<u8>, FrameError> {
    let mut out = vec![0u8; 4];
    bincode::serde::encode_into_std_write(msg, &mut out, config())?;
    let len = out.len() - 4;
    if len > MAX_FRAME_LEN {
        return Err(FrameError::TooLarge(len));
    }
    let prefix = u32::try_from(len).map_err(|_| FrameError::TooLarge(len))?;
    out[..4].copy_from_slice(&prefix.to_le_bytes());
    Ok(out)
}

/// Accumulates bytes from a stream and yields whole frames.
#[derive(Debug, Default)]
pub struct FrameDecoder {
    buf: Vec<u8>,
}

/// The most an emptied decoder keeps allocated.
const KEEP_CAPACITY: usize = 16 * 1024;

impl FrameDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// The next complete frame, if one has arrived.
    pub fn next_frame<T: for<'de> Deserialize<'de>>(&mut self) -> Result<Option<T>, FrameError> {
        let Some(prefix) = self.buf.get(..4) else { return Ok(None) };
        let len = u32::from_le_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]) as usize;
        if len > MAX_FRAME_LEN {
            return Err(FrameError::TooLarge(len));
        }
        if self.buf.len() < 4 + len {
            return Ok(None);
        }
        let (msg, _) = bincode::serde::decode_from_slice(&self.buf[4..4 + len], config())?;
        self.buf.drain(..4 + len);
        if self.buf.is_empty() && self.buf.capacity() > KEEP_CAPACITY {
            // A burst's big frame is not kept for the life of a quiet link.
            self.buf = Vec::new();
        }
        Ok(Some(msg))
    }
}

#[cfg(test)]
#[path = "ipc_tests.rs"]
mod tests;
