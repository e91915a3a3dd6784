//! Live handoff with a terminal attached: the client is dropped without `Shutdown`, reconnects
//! to the new supervisor by itself, and shows the same running program; typing still works.

// Every suite compiles its own copy of the shared tmux harness and uses a subset of it.
#[allow(dead_code)]
mod support;

use herdr_e2e::TestServer;
use support::attached;

#[test]
fn an_attached_terminal_follows_a_live_handoff() {
    let server = TestServer::prepare();
    let tmux = attached(&server, None);
    tmux.keys(&["echo before-$((20+1))", "Enter"]);
    tmux.wait_screen("the shell's output", |s| s.contains("before-21"));
    tmux.keys(&["top -d 0.5", "Enter"]);
    let top =
        |s: &str| s.contains("load average") && s.lines().any(|r| r.contains("PID") && r.contains("USER"));
    tmux.wait_screen("top", top);

    let handoff = server.cli(&["server", "live-handoff"]);
    assert!(handoff.status.success(), "live-handoff failed: {handoff:?}\nlog:\n{}", server.log_tail());

    // The client notices the closed connection and reconnects by itself: the new supervisor
    // welcomes it. Still attached, top still drawing (a client told `Shutdown` would have
    // exited to the shell).
    wait_reattached(&server, 1);
    tmux.wait_screen("top after the handoff", top);
}

#[test]
fn typing_reaches_the_shell_after_a_live_handoff() {
    let server = TestServer::prepare();
    let tmux = attached(&server, None);
    tmux.keys(&["echo before-$((20+1))", "Enter"]);
    tmux.wait_screen("the shell's output", |s| s.contains("before-21"));
    let handoff = server.cli(&["server", "live-handoff"]);
    assert!(handoff.status.success(), "live-handoff failed: {handoff:?}\nlog:\n{}", server.log_tail());
    wait_reattached(&server, 1);
    tmux.keys(&["echo after-$((40+2))", "Enter"]);
    tmux.wait_screen("typing reaches the pane through the new supervisor", |s| {
        s.contains("before-21") && s.contains("after-42")
    });
}

/// How many times a terminal client was welcomed, per the session's server log (the attached
/// client's server and the importer both append to `herdr-server.log`).
fn client_attaches(server: &TestServer) -> usize {
    let log = std::fs::read_to_string(server.data_dir().join("herdr-server.log")).unwrap_or_default();
    log.lines().filter(|l| l.contains("terminal client") && l.contains(" attached (")).count()
}

/// Waits until the session's log shows more than `before` terminal clients welcomed.
fn wait_reattached(server: &TestServer, before: usize) {
    herdr_e2e::wait_until("the new supervisor to welcome the terminal", herdr_e2e::PATIENCE, || {
        let now = client_attaches(server);
        if now > before { Ok(()) } else { Err(format!("{now} attaches logged")) }
    });
}

/// A key typed the moment the handoff returns, while the terminal is still reconnecting, is not
/// lost: the client holds it for the new supervisor, and `q` quits `top`. (It was dropped
/// before: a user's `q` right after `herdr update --handoff` left `top` running.)
#[test]
fn q_typed_during_the_reconnect_still_quits_top() {
    let server = TestServer::prepare();
    let tmux = attached(&server, None);
    tmux.keys(&["top -d 0.5", "Enter"]);
    let top =
        |s: &str| s.contains("load average") && s.lines().any(|r| r.contains("PID") && r.contains("USER"));
    tmux.wait_screen("top", top);
    let before = client_attaches(&server);
    assert_eq!(before, 1, "one client attached before the handoff");

    let handoff = server.cli(&["server", "live-handoff"]);
    assert!(handoff.status.success(), "live-handoff failed: {handoff:?}\nlog:\n{}", server.log_tail());
    tmux.keys(&["q"]);
    tmux.wait_screen("top to quit back to the shell", |s| !top(s) && s.contains("e2e$"));
    assert_eq!(client_attaches(&server), before + 1, "the terminal followed the handoff");
}
