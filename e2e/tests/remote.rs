//! `herdr --remote` end to end: the local `herdr` runs in a real terminal (tmux) with its own
//! HOME (key, known_hosts) and reaches a real `sshd` on loopback, whose sessions run the test's
//! hermetic herdr session (see `herdr_e2e::sshd`). What a person would see: an unknown or
//! changed host key refused with its fingerprint and the line to add; attaching, splitting,
//! typing (read back with the remote host's own CLI over plain ssh), detaching and re-attaching;
//! an `~/.ssh/config` alias with its own IdentityFile, then the ssh agent; a host without herdr
//! getting this build copied after a yes; a dropped link (sshd killed) showing "reconnecting…"
//! and coming back to the same running panes, and one that stays down ending with the command
//! that re-attaches; a link cut silently for 10 s (a relay that holds every byte) noticed by
//! keepalives and restored by itself; typing that still echoes over a 300 ms RTT link while
//! another pane floods output; over a 300 ms RTT link that also drops 2 % of its packets
//! (namespaces joined by TUN devices, see `herdr_e2e::lossy_link`), herdr's keystroke echo
//! p50 within 20 ms of plain OpenSSH `ssh` through the same link to the same sshd; a copy made on the remote host landing in the local clipboard
//! (OSC 52 through the relay); `--session NAME` reaching that session only; the local
//! machine's `[keys]` applying by default and the remote server's with
//! `--remote-keybindings server`; and that only `herdr-remote`, which `herdr --remote` execs,
//! links ssh (libssl, libcrypto), with a clear error when it is missing.

#[allow(dead_code, reason = "each suite uses part of the shared tmux driver")]
mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use herdr_e2e::lossy_link::{LossyLink, Shape, Side};
use herdr_e2e::pty::{PtyProgram, percentile};
use herdr_e2e::sshd::{LinkRelay, RemotePath, Sshd};
use herdr_e2e::{PATIENCE, TestServer, wait_until};
use serde_json::{Value, json};
use support::{Tmux, boxes_on_top_row, find_on_screen, sgr_mouse};

fn sshd_for(server: &TestServer, path: RemotePath) -> Sshd {
    if let Some(reason) = Sshd::unavailable() {
        panic!("the remote suite cannot run here: {reason}");
    }
    Sshd::start(server, path)
}

/// The command line that runs the local herdr against `sshd` (with `env` before it).
fn remote_command(sshd: &Sshd, env: &str, args: &str) -> String {
    format!("{env} HOME={} herdr --remote {} {args}", sshd.client_home().display(), sshd.target())
}

fn pane_ids(server: &TestServer) -> Vec<String> {
    let list = server.call("pane.list", json!({}));
    list["panes"].as_array().map_or_else(Vec::new, |panes| {
        panes.iter().filter_map(|p| p["pane_id"].as_str().map(str::to_owned)).collect()
    })
}

/// Clears the terminal and waits until only the prompt is left, so the next check cannot match
/// what an earlier command printed.
fn clear_screen(tmux: &Tmux<'_>) {
    tmux.keys(&["clear", "Enter"]);
    tmux.wait_screen("a cleared screen", |s| {
        let lines: Vec<&str> = s.lines().filter(|l| !l.trim().is_empty()).collect();
        lines == ["e2e$"]
    });
}

/// The screen with wrapped lines joined (long messages wrap at the terminal's width).
fn joined_screen(tmux: &Tmux<'_>) -> String {
    String::from_utf8_lossy(&tmux.run(&["capture-pane", "-p", "-J", "-t", "0"]).stdout).into_owned()
}

/// Waits until the shell prompt is back on the last line and `check` holds; the joined screen.
fn wait_finished(tmux: &Tmux<'_>, what: &str, check: impl Fn(&str) -> bool) -> String {
    wait_until(what, PATIENCE, || {
        let screen = joined_screen(tmux);
        let prompt = screen.lines().rev().find(|l| !l.trim().is_empty()).is_some_and(|l| l.trim() == "e2e$");
        if prompt && check(&screen) { Ok(screen) } else { Err(screen) }
    })
}

fn wait_attached(tmux: &Tmux<'_>, panes: usize) -> String {
    tmux.wait_screen(&format!("the remote session with {panes} pane(s)"), |s| {
        s.contains("spaces") && boxes_on_top_row(s) == panes && !s.contains("reconnecting")
    })
}

#[test]
fn an_unknown_or_changed_host_key_is_refused_with_its_fingerprint() {
    let server = TestServer::prepare();
    let sshd = sshd_for(&server, RemotePath::WithHerdr);
    let tmux = Tmux::start(&server);
    tmux.wait_screen("the shell prompt", |s| s.contains("e2e$"));

    tmux.keys(&[&remote_command(&sshd, "", ""), "Enter"]);
    let fingerprint = sshd.fingerprint();
    let line = sshd.known_hosts_line();
    let screen = wait_finished(&tmux, "the refusal", |s| s.contains("is not known"));
    assert!(
        screen.contains(&fingerprint),
        "the fingerprint {fingerprint} (ssh-keygen -lf) is shown:\n{screen}"
    );
    assert!(
        screen.lines().any(|l| l.trim() == line),
        "the known_hosts line {line} is shown alone:\n{screen}"
    );
    assert!(sshd.connections().is_empty(), "the refused connection is closed");
    assert!(server.answers_ping().is_err(), "nothing ran on the remote host");

    // A different key recorded for the host: refused as changed, never accepted.
    let other = format!(
        "{} ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOUtRj+5QHExysV4Uln6WV5DsFkc+02vCXNClj1BzAVV",
        line.split(' ').next().unwrap_or_default()
    );
    sshd.write_known_hosts(&other);
    clear_screen(&tmux);
    tmux.keys(&[&remote_command(&sshd, "", ""), "Enter"]);
    let screen = wait_finished(&tmux, "the changed-key refusal", |s| s.contains("CHANGED"));
    assert!(screen.contains(&fingerprint) && screen.lines().any(|l| l.trim() == line), "{screen}");
    assert!(server.answers_ping().is_err(), "nothing ran on the remote host");
}

#[test]
fn attach_split_type_detach_and_reattach_through_ssh() {
    let server = TestServer::prepare();
    let sshd = sshd_for(&server, RemotePath::WithHerdr);
    sshd.trust_host_key();
    let tmux = Tmux::start(&server);
    tmux.wait_screen("the shell prompt", |s| s.contains("e2e$"));

    // No server runs on the remote host: attaching starts one there.
    tmux.keys(&[&remote_command(&sshd, "", ""), "Enter"]);
    wait_attached(&tmux, 1);
    server.answers_ping().expect("the remote host runs the session's server");

    tmux.keys(&["C-b", "v"]);
    wait_until("two panes on the remote host", PATIENCE, || match pane_ids(&server).len() {
        2 => Ok(()),
        n => Err(format!("{n} panes")),
    });
    wait_attached(&tmux, 2);
    tmux.literal("echo over-ssh-$((40+2))");
    tmux.keys(&["Enter"]);
    tmux.wait_screen("the output in the local terminal", |s| s.contains("over-ssh-42"));

    // Read back on the remote host with its own CLI, over plain OpenSSH.
    let focused = server.call("session.snapshot", json!({}))["snapshot"]["focused_pane_id"]
        .as_str()
        .expect("a focused pane")
        .to_owned();
    wait_until("the remote CLI reads the typed output", PATIENCE, || {
        let output = sshd.ssh(&format!("herdr pane read {focused} --source recent"));
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        // Typed before the new pane's first prompt, the output shares its line with the prompt.
        let printed = |l: &str| l.trim_end().ends_with("over-ssh-42") && !l.contains("echo");
        if text.lines().any(printed) { Ok(()) } else { Err(text) }
    });

    tmux.keys(&["C-b", "q"]);
    tmux.wait_screen("the detach message", |s| s.contains("[detached] re-attach with: herdr --remote"));
    server.assert_alive();
    assert_eq!(pane_ids(&server).len(), 2, "the remote panes keep running after detach");
    wait_until("the ssh session ends with the detach", PATIENCE, || match sshd.connections().len() {
        0 => Ok(()),
        n => Err(format!("{n} connections")),
    });

    clear_screen(&tmux);
    tmux.keys(&[&remote_command(&sshd, "", ""), "Enter"]);
    // A first paint can land in the terminal in pieces: wait for the whole of it.
    tmux.wait_screen("the re-attached screen with the same two panes and their output", |s| {
        s.contains("spaces") && boxes_on_top_row(s) == 2 && s.contains("over-ssh-42")
    });
    tmux.keys(&["C-b", "q"]);
    tmux.wait_screen("the second detach", |s| s.contains("[detached]"));
}

fn read_bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

#[test]
fn a_host_without_herdr_gets_this_build_after_a_yes() {
    let server = TestServer::prepare();
    let sshd = sshd_for(&server, RemotePath::WithoutHerdr);
    sshd.trust_host_key();
    let tmux = Tmux::start(&server);
    tmux.wait_screen("the shell prompt", |s| s.contains("e2e$"));
    let remote_local = server.root().join("home/.local");

    // Declining installs nothing.
    tmux.keys(&[&remote_command(&sshd, "", ""), "Enter"]);
    tmux.wait_screen("the question", |s| s.contains("[y/N]"));
    tmux.keys(&["n", "Enter"]);
    wait_finished(&tmux, "the refusal", |s| s.contains("not installing") && s.contains("--yes"));
    assert!(!remote_local.join("bin/herdr").exists(), "nothing was copied");

    // Yes copies herdr, the worker and the library, then attaches with the copy.
    clear_screen(&tmux);
    tmux.keys(&[&remote_command(&sshd, "", ""), "Enter"]);
    tmux.wait_screen("the question", |s| s.contains("[y/N]"));
    tmux.keys(&["y", "Enter"]);
    // A debug build is some 240 MB to copy and hash; the wait is for that, not the attach.
    let screen = wait_until("the copy and the attach (or an error)", Duration::from_secs(240), || {
        let screen = tmux.screen(false);
        let attached = screen.contains("spaces") && boxes_on_top_row(&screen) == 1;
        if attached || screen.contains("herdr --remote:") { Ok(screen) } else { Err(screen) }
    });
    assert!(!screen.contains("herdr --remote:"), "the copy failed:\n{screen}");
    let bin = herdr_e2e::binaries::bin_dir();
    for (local, remote) in [("herdr", "bin/herdr"), ("herdr-pane-worker", "bin/herdr-pane-worker")] {
        assert!(
            read_bytes(&bin.join(local)) == read_bytes(&remote_local.join(remote)),
            "{remote} is a copy of {local}"
        );
    }
    assert!(remote_local.join("lib/libghostty-vt.so.0").is_file(), "the library is installed beside bin/");
    let supervisors = server.supervisors();
    let exe = supervisors.first().and_then(|p| std::fs::read_link(format!("/proc/{}/exe", p.pid)).ok());
    assert_eq!(exe, Some(remote_local.join("bin/herdr")), "the remote server runs the copied herdr");
    // The copied worker finds its library: the pane's shell answers.
    tmux.literal("echo copied-$((6*7))");
    tmux.keys(&["Enter"]);
    tmux.wait_screen("the pane answers", |s| s.contains("copied-42"));

    // Next time the copy is found and nothing is asked.
    tmux.keys(&["C-b", "q"]);
    tmux.wait_screen("the detach", |s| s.contains("[detached]"));
    clear_screen(&tmux);
    tmux.keys(&[&remote_command(&sshd, "", ""), "Enter"]);
    let screen = wait_attached(&tmux, 1);
    assert!(!screen.contains("[y/N]"), "{screen}");
}

#[test]
fn a_dropped_link_reconnects_to_the_running_panes_and_a_dead_one_ends_with_the_reattach_command() {
    let server = TestServer::prepare();
    let mut sshd = sshd_for(&server, RemotePath::WithHerdr);
    sshd.trust_host_key();
    let tmux = Tmux::start(&server);
    tmux.wait_screen("the shell prompt", |s| s.contains("e2e$"));
    tmux.keys(&[&remote_command(&sshd, "HERDR_REMOTE_RECONNECT_SECS=20", ""), "Enter"]);
    wait_attached(&tmux, 1);
    let panes = pane_ids(&server);
    let workers = sorted(server.worker_pids());
    // A counter that keeps printing while the link is down.
    tmux.literal("i=0; while :; do i=$((i+1)); echo tick-$i; sleep 0.2; done");
    tmux.keys(&["Enter"]);
    tmux.wait_screen("the counter", |s| s.contains("tick-3"));

    sshd.stop();
    tmux.wait_screen("the reconnecting notice", |s| s.contains("reconnecting"));
    let pane = panes.first().expect("a pane").clone();
    let before = tick(&server, &pane);
    wait_until("the remote pane keeps printing while the link is down", PATIENCE, || {
        let now = tick(&server, &pane);
        if now > before + 5 { Ok(()) } else { Err(format!("tick {now} (was {before})")) }
    });

    sshd.start_again();
    // The first paint after the reconnect can land in the terminal in pieces: wait for the whole.
    let screen =
        tmux.wait_screen("the reconnected screen with output printed while the link was down", |s| {
            s.contains("spaces")
                && !s.contains("reconnecting")
                && max_tick_shown(s).is_some_and(|n| n > before)
        });
    assert_eq!(boxes_on_top_row(&screen), 1, "{screen}");
    assert_eq!(pane_ids(&server), panes, "the same panes");
    assert_eq!(sorted(server.worker_pids()), workers, "the same workers: the panes never noticed");

    // Down for good: the client gives up after its bound and says how to come back.
    sshd.stop();
    tmux.wait_screen("the reconnecting notice", |s| s.contains("reconnecting"));
    let screen = wait_until("the give-up message", Duration::from_secs(60), || {
        let screen = joined_screen(&tmux);
        if screen.contains("re-attach with: herdr --remote") { Ok(screen) } else { Err(screen) }
    });
    assert!(screen.contains(&format!("re-attach with: herdr --remote {}", sshd.target())), "{screen}");
    assert!(screen.contains("could not reconnect within 20 s"), "{screen}");
    server.assert_alive();
    assert_eq!(sorted(server.worker_pids()), workers, "the remote panes keep running");
}

/// The highest `tick-N` on the screen.
fn max_tick_shown(screen: &str) -> Option<u64> {
    screen
        .lines()
        .filter_map(|l| l.split("tick-").nth(1))
        .filter_map(|n| n.split(|c: char| !c.is_ascii_digit()).next()?.parse::<u64>().ok())
        .max()
}

fn sorted(mut pids: Vec<i32>) -> Vec<i32> {
    pids.sort_unstable();
    pids
}

/// The highest `tick-N` the pane printed (read on the remote host's API).
fn tick(server: &TestServer, pane: &str) -> u64 {
    let read: Value = server.call("pane.read", json!({ "pane_id": pane, "source": "recent" }));
    let text = read["read"]["text"].as_str().unwrap_or_default();
    text.lines().filter_map(|l| l.trim().strip_prefix("tick-")?.parse().ok()).max().unwrap_or(0)
}

#[test]
fn an_alias_with_its_own_key_then_the_agent_authenticate_against_hashed_known_hosts() {
    let server = TestServer::prepare();
    let sshd = sshd_for(&server, RemotePath::WithHerdr);
    sshd.trust_host_key();
    // Hashed host names, as `HashKnownHosts yes` writes them.
    let hashed = std::process::Command::new("ssh-keygen")
        .arg("-H")
        .arg("-f")
        .arg(sshd.client_home().join(".ssh/known_hosts"))
        .output()
        .expect("run ssh-keygen -H");
    assert!(hashed.status.success(), "ssh-keygen -H: {}", String::from_utf8_lossy(&hashed.stderr));
    let known =
        std::fs::read_to_string(sshd.client_home().join(".ssh/known_hosts")).expect("read known_hosts");
    assert!(known.starts_with("|1|"), "hashed: {known}");
    // The only accepted key under a name no default looks for: only IdentityFile can find it.
    let ssh_dir = sshd.client_home().join(".ssh");
    std::fs::rename(ssh_dir.join("id_ed25519"), ssh_dir.join("box_key")).expect("rename the key");
    let config = format!(
        "Host elsewhere\n  User nobody\n\nHost remote-box\n  HostName 127.0.0.1\n  Port {}\n  User root\n  IdentityFile ~/.ssh/box_key\n",
        sshd.port()
    );
    std::fs::write(ssh_dir.join("config"), &config).expect("write ~/.ssh/config");
    let tmux = Tmux::start(&server);
    tmux.wait_screen("the shell prompt", |s| s.contains("e2e$"));
    let home = sshd.client_home().display().to_string();

    tmux.keys(&[&format!("HOME={home} herdr --remote remote-box"), "Enter"]);
    wait_attached(&tmux, 1);
    tmux.keys(&["C-b", "q"]);
    wait_finished(&tmux, "the detach", |s| {
        s.contains("[detached] re-attach with: herdr --remote remote-box")
    });

    // Without the IdentityFile line the key is only in the agent.
    let agent_socket = server.root().join("agent.sock");
    let mut agent = std::process::Command::new("ssh-agent")
        .arg("-D")
        .arg("-a")
        .arg(&agent_socket)
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("start ssh-agent");
    wait_until("the agent listens", PATIENCE, || {
        std::os::unix::net::UnixStream::connect(&agent_socket).map(drop).map_err(|e| e.to_string())
    });
    let added = std::process::Command::new("ssh-add")
        .arg(ssh_dir.join("box_key"))
        .env("SSH_AUTH_SOCK", &agent_socket)
        .output()
        .expect("run ssh-add");
    assert!(added.status.success(), "ssh-add: {}", String::from_utf8_lossy(&added.stderr));
    std::fs::write(ssh_dir.join("config"), config.replace("  IdentityFile ~/.ssh/box_key\n", ""))
        .expect("write");
    std::fs::remove_file(ssh_dir.join("box_key")).expect("remove the key file");

    clear_screen(&tmux);
    tmux.keys(&[&format!("HOME={home} herdr --remote remote-box"), "Enter"]);
    wait_finished(&tmux, "the refusal without agent or key", |s| s.contains("refused every key"));
    clear_screen(&tmux);
    tmux.keys(&[
        &format!("SSH_AUTH_SOCK={} HOME={home} herdr --remote remote-box", agent_socket.display()),
        "Enter",
    ]);
    wait_attached(&tmux, 1);
    tmux.keys(&["C-b", "q"]);
    wait_finished(&tmux, "the detach", |s| s.contains("[detached]"));
    // Our own child, ended by its pid.
    let _ = agent.kill();
    let _ = agent.wait();
}

#[test]
fn a_link_cut_for_ten_seconds_comes_back_by_itself_to_the_running_panes() {
    let server = TestServer::prepare();
    let sshd = sshd_for(&server, RemotePath::WithHerdr);
    let link = LinkRelay::start(sshd.port(), Duration::ZERO);
    sshd.write_known_hosts(&sshd.known_hosts_line_for(link.port()));
    let tmux = Tmux::start(&server);
    tmux.wait_screen("the shell prompt", |s| s.contains("e2e$"));
    // Keepalives every second: a silent link is dropped after four.
    let command = format!(
        "HERDR_REMOTE_KEEPALIVE_SECS=1 HOME={} herdr --remote ssh://root@127.0.0.1:{}",
        sshd.client_home().display(),
        link.port()
    );
    tmux.keys(&[&command, "Enter"]);
    wait_attached(&tmux, 1);
    let workers = sorted(server.worker_pids());
    let pane = pane_ids(&server).first().expect("a pane").clone();
    tmux.literal("i=0; while :; do i=$((i+1)); echo tick-$i; sleep 0.2; done");
    tmux.keys(&["Enter"]);
    tmux.wait_screen("the counter", |s| s.contains("tick-3"));

    let cut_at = Instant::now();
    link.cut();
    tmux.wait_screen("the reconnecting notice", |s| s.contains("reconnecting"));
    let before = tick(&server, &pane);
    // The fault is a ten-second outage: hold the cut for the rest of it.
    std::thread::sleep(Duration::from_secs(10).saturating_sub(cut_at.elapsed()));
    link.restore();

    tmux.wait_screen("the reconnected screen with output printed during the cut", |s| {
        s.contains("spaces") && !s.contains("reconnecting") && max_tick_shown(s).is_some_and(|n| n > before)
    });
    assert_eq!(sorted(server.worker_pids()), workers, "the same workers: the panes never noticed");
    tmux.keys(&["C-c"]);
    tmux.literal("echo after-cut-$((3*3))");
    tmux.keys(&["Enter"]);
    tmux.wait_screen("typing works again", |s| s.contains("after-cut-9"));
}

#[test]
fn typing_echoes_over_a_300_ms_link_while_a_pane_floods_output() {
    let server = TestServer::prepare();
    let sshd = sshd_for(&server, RemotePath::WithHerdr);
    let link = LinkRelay::start(sshd.port(), Duration::from_millis(150));
    sshd.write_known_hosts(&sshd.known_hosts_line_for(link.port()));
    let tmux = Tmux::start(&server);
    tmux.wait_screen("the shell prompt", |s| s.contains("e2e$"));
    let command =
        format!("HOME={} herdr --remote ssh://root@127.0.0.1:{}", sshd.client_home().display(), link.port());
    tmux.keys(&[&command, "Enter"]);
    wait_attached(&tmux, 1);

    // The left pane floods, the right one is typed into.
    tmux.literal("while :; do seq 1 2000; done");
    tmux.keys(&["Enter"]);
    tmux.keys(&["C-b", "v"]);
    wait_until("two panes", PATIENCE, || match pane_ids(&server).len() {
        2 => Ok(()),
        n => Err(format!("{n} panes")),
    });
    tmux.literal("echo slow-link-$((20+22))");
    tmux.keys(&["Enter"]);
    tmux.wait_screen("the echo over the slow link", |s| s.contains("slow-link-42"));
    tmux.keys(&["C-b", "q"]);
    wait_finished(&tmux, "the detach over the slow link", |s| s.contains("[detached]"));
}

/// Keystrokes timed per program over the lossy link (each ≥ one round trip).
const LOSSY_SAMPLES: usize = 25;

/// Types `ready-$((3*3))` and waits for the shell's answer, then lets the screen settle.
fn wait_ready(program: &mut PtyProgram, what: &str) {
    program.write(b"echo ready-$((3*3))\r");
    program.expect(what, b"ready-9", Duration::from_secs(60));
    program.drain(Duration::from_secs(1));
}

#[test]
fn over_a_300_ms_link_losing_2_percent_typing_echoes_within_20_ms_of_plain_ssh() {
    let server = TestServer::prepare();
    if let Some(reason) = Sshd::unavailable() {
        panic!("the remote suite cannot run here: {reason}");
    }
    let link = LossyLink::start(Shape { one_way: Duration::from_millis(150), loss: 0.02, seed: 11 });
    let sshd = Sshd::start_behind(&server, RemotePath::WithHerdr, &link);
    sshd.trust_host_key();

    // Both terminals live in the client namespace: every byte crosses the link.
    let mut local = server.command("ip");
    local
        .args(["netns", "exec", link.namespace(Side::Client)])
        .arg(herdr_e2e::binaries::binary("herdr"))
        .args(["--remote", &sshd.target()])
        .env("HOME", sshd.client_home());
    let mut herdr = PtyProgram::spawn(local, 120, 40);
    herdr.expect("the remote session over the lossy link", b"spaces", Duration::from_secs(90));
    wait_ready(&mut herdr, "the remote pane's shell");
    let mut plain = server.command("ip");
    plain
        .args(["netns", "exec", link.namespace(Side::Client), "ssh", "-tt"])
        .args(sshd.ssh_args())
        .arg("exec sh");
    let mut ssh = PtyProgram::spawn(plain, 120, 40);
    wait_ready(&mut ssh, "the shell of plain ssh");

    // Alternating, so both see the same moments of the link (and of the machine).
    let settle = Duration::from_millis(400);
    let bound = Duration::from_secs(20);
    let (mut through_herdr, mut through_ssh) = (Vec::new(), Vec::new());
    for n in 0..LOSSY_SAMPLES {
        through_herdr.push(herdr.echo_latency(n, settle, bound));
        through_ssh.push(ssh.echo_latency(n, settle, bound));
    }
    let (forwarded, dropped) = link.packets();
    assert!(dropped > 0, "the link dropped no packet of {forwarded}: nothing was retransmitted");
    let (herdr_p50, ssh_p50) = (percentile(&through_herdr, 50), percentile(&through_ssh, 50));
    eprintln!(
        "echo over 300 ms RTT, 2 % loss ({dropped} of {} packets dropped): herdr p50 {herdr_p50:?} p99 {:?}, \
         ssh p50 {ssh_p50:?} p99 {:?}",
        forwarded + dropped,
        percentile(&through_herdr, 99),
        percentile(&through_ssh, 99)
    );
    assert!(
        herdr_p50 <= ssh_p50 + Duration::from_millis(20),
        "herdr's echo p50 {herdr_p50:?} is more than 20 ms over plain ssh's {ssh_p50:?}:\nherdr {through_herdr:?}\nssh {through_ssh:?}"
    );
    // Still a working session after all that: the typed command runs.
    herdr.write(b"echo lossy-$((6*7))\r");
    herdr.expect("a command typed over the lossy link", b"lossy-42", Duration::from_secs(60));
}

#[test]
fn a_copy_in_the_remote_session_lands_in_the_local_clipboard() {
    let server = TestServer::prepare();
    let sshd = sshd_for(&server, RemotePath::WithHerdr);
    sshd.trust_host_key();
    let tmux = Tmux::start(&server);
    // The local terminal's clipboard: tmux keeps what OSC 52 sets as a paste buffer.
    tmux.run(&["set-option", "-g", "set-clipboard", "on"]);
    tmux.wait_screen("the shell prompt", |s| s.contains("e2e$"));
    tmux.keys(&[&remote_command(&sshd, "", ""), "Enter"]);
    wait_attached(&tmux, 1);
    tmux.literal("a=remote; echo \"$a-copied $a-text\"");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_screen("the line to drag over", |s| s.contains("remote-copied remote-text"));
    let (x, y) = find_on_screen(&screen, "remote-text").expect("the word on screen");
    let end = x + "remote-text".len() as u16 - 1;
    tmux.literal(&sgr_mouse(0, x, y, true));
    tmux.literal(&sgr_mouse(32, x + 3, y, true));
    tmux.literal(&sgr_mouse(32, end, y, true));
    // The default theme's selection background (#45475a) on the dragged row, then the release.
    wait_until("the dragged cells drawn as selected", PATIENCE, || {
        let screen = tmux.screen(true);
        let row = screen.lines().nth(usize::from(y)).unwrap_or_default().to_owned();
        if row.contains("48;2;69;71;90") { Ok(()) } else { Err(format!("row {row:?}")) }
    });
    tmux.literal(&sgr_mouse(0, end, y, false));
    tmux.wait_buffer("the text copied on the remote host in the local clipboard", "remote-text");
}

#[test]
fn a_named_session_is_attached_and_named_in_the_reattach_command() {
    let server = TestServer::prepare();
    let sshd = sshd_for(&server, RemotePath::WithHerdr);
    sshd.trust_host_key();
    let tmux = Tmux::start(&server);
    tmux.wait_screen("the shell prompt", |s| s.contains("e2e$"));
    tmux.keys(&[&remote_command(&sshd, "", "--session work"), "Enter"]);
    wait_attached(&tmux, 1);
    tmux.keys(&["C-b", "v"]);
    wait_attached(&tmux, 2);
    let output = sshd.ssh("herdr --session work pane list");
    let list: Value = serde_json::from_slice(&output.stdout).expect("pane list JSON");
    assert_eq!(list["result"]["panes"].as_array().map(Vec::len), Some(2), "{list}");
    assert!(server.answers_ping().is_err(), "the default session was not started");
    tmux.keys(&["C-b", "q"]);
    let reattach = format!("[detached] re-attach with: herdr --remote {} --session work", sshd.target());
    wait_finished(&tmux, "the detach naming the session", |s| s.contains(&reattach));
}

#[test]
fn the_local_keys_apply_by_default_and_the_servers_with_remote_keybindings_server() {
    let server = TestServer::prepare();
    let sshd = sshd_for(&server, RemotePath::WithHerdr);
    sshd.trust_host_key();
    // This machine's config (its own XDG_CONFIG_HOME): another prefix and split key, and a
    // custom command that stays here. The remote host keeps its default keys (ctrl+b, v).
    let local_config = sshd.client_home().join("local-config");
    std::fs::create_dir_all(local_config.join("herdr")).expect("the local config dir");
    std::fs::write(
        local_config.join("herdr/config.toml"),
        "[keys]\nprefix = \"ctrl+a\"\nsplit_vertical = \"prefix+i\"\n\
         [[keys.command]]\nkey = \"prefix+t\"\ncommand = \"true\"\n",
    )
    .expect("write the local config");
    let env = format!("XDG_CONFIG_HOME={}", local_config.display());
    let tmux = Tmux::start(&server);
    tmux.wait_screen("the shell prompt", |s| s.contains("e2e$"));

    // Default (local): the server's prefix is only a key for the pane; the local one splits.
    let local = Keys { prefix: "C-a", split: "i" };
    let remote = Keys { prefix: "C-b", split: "v" };
    attach_split_detach(&tmux, &server, &remote_command(&sshd, &env, ""), [remote, local], 1);
    // `server`: the remote host's own keys, so ctrl+a i is the pane's and ctrl+b v splits.
    clear_screen(&tmux);
    let command = remote_command(&sshd, &env, "--remote-keybindings server");
    attach_split_detach(&tmux, &server, &command, [local, remote], 2);
}

/// A prefix and the split key after it, as tmux key names.
#[derive(Clone, Copy)]
struct Keys {
    prefix: &'static str,
    split: &'static str,
}

/// Attaches with `command` to a session of `panes`, types the split of `ignored` then of
/// `applied`, detaches with `applied`'s prefix, and checks exactly one split happened: the
/// connection handles its input in order, so by the detach `ignored`'s keys went to the pane.
fn attach_split_detach(
    tmux: &Tmux<'_>,
    server: &TestServer,
    command: &str,
    [ignored, applied]: [Keys; 2],
    panes: usize,
) {
    tmux.keys(&[command, "Enter"]);
    wait_attached(tmux, panes);
    tmux.keys(&[ignored.prefix, ignored.split]);
    tmux.keys(&[applied.prefix, applied.split]);
    wait_attached(tmux, panes + 1);
    tmux.keys(&[applied.prefix, "q"]);
    wait_finished(tmux, "the detach", |s| s.contains("[detached]"));
    assert_eq!(pane_ids(server).len(), panes + 1, "only {} split the remote pane", applied.prefix);
}

/// The shared libraries `ldd` says `binary` needs.
fn needed_libraries(binary: &Path) -> String {
    let out = std::process::Command::new("ldd").arg(binary).output().expect("run ldd");
    assert!(out.status.success(), "ldd {}: {}", binary.display(), String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn only_herdr_remote_links_ssh_and_herdr_says_when_it_is_missing() {
    let herdr = herdr_e2e::binaries::binary("herdr");
    let local = needed_libraries(&herdr);
    assert!(
        !local.contains("libssl") && !local.contains("libcrypto"),
        "herdr loads ssh's libraries:\n{local}"
    );
    let remote = needed_libraries(&herdr_e2e::binaries::binary("herdr-remote"));
    assert!(remote.contains("libssl") || remote.contains("libcrypto"), "herdr-remote links ssh:\n{remote}");

    let missing = "/nonexistent/herdr-remote";
    let out = std::process::Command::new(&herdr)
        .args(["--remote", "nobody@127.0.0.1"])
        .env("HERDR_REMOTE_BIN", missing)
        .output()
        .expect("run herdr --remote");
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains(&format!("herdr --remote needs {missing}")), "{said}");
}
