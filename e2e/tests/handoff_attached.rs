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

    // The client notices the closed connection and reconnects with a short backoff; keys typed
    // in between are not delivered anywhere, so give it that moment.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // Still attached, top still drawing (a client told `Shutdown` would have exited to the shell).
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
    std::thread::sleep(std::time::Duration::from_millis(1500));
    tmux.keys(&["echo after-$((40+2))", "Enter"]);
    tmux.wait_screen("typing reaches the pane through the new supervisor", |s| {
        s.contains("before-21") && s.contains("after-42")
    });
}
