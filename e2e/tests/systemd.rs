//! herdr as a systemd user service (`systemd/herdr.service`), under a real `systemd --user`
//! started by this test: `start` returns only once the session answers (Type=notify), the CLI
//! finds the service's sockets from `HOME` alone, a `kill -9` of the supervisor is restarted by
//! systemd and every pane program survives it with its scrollback, `reload` hands the session to
//! a new supervisor (a live handoff) that becomes the main process with every pane kept, and
//! `stop` ends the panes after saving `session.json`.
//!
//! The manager is isolated, never a plain `systemd --user` on the machine: some of these
//! machines mix cgroup v1 controllers with a v2 hierarchy, and a manager that sees the v1
//! controllers migrates every process of the machine into its own groups. So it runs in a
//! private mount namespace (`unshare -m --propagation private`) where only `cgroup2` is mounted
//! over `/sys/fs/cgroup`, after moving itself into a new child cgroup `herdr-test-<id>` of this
//! test's own v2 cgroup; the test checks the manager's `0::` cgroup is inside that child before
//! it does anything else. A `/run/systemd/system` (which `systemd --user` requires) is made, when
//! the host lacks it, on a tmpfs inside that namespace only. Cleanup kills everything in the
//! child cgroup and removes it. A machine without `unshare`, `systemd`, `systemctl` or a v2
//! hierarchy fails the test (scripts/install-test-deps.sh installs the packages).
//!
//! journald: a supervisor whose stderr is the `$JOURNAL_STREAM` sends structured records to
//! journald's socket, which a second private mount namespace binds to this test's own datagram
//! socket (there is no journald in the user manager above); so does the importer of a live
//! handoff it starts.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use herdr_e2e::{PATIENCE, TestServer, binaries, panes, procs, session_file, wait_until};

/// The manager's default target: nothing but itself, so no other user unit of the machine starts.
const IDLE_TARGET: &str = "herdr-e2e.target";

/// Run by `unshare -m --propagation private sh -c`: the private cgroup2 view, the move into the
/// test's child cgroup, then the manager itself (same pid all along: unshare and sh exec).
const LAUNCH: &str = r#"set -eu
mount -t cgroup2 cgroup2 /sys/fs/cgroup
own=$(sed -n 's/^0:://p' /proc/self/cgroup)
cg="/sys/fs/cgroup${own%/}/herdr-test-$HERDR_E2E_CGROUP_ID"
mkdir "$cg"
echo $$ > "$cg/cgroup.procs"
if [ ! -d /run/systemd/system ]; then
  mount -t tmpfs -o mode=0755 tmpfs /run/systemd
  mkdir /run/systemd/system
fi
unset HERDR_E2E_CGROUP_ID
exec "$SYSTEMD" --user --unit="$IDLE_TARGET"
"#;

/// A `systemd --user` of this test, in its own cgroup subtree, torn down on drop.
struct UserManager {
    child: Child,
    /// `herdr-test-<id>` as seen from this test's mount namespace.
    cgroup: PathBuf,
    home: PathBuf,
    runtime: PathBuf,
    log: PathBuf,
}

fn require(program: &str) -> PathBuf {
    for candidate in
        [format!("/usr/bin/{program}"), format!("/bin/{program}"), format!("/usr/lib/systemd/{program}")]
    {
        if Path::new(&candidate).is_file() {
            return PathBuf::from(candidate);
        }
    }
    panic!("`{program}` is missing: run scripts/install-test-deps.sh (packages systemd, util-linux)")
}

/// This process's cgroup in the v2 hierarchy (`0::` line of `/proc/self/cgroup`).
fn own_cgroup() -> String {
    let text = fs::read_to_string("/proc/self/cgroup").expect("read /proc/self/cgroup");
    text.lines()
        .find_map(|line| line.strip_prefix("0::"))
        .unwrap_or_else(|| panic!("no cgroup v2 (0::) line in /proc/self/cgroup:\n{text}"))
        .to_owned()
}

/// Where the v2 hierarchy is mounted in this namespace (`/sys/fs/cgroup` or, on hybrid
/// machines, `/sys/fs/cgroup/unified`).
fn cgroup2_mount() -> PathBuf {
    let text = fs::read_to_string("/proc/self/mountinfo").expect("read /proc/self/mountinfo");
    text.lines()
        .find_map(|line| {
            let (left, right) = line.split_once(" - ")?;
            let point = left.split(' ').nth(4)?;
            (right.split(' ').next() == Some("cgroup2")).then(|| PathBuf::from(point))
        })
        .unwrap_or_else(|| panic!("no cgroup2 hierarchy mounted here (/proc/self/mountinfo):\n{text}"))
}

fn cgroup_of(pid: u32) -> Option<String> {
    let text = fs::read_to_string(format!("/proc/{pid}/cgroup")).ok()?;
    text.lines().find_map(|line| line.strip_prefix("0::")).map(str::to_owned)
}

impl UserManager {
    /// Installs the unit (ExecStart pointing at the built `herdr`) into the test's HOME and
    /// starts the manager with the test's environment.
    fn start(server: &TestServer) -> UserManager {
        let (unshare, systemd) = (require("unshare"), require("systemd"));
        require("systemctl");
        let home = server.root().join("home");
        let runtime = server.root().join("runtime");
        fs::set_permissions(&runtime, fs::Permissions::from_mode(0o700)).expect("chmod runtime");
        let units = home.join(".config/systemd/user");
        fs::create_dir_all(&units).expect("create the user unit dir");
        fs::write(units.join(IDLE_TARGET), "[Unit]\nDescription=herdr e2e: nothing else starts\n")
            .expect("write the idle target");
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../systemd/herdr.service");
        let unit = fs::read_to_string(&source).expect("read systemd/herdr.service");
        let herdr = binaries::binary("herdr");
        assert!(unit.contains("%h/.local/bin/herdr server"), "unexpected ExecStart in {unit}");
        fs::write(
            units.join("herdr.service"),
            unit.replace("%h/.local/bin/herdr", &herdr.display().to_string()),
        )
        .expect("install the unit");
        let template =
            fs::read_to_string(source.with_file_name("herdr@.service")).expect("read herdr@.service");
        assert!(
            template.contains("%h/.local/bin/herdr server --session %i"),
            "unexpected ExecStart in {template}"
        );
        fs::write(
            units.join("herdr@.service"),
            template.replace("%h/.local/bin/herdr", &herdr.display().to_string()),
        )
        .expect("install the template unit");

        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
        let id = format!("{}-{nanos}", std::process::id());
        let cgroup =
            cgroup2_mount().join(own_cgroup().trim_start_matches('/')).join(format!("herdr-test-{id}"));
        let log = server.root().join("user-manager.log");
        let out = fs::File::create(&log).expect("create the manager log");
        let err = out.try_clone().expect("dup the manager log");
        let child = server
            .command(&unshare)
            .args(["-m", "--propagation", "private", "sh", "-c", LAUNCH])
            .env("HERDR_E2E_CGROUP_ID", &id)
            .env("SYSTEMD", &systemd)
            .env("IDLE_TARGET", IDLE_TARGET)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .expect("start unshare … systemd --user");
        let mut manager = UserManager { child, cgroup, home, runtime, log };
        manager.check_isolated(&id);
        wait_until("the user manager's private socket to answer", PATIENCE, || {
            let out = manager.systemctl(&["is-system-running"]);
            let state = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            if ["running", "degraded", "offline"].contains(&state.as_str())
                || (state == "starting" && manager.runtime.join("systemd/private").exists())
            {
                Ok(state)
            } else {
                Err(format!(
                    "{state:?} {}\nmanager log:\n{}",
                    String::from_utf8_lossy(&out.stderr),
                    manager.log_text()
                ))
            }
        });
        manager
    }

    /// Fails at once (killing the manager) unless it sits in our child cgroup.
    fn check_isolated(&mut self, id: &str) {
        let pid = self.child.id();
        let inside = format!("/herdr-test-{id}");
        let seen = wait_until("the manager to move into its child cgroup", PATIENCE, || {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("systemd --user exited early ({status}):\n{}", self.log_text());
            }
            match cgroup_of(pid) {
                Some(cg) if cg.contains(&inside) => Ok(cg),
                other => Err(format!("{other:?}")),
            }
        });
        let parent = own_cgroup();
        let expected = format!("{}{inside}", parent.trim_end_matches('/'));
        if !seen.starts_with(&expected) {
            let _ = self.child.kill();
            panic!("the manager's cgroup is {seen}, not under {expected}");
        }
        assert!(self.cgroup.is_dir(), "{} does not exist here", self.cgroup.display());
    }

    fn log_text(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn env(&self, command: &mut Command) {
        command
            .env_clear()
            .env("HOME", &self.home)
            .env("XDG_RUNTIME_DIR", &self.runtime)
            .env("PATH", std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".to_owned()));
    }

    /// `systemctl --user ARGS…` against this manager (its private socket in XDG_RUNTIME_DIR).
    fn systemctl(&self, args: &[&str]) -> Output {
        let mut command = Command::new("systemctl");
        self.env(&mut command);
        command.arg("--user").args(args).output().expect("run systemctl")
    }

    /// `systemctl --user ARGS…` that must succeed.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.systemctl(args);
        assert!(
            out.status.success(),
            "systemctl --user {args:?} failed: {}{}\nmanager log:\n{}\nstatus:\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            self.log_text(),
            String::from_utf8_lossy(&self.systemctl(&["status", "herdr"]).stdout)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    fn property(&self, name: &str) -> String {
        self.ok(&["show", "--property", name, "--value", "herdr"])
    }

    fn main_pid(&self) -> i32 {
        self.property("MainPID").parse().expect("MainPID is a number")
    }

    fn is_active(&self) -> String {
        String::from_utf8_lossy(&self.systemctl(&["is-active", "herdr"]).stdout).trim().to_owned()
    }

    /// Every pid in the child cgroup subtree.
    fn pids(&self) -> Vec<i32> {
        let mut pids = Vec::new();
        let mut dirs = vec![self.cgroup.clone()];
        while let Some(dir) = dirs.pop() {
            if let Ok(text) = fs::read_to_string(dir.join("cgroup.procs")) {
                pids.extend(text.lines().filter_map(|l| l.parse::<i32>().ok()));
            }
            for entry in fs::read_dir(&dir).into_iter().flatten().flatten() {
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    dirs.push(entry.path());
                }
            }
        }
        pids
    }
}

impl Drop for UserManager {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("--- systemd --user log ---\n{}\n--- end ---", self.log_text());
        }
        let kill_file = self.cgroup.join("cgroup.kill");
        for _ in 0..100 {
            let pids = self.pids();
            if pids.is_empty() {
                break;
            }
            if fs::write(&kill_file, "1").is_err() {
                for pid in pids {
                    let _ = nix::sys::signal::kill(
                        nix::unistd::Pid::from_raw(pid),
                        nix::sys::signal::Signal::SIGKILL,
                    );
                }
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.wait();
        // Leaves first: a cgroup is removed with rmdir once it is empty.
        let mut dirs = Vec::new();
        let mut pending = vec![self.cgroup.clone()];
        while let Some(dir) = pending.pop() {
            for entry in fs::read_dir(&dir).into_iter().flatten().flatten() {
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    pending.push(entry.path());
                }
            }
            dirs.push(dir);
        }
        for dir in dirs.iter().rev() {
            if let Err(e) = fs::remove_dir(dir) {
                eprintln!("herdr-e2e: cannot remove cgroup {}: {e}", dir.display());
            }
        }
    }
}

/// Whether `pid`'s environment has `NAME=` at all.
fn environ_names(pid: i32, name: &str) -> bool {
    let prefix = format!("{name}=");
    fs::read(format!("/proc/{pid}/environ"))
        .map(|raw| raw.split(|&b| b == 0).any(|item| item.starts_with(prefix.as_bytes())))
        .unwrap_or(false)
}

#[test]
fn herdr_runs_as_a_systemd_user_service_and_survives_a_supervisor_crash() {
    let mut server = TestServer::prepare();
    server.use_default_paths();
    let manager = UserManager::start(&server);

    // The installed units pass systemd's own check.
    for unit in ["herdr.service", "herdr@.service"] {
        let mut verify = Command::new(require("systemd-analyze"));
        manager.env(&mut verify);
        let verified = verify
            .args(["--user", "verify"])
            .arg(manager.home.join(".config/systemd/user").join(unit))
            .output()
            .expect("run systemd-analyze");
        assert!(
            verified.status.success(),
            "systemd-analyze verify {unit}: {}",
            String::from_utf8_lossy(&verified.stderr)
        );
    }

    // Type=notify: `start` returns only after READY=1, so the socket answers at once.
    // A manager that just answered `is-system-running` may still refuse a connection on its
    // private socket for a moment while it finishes starting ("Failed to connect to bus"; seen
    // on main as well): wait until it takes the reload.
    wait_until("the user manager to take daemon-reload", PATIENCE, || {
        let out = manager.systemctl(&["daemon-reload"]);
        if out.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&out.stderr).into_owned()) }
    });
    manager.ok(&["start", "herdr"]);
    assert_eq!(manager.is_active(), "active");
    server.answers_ping().expect("the service answers as soon as `start` returned");
    let first = manager.main_pid();
    assert!(
        cgroup_of(first.unsigned_abs()).is_some_and(|cg| cg.ends_with("/herdr.service")),
        "{:?}",
        cgroup_of(first.unsigned_abs())
    );
    assert!(environ_names(first, "NOTIFY_SOCKET"), "the supervisor was not started as a notify service");
    let status = server.cli(&["status", "server", "--json"]);
    let status: serde_json::Value = serde_json::from_str(status.text()).expect("status json");
    assert_eq!(status["service"]["mode"], "systemd", "{status}");
    assert_eq!(status["service"]["unit"], "herdr.service", "{status}");
    assert_eq!(status["service"]["pid"], first, "{status}");
    assert_eq!(status["same_binary"], true, "the service runs the herdr the CLI is: {status}");
    assert!(
        server.data_dir().join("herdr.sock").exists(),
        "the service and the CLI resolve $HOME/.config/herdr/herdr.sock from the same HOME"
    );

    // The CLI, with nothing but HOME to go on, works against it.
    let created = server.cli(&["workspace", "create", "--label", "svc"]).result();
    let root = created["root_pane"]["pane_id"].as_str().expect("a root pane").to_owned();
    let second = panes::split(&server, &root, "right");
    let ids = [root, second];
    let mut shells = Vec::new();
    let mut markers = Vec::new();
    for id in &ids {
        let marker = panes::Marker::new("SVC");
        panes::run(&server, id, &marker.command);
        panes::wait_output(&server, id, &marker.word, PATIENCE);
        assert!(server.cli(&["pane", "read", id, "--source", "recent"]).text().contains(&marker.word));
        shells.push(panes::shell_pid(&server, id));
        markers.push(marker.word);
    }
    let workers = server.worker_pids();
    assert_eq!(workers.len(), 2, "one worker per pane");
    for &pid in workers.iter().chain(&shells) {
        assert!(!environ_names(pid, "NOTIFY_SOCKET"), "pid {pid} could notify systemd as the service");
        assert!(!environ_names(pid, "JOURNAL_STREAM"), "pid {pid} inherited the service's journal stream");
        assert_eq!(
            cgroup_of(pid.unsigned_abs()),
            cgroup_of(first.unsigned_abs()),
            "pid {pid} left the unit's cgroup"
        );
    }
    session_file::wait_for(&server.session_json_path(), "both panes saved", PATIENCE, |saved| {
        session_file::panes(saved).len() == 2
    });

    // A crash: systemd restarts the supervisor, which re-adopts both workers.
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(first), nix::sys::signal::Signal::SIGKILL)
        .expect("kill -9");
    let next = wait_until("systemd to restart the supervisor", PATIENCE, || {
        let pid = manager.main_pid();
        if pid != 0 && pid != first && manager.is_active() == "active" {
            Ok(pid)
        } else {
            Err(format!("MainPID {pid}"))
        }
    });
    server.answers_ping().expect("the restarted supervisor answers");
    assert_eq!(manager.property("NRestarts"), "1");
    assert_eq!(server.worker_pids(), workers, "the same workers, adopted");
    for ((id, shell), marker) in ids.iter().zip(&shells).zip(&markers) {
        assert!(procs::alive(*shell), "the shell of {id} died with the supervisor");
        assert_eq!(panes::shell_pid(&server, id), *shell, "{id} runs the same shell");
        assert!(panes::read(&server, id, "recent").contains(marker.as_str()), "{id} lost its scrollback");
    }
    assert_ne!(next, first);

    // `systemctl reload`: a live handoff; the new supervisor becomes the service's main process
    // and every pane keeps its worker, shell and scrollback.
    manager.ok(&["reload", "herdr"]);
    let handed = wait_until("the handoff's supervisor to be the main process", PATIENCE, || {
        let pid = manager.main_pid();
        if pid != 0 && pid != next && !procs::alive(next) && manager.is_active() == "active" {
            Ok(pid)
        } else {
            Err(format!("MainPID {pid}, the old one alive: {}", procs::alive(next)))
        }
    });
    server.answers_ping().expect("the supervisor the reload handed over to answers");
    assert_eq!(manager.property("NRestarts"), "1", "a reload is not a restart");
    assert_eq!(server.worker_pids(), workers, "the same workers after the handoff");
    for ((id, shell), marker) in ids.iter().zip(&shells).zip(&markers) {
        assert_eq!(panes::shell_pid(&server, id), *shell, "{id} runs the same shell after the reload");
        assert!(panes::read(&server, id, "recent").contains(marker.as_str()), "{id} lost its scrollback");
    }
    assert_ne!(handed, next);

    // `systemctl stop`: SIGTERM to the supervisor alone, which saves and ends every pane.
    manager.ok(&["stop", "herdr"]);
    assert_eq!(manager.is_active(), "inactive", "an asked-for stop is not a failure");
    procs::wait_gone("every pane's shell and worker after stop", &[shells.clone(), workers].concat());
    let saved = session_file::read(&server.session_json_path()).expect("session.json after stop");
    assert_eq!(session_file::panes(&saved).len(), 2, "the stop saved the whole layout: {saved}");

    // herdr@NAME serves the named session `herdr --session NAME` talks to.
    manager.ok(&["start", "herdr@work"]);
    let status = server.cli(&["status", "server", "--json", "--session", "work"]);
    let status: serde_json::Value = serde_json::from_str(status.text()).expect("status json");
    assert_eq!(status["running"], true, "{status}");
    assert_eq!(status["session"], "work", "{status}");
    assert_eq!(status["service"]["unit"], "herdr@work.service", "{status}");
    manager.ok(&["stop", "herdr@work"]);
    let stopped = server.cli(&["status", "server", "--json", "--session", "work"]);
    assert!(stopped.text().contains("\"running\":false"), "{stopped:?}");
}

/// The value of a plain `NAME=value` line of a journal record.
fn field<'a>(record: &'a str, name: &str) -> Option<&'a str> {
    record.lines().find_map(|line| line.strip_prefix(name)?.strip_prefix('='))
}

/// Run by `unshare -m --propagation private sh -c`: journald's socket path, in this namespace
/// only, is the test's own datagram socket.
const JOURNAL_AT: &str = r#"set -eu
mount -t tmpfs -o mode=0755 tmpfs /run/systemd
mkdir /run/systemd/journal
touch /run/systemd/journal/socket
mount --bind "$HERDR_E2E_JOURNAL" /run/systemd/journal/socket
unset HERDR_E2E_JOURNAL
exec "$@"
"#;

#[test]
fn a_supervisor_on_the_journal_stream_logs_structured_records_to_journald() {
    use std::os::unix::fs::MetadataExt;
    use std::os::unix::net::UnixDatagram;

    let server = TestServer::prepare();
    let listener_path = server.root().join("journal.sock");
    let journal = UnixDatagram::bind(&listener_path).expect("bind the stand-in journal socket");
    journal.set_read_timeout(Some(Duration::from_secs(1))).expect("read timeout");
    let log = server.root().join("server.log");
    let stderr = fs::File::create(&log).expect("create the server log");
    let meta = stderr.metadata().expect("stat the log");
    let mut supervisor = server
        .command(require("unshare"))
        .args(["-m", "--propagation", "private", "sh", "-c", JOURNAL_AT, "sh"])
        .arg(binaries::binary("herdr"))
        .arg("server")
        // What systemd sets when it connects stderr to the journal: stderr's device:inode.
        .env("JOURNAL_STREAM", format!("{}:{}", meta.dev(), meta.ino()))
        .env("HERDR_E2E_JOURNAL", &listener_path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .expect("start herdr server in a mount namespace");
    let mut records = Vec::new();
    let listening = wait_until("the \"listening\" record on the journal socket", PATIENCE, || {
        if let Ok(Some(status)) = supervisor.try_wait() {
            panic!("herdr server exited ({status}): {}", fs::read_to_string(&log).unwrap_or_default());
        }
        let mut buf = vec![0u8; 64 * 1024];
        if let Ok(n) = journal.recv(&mut buf) {
            records.push(String::from_utf8_lossy(&buf[..n]).into_owned());
        }
        records
            .iter()
            .find(|r| r.contains("herdr supervisor listening"))
            .cloned()
            .ok_or_else(|| format!("{records:?}"))
    });
    // MESSAGE is length-encoded (`MESSAGE\n`, a little-endian u64, the bytes), the rest plain.
    for field in
        ["PRIORITY=5\n", "SYSLOG_IDENTIFIER=herdr\n", "\nMESSAGE\n", "CODE_MODULE=herdr_supervisor::server\n"]
    {
        assert!(listening.contains(field), "no {field:?} in {listening:?}");
    }
    let text = fs::read_to_string(&log).unwrap_or_default();
    assert!(!text.contains("listening"), "the record went to stderr as well: {text}");

    // A live handoff (what `systemctl reload` runs): the importer inherits the journal stream and
    // its variable, so its records reach journald as well, not the detached server's log file.
    let handoff = server.cli(&["server", "live-handoff"]);
    assert!(handoff.status.success(), "live-handoff: {handoff:?}");
    let first_pid = field(&listening, "SYSLOG_PID").expect("the supervisor's pid");
    let (committed, importer_listening) =
        wait_until("the importer's records on the journal socket", PATIENCE, || {
            let mut buf = vec![0u8; 64 * 1024];
            if let Ok(n) = journal.recv(&mut buf) {
                records.push(String::from_utf8_lossy(&buf[..n]).into_owned());
            }
            let from_importer = |needle: &str| {
                records
                    .iter()
                    .find(|r| r.contains(needle) && field(r, "SYSLOG_PID").is_some_and(|p| p != first_pid))
                    .cloned()
            };
            match (
                from_importer("handoff: committed; serving the session"),
                from_importer("herdr supervisor listening"),
            ) {
                (Some(committed), Some(listening)) => Ok((committed, listening)),
                _ => Err(format!("{records:?}")),
            }
        });
    assert!(committed.contains("CODE_MODULE=herdr_supervisor::handoff::import\n"), "{committed:?}");
    assert!(committed.contains("SYSLOG_IDENTIFIER=herdr\n"), "{committed:?}");
    assert!(importer_listening.contains("PRIORITY=5\n"), "{importer_listening:?}");
    let server_log = server.data_dir().join("herdr-server.log");
    let appended = fs::read_to_string(&server_log).unwrap_or_default();
    assert!(!appended.contains("committed"), "the importer wrote to {}: {appended}", server_log.display());
    assert!(!fs::read_to_string(&log).unwrap_or_default().contains("committed"), "and not as plain lines");
    wait_until("the old supervisor to exit after the handoff", PATIENCE, || {
        supervisor.try_wait().ok().flatten().ok_or_else(|| "running".to_owned())
    });
    let stopped = server.cli(&["server", "stop"]);
    assert!(stopped.status.success(), "the importer serves and stops: {stopped:?}");
}
