//! Recovery drills on real processes: what a user finds in the session dir when things go wrong,
//! and that none of it stops the server.
//!
//! - An unusable `session.json` is kept in `session-backups/` (its bytes, 0600 in 0700, the path
//!   in the log as `persist.backup path=`) before the empty session replaces it; four failures
//!   in a row keep the three newest. A backup that cannot be written (`session-backups` is a
//!   file, the disk is full) leaves `session.json` and the old backups alone, and the server runs;
//!   every save tries again, and the first that can keep the backup saves.
//! - A full disk during a save leaves the previous `session.json` whole and the server
//!   answering; once there is room again the next save lands.
//! - `session-snapshots/`: the first saved layout is copied at once, restarts and unchanged
//!   layouts add nothing, a due save keeps the layout it replaced; a snapshot that cannot be
//!   written never holds up a save.
//! - `[experimental] pane_history`: `herdr server stop` then start shows each restored pane's
//!   recent screen; after `session.json` is replaced by another layout the history is ignored;
//!   with the option off `session-history.json` is deleted at start.
//!
//! Every run is a real `herdr server` in the foreground, logging to its own file; the full-disk
//! drills mount a small tmpfs as the session dir (the suites run as root), unmounted on drop.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::thread;

use herdr_e2e::panes::{self, Marker};
use herdr_e2e::wire::{self, Reply};
use herdr_e2e::{PATIENCE, TestServer, wait_until};
use serde_json::{Value, json};

/// One session across several supervisors: started and stopped here (not by
/// [`TestServer::start_server`]) so that a test can stop one and start the next.
struct Session {
    server: TestServer,
    child: Option<Child>,
    runs: usize,
}

impl Session {
    /// The temp dirs and environment, with the session dir made; nothing started.
    fn prepare() -> Self {
        let session = Self { server: TestServer::prepare(), child: None, runs: 0 };
        fs::create_dir_all(session.data_dir()).expect("create the session dir");
        session
    }

    /// The default session's dir (`$XDG_CONFIG_HOME/herdr/`): `session.json` and its recovery files.
    fn data_dir(&self) -> PathBuf {
        self.server.root().join("config").join("herdr")
    }

    fn file(&self, name: &str) -> PathBuf {
        self.data_dir().join(name)
    }

    fn log_path(&self) -> PathBuf {
        self.server.root().join(format!("server-{}.log", self.runs))
    }

    /// What the current (or last) run logged.
    fn log(&self) -> String {
        fs::read_to_string(self.log_path()).unwrap_or_default()
    }

    /// Starts the next `herdr server` and waits until it answers `ping`.
    fn start(&mut self) {
        assert!(self.child.is_none(), "the previous server still runs");
        self.runs += 1;
        let log = self.log_path();
        let mut child = self.server.server_command(&log).spawn().expect("start `herdr server`");
        let ping = b"{\"id\":\"e2e:ping\",\"method\":\"ping\",\"params\":{}}\n";
        wait_until(&format!("server run {} to answer ping", self.runs), PATIENCE, || {
            if let Ok(Some(status)) = child.try_wait() {
                panic!("`herdr server` exited early with {status}; log:\n{}", self.log());
            }
            match wire::exchange(self.server.socket(), ping, PATIENCE) {
                Ok(Reply::Line(line)) => self.server.check_line(&line).map(|_| ()),
                Ok(other) => Err(format!("{other:?}")),
                Err(error) => Err(error.to_string()),
            }
        });
        self.child = Some(child);
        self.server.track_processes();
    }

    /// `herdr server stop`, then waits until the server process is gone (it saved first).
    fn stop(&mut self) {
        let stop = self.server.cli(&["server", "stop"]);
        assert!(stop.status.success(), "`herdr server stop` failed: {stop:?}\nlog:\n{}", self.log());
        let mut child = self.child.take().expect("a server runs");
        wait_until("the server to exit after `server stop`", PATIENCE, || {
            child.try_wait().ok().flatten().ok_or_else(|| "still running".to_owned())
        });
    }

    /// Waits until the current run's log has a line containing `needle`; returns that line.
    fn wait_log(&self, needle: &str) -> String {
        wait_until(&format!("a log line with {needle:?}"), PATIENCE, || {
            let log = self.log();
            log.lines().find(|line| line.contains(needle)).map(str::to_owned).ok_or(log)
        })
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if thread::panicking() {
            eprintln!("--- {} ---\n{}\n--- end ---", self.log_path().display(), self.log());
        }
    }
}

/// A small tmpfs mounted over `dir` for the life of the value (lazily unmounted on drop).
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: &Path, size: &str) -> Self {
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size},mode=0700"), "tmpfs"])
            .arg(dir)
            .status()
            .expect("run mount");
        assert!(
            status.success(),
            "mounting a tmpfs on {} failed ({status}): these drills run as root",
            dir.display()
        );
        Self(dir.to_path_buf())
    }

    /// Fills the file system with `filler` until not one more byte fits.
    fn fill(&self) -> PathBuf {
        use std::io::Write;
        let filler = self.0.join("filler");
        let mut file = fs::File::create(&filler).expect("create the filler");
        for chunk in [64 * 1024, 4096, 1] {
            let bytes = vec![b'x'; chunk];
            while file.write_all(&bytes).is_ok() {}
        }
        let _ = file.sync_all();
        filler
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap_or_else(|e| panic!("stat {}: {e}", path.display())).permissions().mode() & 0o777
}

/// The `session-<stamp>-<n>.json` files of a backups or snapshots dir, oldest first.
fn stamped_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<(String, u32, PathBuf)> = entries
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let name = path.file_name()?.to_str()?.to_owned();
            let (stamp, n) = name.strip_prefix("session-")?.strip_suffix(".json")?.rsplit_once('-')?;
            Some((stamp.to_owned(), n.parse().ok()?, path))
        })
        .collect();
    files.sort();
    files.into_iter().map(|(_, _, path)| path).collect()
}

fn contents(files: &[PathBuf]) -> Vec<String> {
    files
        .iter()
        .map(|f| fs::read_to_string(f).unwrap_or_else(|e| panic!("read {}: {e}", f.display())))
        .collect()
}

/// Waits until `session.json` holds `needle`; returns its bytes.
fn wait_saved(session: &Session, needle: &str) -> Vec<u8> {
    let path = session.file("session.json");
    wait_until(&format!("session.json to hold {needle:?}"), PATIENCE, || {
        let bytes = fs::read(&path).map_err(|e| e.to_string())?;
        if String::from_utf8_lossy(&bytes).contains(needle) { Ok(bytes) } else { Err("not yet".to_owned()) }
    })
}

fn rename_pane(session: &Session, pane: &str, label: &str) {
    session.server.call("pane.rename", json!({"pane_id": pane, "label": label}));
}

// ---------------------------------------------------------------------------------------------
// Load-failure backups
// ---------------------------------------------------------------------------------------------

#[test]
fn an_unusable_session_json_is_backed_up_before_the_empty_session_replaces_it() {
    let mut session = Session::prepare();
    let session_json = session.file("session.json");
    let backups_dir = session.file("session-backups");
    fs::write(&session_json, "garbage 1: { not a layout").expect("write garbage");
    session.start();

    let listed = session.server.call("workspace.list", json!({}));
    assert_eq!(listed["workspaces"], json!([]), "the server starts empty: {listed}");
    let backups = stamped_files(&backups_dir);
    assert_eq!(contents(&backups), ["garbage 1: { not a layout"], "the original bytes are kept");
    assert_eq!((mode(&backups_dir), mode(&backups[0])), (0o700, 0o600));
    let line = session.wait_log("persist.backup path=");
    assert!(line.contains(&backups[0].display().to_string()), "the log names the backup: {line}");
    session.wait_log("persist.load_failed");

    // Three more failures in a row: the three newest stay, the oldest goes only once a newer
    // one is safely written.
    for n in 2..=4 {
        session.stop();
        fs::write(&session_json, format!("garbage {n}")).expect("write garbage");
        session.start();
        let backups = stamped_files(&backups_dir);
        let kept = contents(&backups);
        assert_eq!(kept.len(), n.min(3), "after failure {n}: {kept:?}");
        assert_eq!(kept.last().map(String::as_str), Some(format!("garbage {n}").as_str()), "newest last");
        let line = session.wait_log("persist.backup path=");
        assert!(line.contains(&backups[backups.len() - 1].display().to_string()), "{line}");
    }
    assert_eq!(contents(&stamped_files(&backups_dir)), ["garbage 2", "garbage 3", "garbage 4"]);
    session.stop();
}

#[test]
fn a_backup_that_cannot_be_kept_leaves_session_json_alone_and_the_next_save_retries() {
    let mut session = Session::prepare();
    let session_json = session.file("session.json");
    let blocker = session.file("session-backups");
    fs::write(&session_json, "garbage that must survive").expect("write garbage");
    fs::write(&blocker, "a file where the backups folder should be").expect("write blocker");
    session.start();

    session.wait_log("persist.backup_failed");
    session.server.assert_alive();
    // A change that would be saved, and the stop's final save: each tries the backup again,
    // fails, and leaves the file alone.
    let created = panes::create_workspace(&session.server);
    rename_pane(&session, &created.pane_id, "never-saved");
    wait_until("a save to retry the backup", PATIENCE, || {
        let failures = session.log().matches("persist.backup_failed").count();
        if failures >= 2 { Ok(()) } else { Err(format!("{failures} backup failures logged")) }
    });
    session.server.assert_alive();
    session.stop();
    assert_eq!(fs::read_to_string(&session_json).expect("read"), "garbage that must survive");
    assert_eq!(fs::read_to_string(&blocker).expect("read"), "a file where the backups folder should be");

    // Once the backup can be written, the next save keeps the original first, then lands.
    session.start();
    session.wait_log("persist.backup_failed");
    fs::remove_file(&blocker).expect("remove the blocker");
    let created = panes::create_workspace(&session.server);
    rename_pane(&session, &created.pane_id, "saved-after-the-fix");
    wait_saved(&session, "saved-after-the-fix");
    assert_eq!(contents(&stamped_files(&blocker)), ["garbage that must survive"]);
    session.wait_log("persist.backup path=");
    session.stop();
}

#[test]
fn a_backup_on_a_full_disk_fails_without_pruning_the_old_ones() {
    let mut session = Session::prepare();
    let disk = Tmpfs::mount(&session.data_dir(), "256k");
    let backups_dir = session.file("session-backups");
    fs::create_dir(&backups_dir).expect("mkdir session-backups");
    for s in 1..=3 {
        fs::write(backups_dir.join(format!("session-20000101T00000{s}Z-1.json")), format!("old {s}"))
            .expect("write an old backup");
    }
    fs::write(session.file("session.json"), "garbage on a full disk").expect("write garbage");
    let _filler = disk.fill();
    session.start();

    session.wait_log("persist.backup_failed");
    session.server.assert_alive();
    assert_eq!(contents(&stamped_files(&backups_dir)), ["old 1", "old 2", "old 3"], "nothing pruned");
    session.stop();
    assert_eq!(fs::read_to_string(session.file("session.json")).expect("read"), "garbage on a full disk");
}

// ---------------------------------------------------------------------------------------------
// A full disk during a save
// ---------------------------------------------------------------------------------------------

#[test]
fn a_full_disk_during_a_save_keeps_the_previous_session_json_and_the_server_running() {
    let mut session = Session::prepare();
    let disk = Tmpfs::mount(&session.data_dir(), "512k");
    session.start();
    let created = panes::create_workspace(&session.server);
    panes::settle(&session.server, &created.pane_id);
    rename_pane(&session, &created.pane_id, "before-full");
    wait_saved(&session, "before-full");

    let filler = disk.fill();
    // Nothing can be written from here on, so this is what the file must stay.
    let before = fs::read(session.file("session.json")).expect("read session.json");
    rename_pane(&session, &created.pane_id, "while-full");
    session.wait_log("persist.save_failed");
    session.server.assert_alive();
    assert_eq!(fs::read(session.file("session.json")).expect("read"), before, "the previous file is intact");
    let saved: Value = serde_json::from_slice(&before).expect("session.json is whole JSON");
    assert!(saved["workspaces"].as_array().is_some_and(|w| w.len() == 1), "{saved}");
    let leftovers: Vec<String> = fs::read_dir(session.data_dir())
        .expect("list the session dir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| name.contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "no half-written temp file is left: {leftovers:?}");

    fs::remove_file(&filler).expect("free the disk");
    rename_pane(&session, &created.pane_id, "after-free");
    wait_saved(&session, "after-free");
    session.server.assert_alive();
    session.stop();
}

// ---------------------------------------------------------------------------------------------
// Layout snapshots
// ---------------------------------------------------------------------------------------------

#[test]
fn snapshots_copy_the_first_layout_at_once_and_add_nothing_for_restarts_or_unchanged_layouts() {
    let mut session = Session::prepare();
    let snapshots_dir = session.file("session-snapshots");
    session.start();
    let created = panes::create_workspace(&session.server);
    panes::settle(&session.server, &created.pane_id);
    let first =
        wait_until("the first snapshot", PATIENCE, || match stamped_files(&snapshots_dir).as_slice() {
            [only] => Ok(only.clone()),
            other => Err(format!("{other:?}")),
        });
    assert_eq!((mode(&snapshots_dir), mode(&first)), (0o700, 0o600));
    let taken: Value = serde_json::from_slice(&fs::read(&first).expect("read")).expect("a layout");
    assert_eq!(taken["workspaces"][0]["custom_name"], "e2e", "{taken}");
    session.wait_log(&format!("persist.snapshot path={}", first.display()));

    // Restarts within the interval add nothing, whatever they save.
    for _ in 0..2 {
        session.stop();
        session.start();
    }
    rename_pane(&session, &created.pane_id, "renamed");
    wait_saved(&session, "renamed");
    session.stop();
    assert_eq!(stamped_files(&snapshots_dir), std::slice::from_ref(&first), "one snapshot after restarts");

    // Make the only snapshot old and equal to session.json: replacing that layout is due, but it
    // is the newest snapshot already, so nothing is added; the next change keeps the layout it
    // replaces, and the one after that is within the interval again.
    let old = snapshots_dir.join("session-20000101T000000Z-1.json");
    fs::remove_file(&first).expect("remove the first snapshot");
    fs::copy(session.file("session.json"), &old).expect("an old snapshot of the saved layout");
    session.start();
    rename_pane(&session, &created.pane_id, "change-1");
    wait_saved(&session, "change-1");
    rename_pane(&session, &created.pane_id, "change-2");
    let kept = wait_until("a snapshot of the replaced layout", PATIENCE, || {
        match stamped_files(&snapshots_dir).as_slice() {
            [a, b] if *a == old => Ok(b.clone()),
            other => Err(format!("{other:?}")),
        }
    });
    let kept_text = fs::read_to_string(&kept).expect("read");
    assert_ne!(kept_text, fs::read_to_string(&old).expect("read"), "not a copy of the newest snapshot");
    assert!(
        kept_text.contains("change-1") && !kept_text.contains("change-2"),
        "the layout change-2 replaced"
    );
    rename_pane(&session, &created.pane_id, "change-3");
    wait_saved(&session, "change-3");
    session.stop();
    assert_eq!(stamped_files(&snapshots_dir), [old, kept], "nothing more within the interval");
}

#[test]
fn a_snapshot_that_cannot_be_written_never_holds_up_the_save() {
    let mut session = Session::prepare();
    let blocker = session.file("session-snapshots");
    fs::write(&blocker, "not a folder").expect("write blocker");
    session.start();
    let created = panes::create_workspace(&session.server);
    rename_pane(&session, &created.pane_id, "saved-anyway");
    wait_saved(&session, "saved-anyway");
    session.wait_log("persist.snapshot_failed");
    session.server.assert_alive();
    assert_eq!(fs::read_to_string(&blocker).expect("read"), "not a folder");
    session.stop();
}

// ---------------------------------------------------------------------------------------------
// Pane screen history
// ---------------------------------------------------------------------------------------------

fn set_pane_history(session: &Session, on: bool) {
    fs::write(session.file("config.toml"), format!("[experimental]\npane_history = {on}\n"))
        .expect("write config.toml");
}

/// Prints a marker in `pane` and waits for it; returns the printed word.
fn print_marker(session: &Session, pane: &str, tag: &str) -> String {
    let marker = Marker::new(tag);
    panes::run(&session.server, pane, &marker.command);
    panes::wait_output(&session.server, pane, &marker.word, PATIENCE);
    marker.word
}

#[test]
fn with_pane_history_a_restart_shows_each_panes_recent_screen_but_only_on_its_own_layout() {
    let mut session = Session::prepare();
    set_pane_history(&session, true);
    session.start();
    let created = panes::create_workspace(&session.server);
    let right = panes::split(&session.server, &created.pane_id, "right");
    let ids = [created.pane_id.clone(), right];
    let words: Vec<String> = ids.iter().map(|pane| print_marker(&session, pane, "BEFORE-STOP")).collect();
    session.stop();
    let history = session.file("session-history.json");
    assert_eq!(mode(&history), 0o600);
    let saved = fs::read_to_string(&history).expect("read session-history.json");
    for word in &words {
        assert!(saved.contains(word.as_str()), "{word} is in the history: {saved}");
    }

    session.start();
    for (pane, word) in ids.iter().zip(&words) {
        let recent = panes::read(&session.server, pane, "recent");
        assert!(recent.lines().any(|l| l.trim_end() == word), "{pane} shows {word} again:\n{recent}");
        // A new shell below it.
        print_marker(&session, pane, "AFTER-RESTART");
    }
    session.wait_log("persist.history_load path=");
    session.stop();

    // Another layout in session.json (as after copying a snapshot over it): history ignored.
    let mut other: Value =
        serde_json::from_slice(&fs::read(session.file("session.json")).expect("read")).expect("session.json");
    other["workspaces"][0]["custom_name"] = json!("another layout");
    fs::write(session.file("session.json"), serde_json::to_vec_pretty(&other).expect("json")).expect("write");
    session.start();
    for pane in &ids {
        let recent = panes::read(&session.server, pane, "recent");
        assert!(!recent.contains("BEFORE-STOP") && !recent.contains("AFTER-RESTART"), "{pane}:\n{recent}");
        panes::settle(&session.server, pane);
    }
    session.wait_log("persist.history_ignored");
    session.stop();
}

#[test]
fn without_pane_history_the_history_file_is_deleted_at_start() {
    let mut session = Session::prepare();
    set_pane_history(&session, false);
    let history = session.file("session-history.json");
    fs::write(
        &history,
        r#"{"version":1,"workspaces":[{"tabs":[{"panes":{"1":{"ansi":"secret","lines":1}}}]}]}"#,
    )
    .expect("write an old history");
    session.start();
    assert!(!history.exists(), "session-history.json is gone once the server answers");
    session.wait_log("persist.history_removed");
    session.stop();
    assert!(!history.exists(), "and the stop wrote none");
}
