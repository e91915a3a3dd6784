//! A local client hands its terminal to the supervisor (the client protocol's module doc): in a
//! real terminal (tmux), the supervisor holds a descriptor of the client's terminal and the
//! client reads nothing from it, typing still reaches the pane and its echo the screen, and on
//! detach the supervisor lets go of the terminal before the shell gets it back (nothing typed
//! afterwards is read by anyone else). When the supervisor dies, the client reads its terminal
//! again while it reconnects, and hands it to the next server, which reads and paints it.

// Every suite compiles its own copy of the shared tmux harness and uses a subset of it.
#[allow(dead_code)]
mod support;

use std::os::unix::fs::{FileTypeExt, MetadataExt};

use herdr_e2e::{PATIENCE, TestServer, procs, wait_until};
use support::{Tmux, boxes_on_top_row};

/// The device number of the tmux pane's terminal.
fn pane_terminal(tmux: &Tmux<'_>) -> u64 {
    let out = tmux.run(&["display-message", "-p", "-t", "0", "#{pane_tty}"]);
    let path = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    std::fs::metadata(&path).unwrap_or_else(|e| panic!("stat {path}: {e}")).rdev()
}

/// How many of `pid`'s descriptors are the terminal `rdev`.
fn descriptors_of(pid: i32, rdev: u64) -> usize {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { return 0 };
    fds.filter_map(Result::ok)
        .filter(|fd| {
            std::fs::metadata(fd.path()).is_ok_and(|m| m.file_type().is_char_device() && m.rdev() == rdev)
        })
        .count()
}

/// The names of `pid`'s threads.
fn threads(pid: i32) -> Vec<String> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return Vec::new() };
    tasks
        .filter_map(Result::ok)
        .filter_map(|task| std::fs::read_to_string(task.path().join("comm")).ok())
        .map(|name| name.trim().to_owned())
        .collect()
}

/// The one live supervisor of this test.
fn supervisor(server: &TestServer) -> i32 {
    let mut found = 0;
    wait_until("one supervisor", PATIENCE, || match server.supervisors().as_slice() {
        [one] => {
            found = one.pid;
            Ok(())
        }
        other => Err(format!("{} supervisors", other.len())),
    });
    found
}

/// The live plain `herdr` client of this test.
fn client(server: &TestServer) -> i32 {
    let mut found = 0;
    wait_until("one attached client", PATIENCE, || {
        let clients: Vec<i32> = server
            .marked_processes()
            .into_iter()
            .filter(|p| p.state != 'Z' && p.cmdline == ["herdr"])
            .map(|p| p.pid)
            .collect();
        match clients.as_slice() {
            [one] => {
                found = *one;
                Ok(())
            }
            other => Err(format!("clients {other:?}")),
        }
    });
    found
}

/// A plain `herdr` attached in the tmux pane, its supervisor holding the pane's terminal.
struct Attached {
    /// The device number of the tmux pane's terminal.
    terminal: u64,
    supervisor: i32,
    client: i32,
}

fn attach(server: &TestServer, tmux: &Tmux<'_>) -> Attached {
    tmux.wait_screen("the shell prompt", |s| s.contains("e2e$"));
    let terminal = pane_terminal(tmux);
    tmux.keys(&["herdr", "Enter"]);
    tmux.wait_screen("the sidebar and one pane", |s| s.contains("spaces") && boxes_on_top_row(s) == 1);
    let supervisor = supervisor(server);
    let client = client(server);
    wait_until("the supervisor to hold the client's terminal", PATIENCE, || {
        match descriptors_of(supervisor, terminal) {
            1 => Ok(()),
            n => Err(format!("{n} descriptors of it")),
        }
    });
    Attached { terminal, supervisor, client }
}

#[test]
fn the_supervisor_reads_and_paints_a_local_clients_terminal_and_lets_go_of_it_on_detach() {
    let server = TestServer::prepare();
    let tmux = Tmux::start(&server);
    let Attached { terminal, supervisor, client } = attach(&server, &tmux);
    let names = threads(client);
    assert!(
        names.iter().any(|n| n == "herdr-signals") && !names.iter().any(|n| n == "herdr-input"),
        "the client reads nothing from its terminal: threads {names:?}"
    );

    tmux.keys(&["echo taken-$((40+2))", "Enter"]);
    tmux.wait_screen("the typed command's output, painted by the supervisor", |s| {
        s.lines().any(|row| row.contains("taken-42") && !row.contains("$(("))
    });

    detach_and_type_to_the_shell(&tmux, supervisor, terminal);
    server.assert_alive();
}

/// `ctrl+b q`: the supervisor lets go of the terminal before the shell gets it back, and the
/// shell reads what is typed next (nobody else does).
fn detach_and_type_to_the_shell(tmux: &Tmux<'_>, supervisor: i32, terminal: u64) {
    tmux.keys(&["C-b", "q"]);
    tmux.wait_screen("the shell after detaching", |s| s.contains("[detached]") && s.contains("e2e$"));
    assert_eq!(descriptors_of(supervisor, terminal), 0, "the supervisor let go of the terminal");
    tmux.keys(&["clear; echo shell-got-$((1+1))", "Enter"]);
    tmux.wait_screen("the shell to read what is typed after the detach", |s| {
        s.lines().any(|row| row.trim_end().ends_with("shell-got-2") && !row.contains("$(("))
    });
}

#[test]
fn when_its_supervisor_dies_the_client_reads_its_terminal_until_the_next_one_takes_it() {
    let server = TestServer::prepare();
    let tmux = Tmux::start(&server);
    let Attached { terminal, supervisor: first, client } = attach(&server, &tmux);

    // SAFETY: kill(2) with a pid this test found and a valid signal.
    assert_eq!(unsafe { libc::kill(first, libc::SIGKILL) }, 0, "kill the supervisor");
    procs::wait_gone("the killed supervisor", &[first]);
    wait_until("the client to read its terminal again", PATIENCE, || {
        let names = threads(client);
        if names.iter().any(|n| n == "herdr-input") { Ok(()) } else { Err(format!("threads {names:?}")) }
    });
    // The client starts the next server itself and offers it the terminal again.
    let second = supervisor(&server);
    assert_ne!(second, first);
    tmux.wait_screen("the session drawn again", |s| {
        s.contains("spaces") && boxes_on_top_row(s) == 1 && !s.to_lowercase().contains("reconnecting")
    });
    wait_until("the next supervisor to take the terminal", PATIENCE, || {
        match (descriptors_of(second, terminal), threads(client)) {
            (1, names) if !names.iter().any(|n| n == "herdr-input") => Ok(()),
            (n, names) => Err(format!("{n} descriptors of it; client threads {names:?}")),
        }
    });
    tmux.keys(&["echo again-$((40+2))", "Enter"]);
    tmux.wait_screen("the typed command's output after the restart", |s| {
        s.lines().any(|row| row.contains("again-42") && !row.contains("$(("))
    });
    // Detaching from the second server gives the terminal back to the shell, as from the first.
    detach_and_type_to_the_shell(&tmux, second, terminal);
}
