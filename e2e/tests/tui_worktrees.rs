//! The worktree keys in a real terminal (herdr inside tmux, keys by `send-keys`, the screen by
//! `capture-pane`) on a real repository: `prefix+shift+g` asks for a branch and opens a new
//! worktree workspace under its repository; `open_worktree` lists the repository's checkouts and
//! opens the chosen one; `remove_worktree` asks, then deletes the checkout (never its branch)
//! and closes its workspace; on the main checkout it says why it does nothing.

// The shared tmux harness has helpers (paste buffers, mouse) this suite does not use.
#[allow(dead_code)]
mod support;

use std::path::PathBuf;

use herdr_e2e::git::{git, repo};
use herdr_e2e::{PATIENCE, TestServer, wait_until};
use serde_json::{Value, json};
use support::attached;

fn workspaces(server: &TestServer) -> Vec<Value> {
    server.call("workspace.list", json!({}))["workspaces"].as_array().cloned().unwrap_or_default()
}

fn focused_label(server: &TestServer) -> Option<String> {
    workspaces(server)
        .into_iter()
        .find(|w| w["focused"] == true)
        .and_then(|w| w["label"].as_str().map(str::to_owned))
}

/// Waits until the focused workspace is the one labelled `label`.
fn wait_focused(server: &TestServer, label: &str) {
    wait_until(&format!("workspace {label} focused"), PATIENCE, || match focused_label(server) {
        Some(l) if l == label => Ok(()),
        other => Err(format!("focused {other:?}; workspaces {:?}", workspaces(server))),
    });
}

fn workspace_id(server: &TestServer, label: &str) -> String {
    let all = workspaces(server);
    let w = all.iter().find(|w| w["label"] == label).unwrap_or_else(|| panic!("no {label} in {all:?}"));
    w["workspace_id"].as_str().expect("an id").to_owned()
}

const CONFIG: &str = "[keys]\nopen_worktree = \"prefix+u\"\nremove_worktree = \"prefix+y\"\n";

#[test]
fn worktree_keys_create_open_and_remove_checkouts_of_the_focused_repository() {
    let server = TestServer::prepare();
    let repo = repo(&server, "api");
    let tmux = attached(&server, Some(CONFIG));
    server.call("workspace.create", json!({"cwd": repo, "label": "api", "focus": true}));
    wait_focused(&server, "api");
    let api = workspace_id(&server, "api");

    // prefix+shift+g: the branch dialog; Enter makes the checkout and focuses its workspace.
    tmux.keys(&["C-b", "G"]);
    tmux.wait_screen("the branch dialog", |s| s.contains("new worktree: branch"));
    tmux.literal("fix-login");
    tmux.keys(&["Enter"]);
    wait_focused(&server, "fix-login");
    let listed = server.call("worktree.list", json!({"workspace_id": api}));
    let fix = listed["worktrees"]
        .as_array()
        .and_then(|all| all.iter().find(|w| w["branch"] == "fix-login"))
        .unwrap_or_else(|| panic!("no fix-login checkout in {listed}"))
        .clone();
    let fix_path = PathBuf::from(fix["path"].as_str().expect("a path"));
    assert!(fix_path.join("README").is_file(), "the checkout is on disk at {}", fix_path.display());
    // The sidebar shows it indented under the repository's workspace, right after it.
    let labels: Vec<String> =
        workspaces(&server).iter().filter_map(|w| w["label"].as_str().map(str::to_owned)).collect();
    let at = labels.iter().position(|l| l == "api").expect("api listed");
    assert_eq!(labels.get(at + 1).map(String::as_str), Some("fix-login"), "{labels:?}");
    tmux.wait_screen("fix-login indented in the sidebar", |s| {
        s.lines().any(|l| l.starts_with("   ") && l.contains("fix-login"))
    });

    // open_worktree from the repository's workspace: a checkout made outside herdr is listed
    // and opens in a new workspace.
    let spike = repo.parent().expect("work dir").join("api-spike");
    git(&repo, &["worktree", "add", "--quiet", "-b", "spike", spike.to_str().expect("utf-8")]);
    server.call("workspace.focus", json!({"workspace_id": api}));
    wait_focused(&server, "api");
    tmux.keys(&["C-b", "u"]);
    let screen = tmux.wait_screen("the checkout menu", |s| s.contains("fix-login ●") && s.contains("spike"));
    assert!(screen.contains("main ●"), "the open checkouts are marked:\n{screen}");
    let order: Vec<Value> = server.call("worktree.list", json!({"workspace_id": api}))["worktrees"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|w| w["is_bare"] != true)
        .collect();
    let index = order.iter().position(|w| w["branch"] == "spike").expect("spike listed");
    for _ in 0..=index {
        tmux.keys(&["Down"]);
    }
    tmux.keys(&["Enter"]);
    wait_focused(&server, "api-spike");

    // remove_worktree on the spike's workspace: asked first; n keeps it, y removes it.
    tmux.keys(&["C-b", "y"]);
    tmux.wait_screen("the remove question", |s| s.contains("remove the worktree of \"api-spike\"?"));
    tmux.keys(&["n"]);
    tmux.wait_screen("the question gone", |s| !s.contains("remove the worktree"));
    assert!(spike.exists(), "n keeps the checkout");
    tmux.keys(&["C-b", "y"]);
    tmux.wait_screen("the remove question again", |s| s.contains("remove the worktree of"));
    tmux.keys(&["y"]);
    wait_until("the spike checkout removed", PATIENCE, || {
        if spike.exists() { Err(format!("{} still there", spike.display())) } else { Ok(()) }
    });
    wait_until("its workspace closed", PATIENCE, || {
        let all = workspaces(&server);
        if all.iter().any(|w| w["label"] == "api-spike") { Err(format!("{all:?}")) } else { Ok(()) }
    });
    let branches = git(&repo, &["branch", "--format=%(refname:short)"]);
    assert!(branches.lines().any(|b| b == "spike"), "the branch is kept: {branches}");

    // On the main checkout there is nothing to remove: the refusal is shown, nothing changes.
    server.call("workspace.focus", json!({"workspace_id": api}));
    wait_focused(&server, "api");
    tmux.keys(&["C-b", "y"]);
    tmux.wait_screen("the refusal toast", |s| s.contains("worktree.remove failed"));
    assert!(repo.join("README").is_file());
    assert!(workspaces(&server).iter().any(|w| w["label"] == "api"));
}
