//! The session's saved layout as the durability suites see it: `session.json` (upstream's v3
//! format plus our per-pane `uid`) read from disk, its panes listed, and the supervisor's
//! `persist.save path=… bytes=… elapsed_us=…` log lines parsed.
//!
//! Reading only: nothing here writes `session.json` except [`install`], which puts a fixture in
//! place before a server starts.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use regex::Regex;
use serde_json::Value;

use crate::wait::wait_until;

/// The upstream fixtures copied into this crate (`e2e/fixtures/session/`, see its NOTICE).
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join("session").join(name)
}

/// Copies `source` to `session_json` (creating its folder), before a server starts.
pub fn install(source: &Path, session_json: &Path) {
    let dir = session_json.parent().expect("session.json has a folder");
    fs::create_dir_all(dir).expect("create the session data dir");
    fs::copy(source, session_json)
        .unwrap_or_else(|e| panic!("copy {} to {}: {e}", source.display(), session_json.display()));
}

/// The parsed file, `None` while it is missing or not (yet) JSON.
pub fn read(path: &Path) -> Option<Value> {
    serde_json::from_slice(&fs::read(path).ok()?).ok()
}

/// The permission bits of `path`.
pub fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap_or_else(|e| panic!("stat {}: {e}", path.display())).permissions().mode() & 0o777
}

/// Every saved pane (`PaneSnapshot`) of a v3 file: workspaces → tabs → the `panes` map.
pub fn panes(saved: &Value) -> Vec<&Value> {
    let mut found = Vec::new();
    for workspace in saved["workspaces"].as_array().into_iter().flatten() {
        for tab in workspace["tabs"].as_array().into_iter().flatten() {
            if let Some(map) = tab["panes"].as_object() {
                found.extend(map.values());
            }
        }
    }
    found
}

/// The saved panes' `uid`s, sorted (panes without one are listed as `"<none>"`).
pub fn pane_uids(saved: &Value) -> Vec<String> {
    let mut uids: Vec<String> =
        panes(saved).iter().map(|pane| pane["uid"].as_str().unwrap_or("<none>").to_owned()).collect();
    uids.sort();
    uids
}

/// The saved cwds of every pane in layout order: workspaces, their tabs (a legacy pre-tabs
/// workspace is its own single tab), each tab's layout tree first before second.
pub fn layout_cwds(saved: &Value) -> Vec<String> {
    let mut cwds = Vec::new();
    for workspace in saved["workspaces"].as_array().into_iter().flatten() {
        let tabs = workspace["tabs"].as_array().cloned().unwrap_or_else(|| vec![workspace.clone()]);
        for tab in &tabs {
            collect_cwds(&tab["layout"], &tab["panes"], &mut cwds);
        }
    }
    cwds
}

fn collect_cwds(node: &Value, panes: &Value, out: &mut Vec<String>) {
    if let Some(raw) = node.get("Pane") {
        out.push(panes[raw.to_string()]["cwd"].as_str().unwrap_or_default().to_owned());
    } else if let Some(split) = node.get("Split") {
        collect_cwds(&split["first"], panes, out);
        collect_cwds(&split["second"], panes, out);
    }
}

/// How many workspaces and tabs the file holds.
pub fn shape(saved: &Value) -> (usize, usize) {
    let workspaces = saved["workspaces"].as_array().map_or(0, Vec::len);
    let tabs = saved["workspaces"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|workspace| workspace["tabs"].as_array().map_or(0, Vec::len))
        .sum();
    (workspaces, tabs)
}

/// Polls the file until `check` holds for its parsed contents; returns them.
pub fn wait_for(path: &Path, what: &str, timeout: Duration, check: impl Fn(&Value) -> bool) -> Value {
    wait_until(what, timeout, || match read(path) {
        Some(saved) if check(&saved) => Ok(saved),
        Some(saved) => Err(format!("{} holds {saved}", path.display())),
        None => Err(format!("{} is missing or not JSON", path.display())),
    })
}

/// One `persist.save` line of the supervisor's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersistSave {
    pub path: String,
    pub bytes: u64,
    pub elapsed_us: u64,
}

/// Every `persist.save path=<path> bytes=<n> elapsed_us=<µs>` line in `log`, in order.
pub fn persist_saves(log: &str) -> Vec<PersistSave> {
    let pattern =
        Regex::new(r"persist\.save path=(\S+) bytes=(\d+) elapsed_us=(\d+)").expect("a valid regex");
    pattern
        .captures_iter(log)
        .filter_map(|c| {
            Some(PersistSave {
                path: c[1].to_owned(),
                bytes: c[2].parse().ok()?,
                elapsed_us: c[3].parse().ok()?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_the_panes_of_every_fixture() {
        let current = read(&fixture("current-herdr-session.json")).expect("a JSON fixture");
        assert_eq!(panes(&current).len(), 3);
        assert_eq!(shape(&current), (2, 3));
        let dev = read(&fixture("current-herdr-dev-session.json")).expect("a JSON fixture");
        assert_eq!(panes(&dev).len(), 4);
        assert_eq!(shape(&dev), (2, 3));
        let project = |name: &str| format!("/home/test/projects/{name}");
        assert_eq!(
            layout_cwds(&dev),
            [project("project-a"), project("project-a"), project("project-c"), project("project-a")]
        );
        let legacy = read(&fixture("legacy-pre-tabs-v2.json")).expect("a JSON fixture");
        assert_eq!(layout_cwds(&legacy), ["/tmp/pion", "/tmp/herdr"]);
    }

    #[test]
    fn parses_persist_save_lines() {
        let log = "1.0 herdr[1] INFO persist.save path=/t/config/herdr/session.json bytes=812 elapsed_us=431\n\
                   noise\n1.1 herdr[1] INFO persist.save path=/t/s.json bytes=9 elapsed_us=7\n";
        let saves = persist_saves(log);
        assert_eq!(saves.len(), 2);
        assert_eq!(
            saves[0],
            PersistSave { path: "/t/config/herdr/session.json".into(), bytes: 812, elapsed_us: 431 }
        );
    }
}
