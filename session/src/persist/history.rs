//! `session-history.json` (`[experimental] pane_history`): each pane's recent screen as ANSI,
//! in upstream's shape `{version, workspaces: [{tabs: [{panes: {raw_id: {ansi, lines}}}]}]}`,
//! plus our `layout`: a check of the exact `session.json` bytes it was written with.
//!
//! History is replayed only onto that very layout. Another `session.json` (a snapshot copied
//! over it, an edit, a later save after a crash) fails the check, and so does a file without
//! one (upstream's, or an older herdr's): both are ignored. Panes are matched by their place in
//! the layout (workspace, tab, raw pane id) and then by uid, so a pane the restore had to give
//! a new uid gets nothing rather than someone else's screen.
//!
//! Pure apart from [`read`], which only reads the file; writing and removing use the atomic,
//! private, symlink-following edge in `file.rs`.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::file::MAX_SESSION_BYTES;
use super::snapshot::SessionSnapshot;

/// The file name beside `session.json`.
pub const HISTORY_FILE: &str = "session-history.json";

/// The `version` this herdr writes and reads.
pub const HISTORY_VERSION: u32 = 1;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryFile {
    pub version: u32,
    /// [`layout_check`] of the `session.json` written with this history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<String>,
    #[serde(default)]
    pub workspaces: Vec<WorkspaceHistory>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkspaceHistory {
    #[serde(default)]
    pub tabs: Vec<TabHistory>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabHistory {
    /// Keyed by the raw pane id of the tab's `panes` map in `session.json`.
    #[serde(default)]
    pub panes: BTreeMap<u32, PaneHistory>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaneHistory {
    /// The pane's recent rows as the terminal formats them (SGR kept), `\n` between rows.
    pub ansi: String,
    /// How many rows `ansi` holds.
    pub lines: usize,
}

/// Why a history file is not replayed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Ignored {
    #[error("version {found}, this herdr reads {HISTORY_VERSION}")]
    Version { found: u32 },
    #[error("it has no layout check")]
    NoLayoutCheck,
    #[error("it was saved with another layout")]
    OtherLayout,
}

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read {}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
    #[error("{} is not a regular file; leaving it alone", path.display())]
    NotAFile { path: PathBuf },
    #[error("{} is larger than {MAX_SESSION_BYTES} bytes", path.display())]
    TooLarge { path: PathBuf },
    #[error("{}: {source}", path.display())]
    Decode { path: PathBuf, source: serde_json::Error },
}

/// The check a history file carries of the `session.json` bytes it belongs to: 64-bit FNV-1a
/// and the length. Not a defence against anyone; it tells one layout file from another.
pub fn layout_check(session_bytes: &[u8]) -> String {
    let hash = session_bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3));
    format!("fnv1a64:{hash:016x}:{}", session_bytes.len())
}

/// The uids of every pane of a saved layout that has one: the panes a history is kept for.
pub fn saved_uids(snapshot: &SessionSnapshot) -> impl Iterator<Item = &str> {
    placed_uids(snapshot).map(|(_, uid)| uid)
}

/// Every pane of a saved layout with a uid: `((workspace, tab, raw id), uid)`.
fn placed_uids(snapshot: &SessionSnapshot) -> impl Iterator<Item = ((usize, usize, u32), &str)> {
    snapshot.workspaces.iter().enumerate().flat_map(|(wi, ws)| {
        ws.tabs.iter().enumerate().flat_map(move |(ti, tab)| {
            tab.panes.iter().filter_map(move |(raw, pane)| Some(((wi, ti, *raw), pane.uid.as_deref()?)))
        })
    })
}

/// The history of the layout `session_bytes` (decoded: `snapshot`) from `screens` (uid →
/// recent rows as ANSI). Panes without a screen are left out.
pub fn build(
    session_bytes: &[u8],
    snapshot: &SessionSnapshot,
    screens: &HashMap<String, String>,
) -> HistoryFile {
    let workspaces = snapshot
        .workspaces
        .iter()
        .map(|ws| WorkspaceHistory { tabs: vec![TabHistory::default(); ws.tabs.len()] })
        .collect();
    let mut history =
        HistoryFile { version: HISTORY_VERSION, layout: Some(layout_check(session_bytes)), workspaces };
    for ((wi, ti, raw), uid) in placed_uids(snapshot) {
        let Some(ansi) = screens.get(uid) else { continue };
        let lines = if ansi.is_empty() { 0 } else { ansi.split('\n').count() };
        history.workspaces[wi].tabs[ti].panes.insert(raw, PaneHistory { ansi: ansi.clone(), lines });
    }
    history
}

/// What to replay into each restored pane (uid → terminal bytes), if `history` belongs to the
/// layout `session_bytes` (decoded: `snapshot`).
pub fn replays(
    history: &HistoryFile,
    session_bytes: &[u8],
    snapshot: &SessionSnapshot,
) -> Result<HashMap<String, Vec<u8>>, Ignored> {
    if history.version != HISTORY_VERSION {
        return Err(Ignored::Version { found: history.version });
    }
    let check = history.layout.as_deref().ok_or(Ignored::NoLayoutCheck)?;
    if check != layout_check(session_bytes) {
        return Err(Ignored::OtherLayout);
    }
    let mut out = HashMap::new();
    for ((wi, ti, raw), uid) in placed_uids(snapshot) {
        let pane = history.workspaces.get(wi).and_then(|ws| ws.tabs.get(ti)).and_then(|t| t.panes.get(&raw));
        if let Some(pane) = pane.filter(|p| !p.ansi.is_empty()) {
            out.insert(uid.to_owned(), replay_bytes(&pane.ansi));
        }
    }
    Ok(out)
}

/// Terminal bytes that draw `ansi` (rows joined by `\n`, as reads return them) and leave the
/// cursor at the start of a fresh, unstyled line for the new program's first output.
pub fn replay_bytes(ansi: &str) -> Vec<u8> {
    let mut bytes = ansi.replace('\n', "\r\n").into_bytes();
    bytes.extend_from_slice(b"\x1b[0m\r\n");
    bytes
}

/// The history file encoded for disk (compact: it is mostly long strings).
pub fn encode(history: &HistoryFile) -> Vec<u8> {
    // Strings, integers and maps keyed by integers: nothing serde_json can fail on.
    serde_json::to_vec(history).expect("a history file always serializes")
}

/// Reads the history file at `path`; None when there is none.
pub fn read(path: &Path) -> Result<Option<HistoryFile>, ReadError> {
    let io = |source| ReadError::Io { path: path.to_path_buf(), source };
    // Opening a fifo would block until someone writes to it; look before opening.
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => return Err(ReadError::NotAFile { path: path.to_path_buf() }),
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(e)),
    }
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(e)),
    };
    let mut bytes = Vec::new();
    file.take(MAX_SESSION_BYTES + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > MAX_SESSION_BYTES {
        return Err(ReadError::TooLarge { path: path.to_path_buf() });
    }
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|source| ReadError::Decode { path: path.to_path_buf(), source })
}
