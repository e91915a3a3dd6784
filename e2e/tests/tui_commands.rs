//! Custom commands (`[[keys.command]]`), the scrollback editor (`prefix+e`) and the goto picker
//! (`prefix+g`) in a real terminal: `herdr` runs inside tmux, the test types with `send-keys`,
//! reads the screen with `capture-pane` and checks the session through the API.

// The shared tmux harness has helpers (paste buffers, second sockets) this suite does not use.
#[allow(dead_code)]
mod support;

use herdr_e2e::{PATIENCE, TestServer, wait_until};
use serde_json::{Value, json};
use support::{Tmux, attached, boxes_on_top_row, find_on_screen, sgr_mouse};

fn panes(server: &TestServer) -> Vec<Value> {
    server.call("pane.list", json!({}))["panes"].as_array().cloned().unwrap_or_default()
}

fn snapshot(server: &TestServer) -> Value {
    server.call("session.snapshot", json!({}))["snapshot"].clone()
}

/// Moves the focused pane's shell into `$HOME/work` (made for it) and returns that directory.
fn cd_work(tmux: &Tmux<'_>, server: &TestServer) -> std::path::PathBuf {
    let work = server.root().join("home").join("work");
    std::fs::create_dir_all(&work).expect("create the work dir");
    tmux.keys(&["cd \"$HOME/work\" && echo moved''-in", "Enter"]);
    tmux.wait_screen("the shell moved", |s| s.contains("moved-in"));
    work.canonicalize().expect("the work dir's real path")
}

/// Waits until `read()` returns `expected`.
fn wait_for<T: PartialEq + std::fmt::Debug>(what: &str, expected: T, read: impl Fn() -> T) {
    wait_until(what, PATIENCE, || {
        let now = read();
        if now == expected { Ok(()) } else { Err(format!("{now:?}")) }
    });
}

const COMMANDS: &str = r#"
[[keys.command]]
key = "prefix+t"
type = "pane"
command = "echo pane-command-ran in $(basename \"$(pwd -P)\"); read answer"
description = "a pane that waits"

[[keys.command]]
key = "prefix+y"
type = "shell"
command = "printf '%s %s' \"$HERDR_PANE_ID\" \"$(pwd -P)\" > \"$HOME/shell-made.tmp\" && mv \"$HOME/shell-made.tmp\" \"$HOME/shell-made\""
description = "write a file"
"#;

#[test]
fn a_pane_command_opens_a_pane_running_it_that_closes_with_it() {
    let server = TestServer::prepare();
    let tmux = attached(&server, Some(COMMANDS));
    let first = snapshot(&server)["focused_pane_id"].as_str().map(str::to_owned);
    cd_work(&tmux, &server);

    tmux.keys(&["C-b", "t"]);
    wait_for("two panes", 2, || panes(&server).len());
    tmux.wait_screen("the command's output in a second box, run where the pane's shell is", |s| {
        s.contains("pane-command-ran in work") && boxes_on_top_row(s) == 2
    });
    let focused = snapshot(&server)["focused_pane_id"].as_str().map(str::to_owned);
    assert_ne!(focused, first, "the command's pane has the focus");
    // The layout records the program the pane runs, not a shell.
    let layout = server.call("layout.export", json!({}))["layout"].to_string();
    assert!(layout.contains("\"command\":[\"sh\",\"-c\""), "the exported layout names the command: {layout}");

    // The program is the pane's: when it ends, the pane closes.
    tmux.keys(&["Enter"]);
    wait_for("one pane again", 1, || panes(&server).len());
    tmux.wait_screen("one box", |s| boxes_on_top_row(s) == 1 && !s.contains("pane-command-ran"));

    // The help lists the commands by their description.
    tmux.keys(&["C-b", "?"]);
    tmux.wait_screen("the help with the commands", |s| {
        s.contains("a pane that waits (pane)") && s.contains("write a file")
    });
    tmux.keys(&["Escape"]);
}

#[test]
fn a_shell_command_runs_detached_with_the_focused_panes_environment() {
    let server = TestServer::prepare();
    let tmux = attached(&server, Some(COMMANDS));
    let focused = snapshot(&server)["focused_pane_id"].as_str().map(str::to_owned).expect("a focused pane");
    let work = cd_work(&tmux, &server);

    tmux.keys(&["C-b", "y"]);
    let made = server.root().join("home").join("shell-made");
    let content = wait_until("the shell command's file", PATIENCE, || {
        std::fs::read_to_string(&made).map_err(|e| e.to_string())
    });
    assert_eq!(
        content,
        format!("{focused} {}", work.display()),
        "HERDR_PANE_ID is the focused pane's, and it runs where that pane's shell is"
    );
    assert_eq!(panes(&server).len(), 1, "a shell command opens no pane");
}

#[test]
fn prefix_e_opens_the_scrollback_in_vi_in_a_zoomed_pane_and_q_closes_it() {
    let server = TestServer::prepare();
    let tmux = attached(&server, Some(""));
    tmux.keys(&["echo scroll''back-marker-42", "Enter"]);
    tmux.wait_screen("the marker printed", |s| s.contains("scrollback-marker-42"));

    tmux.keys(&["C-b", "e"]);
    wait_for("the editor's pane", 2, || panes(&server).len());
    // vi shows the file: the marker line, and its status line names the file.
    let screen = tmux.wait_screen("vi with the scrollback, zoomed", |s| {
        s.contains("scrollback-marker-42") && s.contains("~ ") && boxes_on_top_row(s) == 1
    });
    assert!(screen.contains("echo scroll''back-marker-42"), "the command line is there too:\n{screen}");
    let dir = server.root().join("sock").join("scrollback");
    // Only the scrollback file itself: vi may keep a swap file next to it.
    let files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the scrollback dir")
        .flatten()
        .filter(|f| f.file_name().to_string_lossy().ends_with(".txt"))
        .collect();
    assert_eq!(files.len(), 1, "one scrollback file");
    use std::os::unix::fs::PermissionsExt;
    let mode = files[0].metadata().expect("metadata").permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "only the user can read it");

    // vi can still be reading its terminal's replies when it has drawn, and keys typed then can
    // be lost under load: ask again until its pane is gone.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while panes(&server).len() != 1 {
        assert!(std::time::Instant::now() < deadline, "the editor's pane never closed");
        tmux.keys(&[":q", "Enter"]);
        let asked = std::time::Instant::now();
        while panes(&server).len() != 1 && asked.elapsed() < std::time::Duration::from_secs(3) {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
    wait_for("the file (and any swap file) deleted", 0, || {
        std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0)
    });
    tmux.wait_screen("back to the shell", |s| s.contains("e2e$") && !s.contains("~ "));
}

#[test]
fn goto_picks_a_tab_in_another_workspace_by_filter_and_by_click() {
    let server = TestServer::prepare();
    let tmux = attached(&server, Some(""));
    let created = server.call("workspace.create", json!({ "label": "backend", "focus": false }));
    let backend = created["workspace"]["workspace_id"].as_str().expect("a workspace id").to_owned();
    let tab =
        server.call("tab.create", json!({ "workspace_id": backend, "label": "deploy", "focus": false }));
    let deploy = tab["tab"]["tab_id"].as_str().expect("a tab id").to_owned();
    let home = snapshot(&server)["focused_tab_id"].as_str().map(str::to_owned);

    tmux.keys(&["C-b", "g"]);
    tmux.wait_screen("the picker", |s| s.contains("go to") && s.contains("backend") && s.contains("deploy"));
    tmux.keys(&["Escape"]);
    tmux.wait_screen("the picker closed", |s| !s.contains("type to filter"));
    assert_eq!(snapshot(&server)["focused_tab_id"].as_str().map(str::to_owned), home, "esc goes nowhere");

    tmux.keys(&["C-b", "g"]);
    tmux.wait_screen("the picker again", |s| s.contains("type to filter"));
    tmux.keys(&["-l", "DEPL"]);
    tmux.wait_screen("the filter typed", |s| s.contains("> DEPL"));
    tmux.keys(&["Enter"]);
    wait_for("the deploy tab focused", Some(deploy.clone()), || {
        snapshot(&server)["focused_tab_id"].as_str().map(str::to_owned)
    });
    tmux.wait_screen("the picker closed after enter", |s| !s.contains("type to filter"));

    // Back by the first workspace's label: its entry comes first, and focusing it shows its tab.
    let first_label = snapshot(&server)["workspaces"][0]["label"].as_str().expect("a label").to_owned();
    tmux.keys(&["C-b", "g"]);
    tmux.wait_screen("the picker once more", |s| s.contains("type to filter"));
    tmux.keys(&["-l", &first_label]);
    tmux.keys(&["Enter"]);
    wait_for("the first tab focused again", home.clone(), || {
        snapshot(&server)["focused_tab_id"].as_str().map(str::to_owned)
    });
    // The screen lags the session a little: the old picker and tab bar must be gone first.
    tmux.wait_screen("the first workspace shown", |s| {
        !s.contains("type to filter") && !s.lines().next().unwrap_or("").contains("deploy")
    });

    // A click on an entry goes there.
    tmux.keys(&["C-b", "g"]);
    let screen = tmux.wait_screen("the picker for a click", |s| s.contains("type to filter"));
    let (x, y) = find_on_screen(&screen, "2 deploy").expect("the deploy tab's entry");
    tmux.literal(&sgr_mouse(0, x + 3, y, true));
    tmux.literal(&sgr_mouse(0, x + 3, y, false));
    wait_for("the deploy tab focused by a click", Some(deploy), || {
        snapshot(&server)["focused_tab_id"].as_str().map(str::to_owned)
    });
}
