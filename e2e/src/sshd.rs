//! A real OpenSSH `sshd` for the remote suites, started by the test on a free loopback port with
//! everything in a temp dir: its own ed25519 host key, config and `authorized_keys`, and a
//! client HOME (`client_home`) holding the key it accepts (`.ssh/id_ed25519`) and, once
//! [`Sshd::trust_host_key`] ran, a `known_hosts` that names it. The login is root with that key
//! (what this machine allows); the remote environment is the [`TestServer`]'s (HOME, XDG dirs,
//! API socket, marker) through `SetEnv`, so the "remote" herdr is the test's hermetic session
//! and the server's cleanup reaps whatever the remote side started.
//!
//! [`LinkRelay`] is a bad link in userspace in front of it (this kernel has no `netem`): a TCP
//! relay that delays every byte by a fixed one-way time (300 ms RTT is 150 ms each way) and can
//! be cut and restored. A cut holds both directions without closing anything — the connections
//! stay open and silent, as through an unplugged cable — so the ends must notice by themselves
//! (keepalives); what was in flight arrives after the restore, as TCP would deliver it.
//!
//! [`Sshd::start_behind`] puts the sshd in the server namespace of a [`LossyLink`] instead,
//! listening on its address there, for a link that loses packets; [`Sshd::ssh_args`] are the
//! plain OpenSSH arguments that reach it (run them in the client namespace to cross the link).
//!
//! [`Sshd::stop`] ends the listener and every per-connection child (a dropped link: the
//! client's TCP connection is gone), [`Sshd::start_again`] listens on the same port with the
//! same keys. Needs `openssh-server` (`scripts/install-test-deps.sh`) and root (`/run/sshd`).

use std::fs;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use tempfile::TempDir;

use crate::lossy_link::{self, LossyLink, Side};
use crate::procs;
use crate::{PATIENCE, TestServer, wait_until};

const SSHD: &str = "/usr/sbin/sshd";
/// The port sshd listens on inside a link's server namespace (nothing else is there).
const NAMESPACED_PORT: u16 = 2222;

/// Which `PATH` the remote session gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemotePath {
    /// The binaries under test come first: the remote host has this herdr.
    WithHerdr,
    /// The system dirs only: the remote host has no herdr until one is copied there.
    WithoutHerdr,
}

#[derive(Debug)]
pub struct Sshd {
    dir: TempDir,
    addr: Ipv4Addr,
    port: u16,
    /// The network namespace it runs in (a link's server side), or the test's own.
    namespace: Option<String>,
    child: Option<Child>,
}

impl Sshd {
    /// Whether this machine can run the suite (an `sshd` binary and root); the reason if not.
    pub fn unavailable() -> Option<String> {
        if !Path::new(SSHD).is_file() {
            return Some(format!("{SSHD} is missing: run scripts/install-test-deps.sh (openssh-server)"));
        }
        if !nix::unistd::geteuid().is_root() {
            return Some("the remote suite logs in as root through its own sshd and needs root".into());
        }
        None
    }

    /// Writes the keys and config and starts listening, with the remote environment of `server`.
    pub fn start(server: &TestServer, path: RemotePath) -> Sshd {
        Sshd::start_at(server, path, Ipv4Addr::LOCALHOST, free_port(), None)
    }

    /// [`Sshd::start`] in the server namespace of `link`, on its address there.
    pub fn start_behind(server: &TestServer, path: RemotePath, link: &LossyLink) -> Sshd {
        let namespace = Some(link.namespace(Side::Server).to_owned());
        Sshd::start_at(server, path, lossy_link::SERVER_ADDR, NAMESPACED_PORT, namespace)
    }

    fn start_at(
        server: &TestServer,
        path: RemotePath,
        addr: Ipv4Addr,
        port: u16,
        namespace: Option<String>,
    ) -> Sshd {
        let dir = tempfile::Builder::new().prefix("herdr-sshd-").tempdir().expect("create the sshd dir");
        let base = dir.path();
        fs::create_dir_all(base.join("client/.ssh")).expect("create the client's .ssh");
        keygen(&base.join("host_key"));
        keygen(&base.join("client/.ssh/id_ed25519"));
        fs::copy(base.join("client/.ssh/id_ed25519.pub"), base.join("authorized_keys"))
            .expect("authorize the key");
        fs::create_dir_all("/run/sshd").expect("create /run/sshd (privilege separation dir)");

        let mut env: Vec<String> = server
            .env()
            .iter()
            .filter(|(key, _)| key != "PATH")
            .map(|(key, value)| format!("\"{key}={value}\""))
            .collect();
        let system_path = "/usr/local/bin:/usr/bin:/bin";
        env.push(match path {
            RemotePath::WithHerdr => {
                format!("\"PATH={}:{system_path}\"", crate::binaries::bin_dir().display())
            }
            RemotePath::WithoutHerdr => format!("\"PATH={system_path}\""),
        });
        let config = format!(
            "Port {port}\nListenAddress {addr}\nHostKey {base}/host_key\nAuthorizedKeysFile {base}/authorized_keys\n\
             PubkeyAuthentication yes\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n\
             PermitRootLogin prohibit-password\nUsePAM no\nStrictModes no\nPidFile none\n\
             PrintMotd no\nLogLevel VERBOSE\nSetEnv {}\n",
            env.join(" "),
            base = base.display(),
        );
        fs::write(base.join("sshd_config"), config).expect("write sshd_config");
        let mut sshd = Sshd { dir, addr, port, namespace, child: None };
        sshd.start_again();
        sshd
    }

    /// Starts the listener (again) on the same port with the same keys and waits until it accepts.
    pub fn start_again(&mut self) {
        assert!(self.child.is_none(), "sshd is already running");
        let base = self.dir.path();
        let log = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(base.join("sshd.log"))
            .expect("open the log");
        let mut command = match &self.namespace {
            Some(namespace) => {
                let mut command = Command::new("ip");
                command.args(["netns", "exec", namespace, SSHD]);
                command
            }
            None => Command::new(SSHD),
        };
        let child = command
            .arg("-D")
            .arg("-e")
            .arg("-f")
            .arg(base.join("sshd_config"))
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("dup the log"))
            .stderr(log)
            .spawn()
            .expect("start sshd");
        self.child = Some(child);
        let (addr, port) = (self.addr, self.port);
        let connect = || TcpStream::connect((addr, port)).map(drop);
        wait_until("sshd accepts connections", PATIENCE, || {
            match &self.namespace {
                Some(namespace) => lossy_link::in_namespace(namespace, connect),
                None => connect(),
            }
            .map_err(|e| format!("{e}; log:\n{}", self.log()))
        });
    }

    /// Ends the listener and every connection it serves, and waits until they are gone.
    pub fn stop(&mut self) {
        let Some(mut child) = self.child.take() else { return };
        let listener = i32::try_from(child.id()).expect("a pid");
        // Only sshd itself: what the sessions ran (the remote bridge, a server it started) must
        // see the link drop, not be killed.
        let sessions: Vec<i32> =
            procs::tree(listener).into_iter().filter(|p| p.is_program("sshd")).map(|p| p.pid).collect();
        for pid in &sessions {
            let _ = kill(Pid::from_raw(*pid), Signal::SIGKILL);
        }
        let _ = child.wait();
        procs::wait_gone("the sshd connections", &sessions);
    }

    /// The per-connection sshd processes (one per live ssh session).
    pub fn connections(&self) -> Vec<i32> {
        let Some(child) = &self.child else { return Vec::new() };
        let listener = i32::try_from(child.id()).expect("a pid");
        procs::children(listener).into_iter().map(|p| p.pid).collect()
    }

    /// `ssh://root@ADDR:PORT` (127.0.0.1 unless behind a link).
    pub fn target(&self) -> String {
        format!("ssh://root@{}:{}", self.addr, self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The HOME to run the local `herdr` with (its key, and its known_hosts once trusted).
    pub fn client_home(&self) -> PathBuf {
        self.dir.path().join("client")
    }

    /// The host key as OpenSSH prints its fingerprint (`SHA256:…`).
    pub fn fingerprint(&self) -> String {
        let output = run(Command::new("ssh-keygen").arg("-lf").arg(self.dir.path().join("host_key.pub")));
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        text.split_whitespace().nth(1).expect("a fingerprint field").to_owned()
    }

    /// The known_hosts line that trusts this server's key.
    pub fn known_hosts_line(&self) -> String {
        self.known_hosts_line_for(self.port)
    }

    /// The known_hosts line for this server's key reached on `port` (through a relay).
    pub fn known_hosts_line_for(&self, port: u16) -> String {
        let public = fs::read_to_string(self.dir.path().join("host_key.pub")).expect("read the host key");
        let mut fields = public.split_whitespace();
        let (kind, key) = (fields.next().expect("a key type"), fields.next().expect("a key"));
        format!("[{}]:{port} {kind} {key}", self.addr)
    }

    /// Writes `line` as the client's whole known_hosts.
    pub fn write_known_hosts(&self, line: &str) {
        fs::write(self.client_home().join(".ssh/known_hosts"), format!("{line}\n"))
            .expect("write known_hosts");
    }

    /// Puts this server's key in the client's known_hosts.
    pub fn trust_host_key(&self) {
        self.write_known_hosts(&self.known_hosts_line());
    }

    /// Runs `command` on the remote side with plain OpenSSH `ssh` (from the server's own
    /// namespace when it is behind a link, so the answer does not wait on the link).
    pub fn ssh(&self, command: &str) -> Output {
        let mut ssh = match &self.namespace {
            Some(namespace) => {
                let mut ssh = Command::new("ip");
                ssh.args(["netns", "exec", namespace, "ssh"]);
                ssh
            }
            None => Command::new("ssh"),
        };
        run(ssh.args(self.ssh_args()).arg(command))
    }

    /// The arguments of plain OpenSSH `ssh` that log in here, up to the destination: an
    /// explicit key and known_hosts (`ssh` reads `~/.ssh` from the passwd entry, not from
    /// HOME), no config, no questions.
    pub fn ssh_args(&self) -> Vec<String> {
        let home = self.client_home();
        vec![
            "-F".into(),
            "/dev/null".into(),
            "-i".into(),
            home.join(".ssh/id_ed25519").display().to_string(),
            "-o".into(),
            format!("UserKnownHostsFile={}", home.join(".ssh/known_hosts").display()),
            "-o".into(),
            "BatchMode=yes".into(),
            "-p".into(),
            self.port.to_string(),
            format!("root@{}", self.addr),
        ]
    }

    pub fn log(&self) -> String {
        fs::read_to_string(self.dir.path().join("sshd.log")).unwrap_or_default()
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        self.stop();
    }
}

fn keygen(path: &Path) {
    let output = run(Command::new("ssh-keygen")
        .arg("-q")
        .arg("-t")
        .arg("ed25519")
        .arg("-N")
        .arg("")
        .arg("-f")
        .arg(path));
    assert!(output.status.success(), "ssh-keygen: {}", String::from_utf8_lossy(&output.stderr));
}

fn run(command: &mut Command) -> Output {
    command.stdin(Stdio::null()).output().expect("run an OpenSSH tool")
}

/// A loopback port nobody listens on right now (the kernel's pick).
fn free_port() -> u16 {
    let listener = TcpListener::bind(("127.0.0.1", 0)).expect("bind a loopback port");
    listener.local_addr().expect("its address").port()
}

#[derive(Debug)]
pub struct LinkRelay {
    port: u16,
    cut: Arc<(Mutex<bool>, Condvar)>,
}

impl LinkRelay {
    /// Listens on a free loopback port and relays each connection to `127.0.0.1:target`.
    pub fn start(target: u16, one_way: Duration) -> LinkRelay {
        let listener = TcpListener::bind(("127.0.0.1", 0)).expect("bind the relay");
        let port = listener.local_addr().expect("its address").port();
        let cut = Arc::new((Mutex::new(false), Condvar::new()));
        let shared = cut.clone();
        thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                let Ok(server) = TcpStream::connect(("127.0.0.1", target)) else { continue };
                let _ = client.set_nodelay(true);
                let _ = server.set_nodelay(true);
                for (from, to) in [(&client, &server), (&server, &client)] {
                    let (Ok(from), Ok(to)) = (from.try_clone(), to.try_clone()) else { continue };
                    pipe(from, to, one_way, shared.clone());
                }
            }
        });
        LinkRelay { port, cut }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Stops every byte both ways until [`LinkRelay::restore`].
    pub fn cut(&self) {
        *self.cut.0.lock().unwrap_or_else(PoisonError::into_inner) = true;
    }

    pub fn restore(&self) {
        *self.cut.0.lock().unwrap_or_else(PoisonError::into_inner) = false;
        self.cut.1.notify_all();
    }
}

fn wait_while_cut(cut: &(Mutex<bool>, Condvar)) {
    let mut is_cut = cut.0.lock().unwrap_or_else(PoisonError::into_inner);
    while *is_cut {
        is_cut = cut.1.wait(is_cut).unwrap_or_else(PoisonError::into_inner);
    }
}

/// One direction: a reader stamps each chunk with when it may arrive, a writer delivers it then.
fn pipe(mut from: TcpStream, mut to: TcpStream, one_way: Duration, cut: Arc<(Mutex<bool>, Condvar)>) {
    let (send, receive) = mpsc::channel::<(Instant, Vec<u8>)>();
    let reader_cut = cut.clone();
    thread::spawn(move || {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            wait_while_cut(&reader_cut);
            if send.send((Instant::now() + one_way, buf[..n].to_vec())).is_err() {
                break;
            }
        }
    });
    thread::spawn(move || {
        for (due, bytes) in receive {
            // The link's latency is the point of this relay: each chunk waits out its own delay.
            thread::sleep(due.saturating_duration_since(Instant::now()));
            wait_while_cut(&cut);
            if to.write_all(&bytes).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Write);
    });
}
