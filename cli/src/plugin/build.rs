//! The `[[build]]` commands `herdr plugin install` runs after confirmation: each an argv in the
//! plugin's directory, stdin closed, without the runtime `HERDR_*` environment (no socket, no
//! pane ids, no `HERDR_PLUGIN_*`), stdout and stderr captured (the last [`OUTPUT_CAP`] bytes of
//! each). The command gets its own process group, killed once it exits, so nothing it left
//! behind keeps running in a checkout that may be moved or removed.

use std::fmt;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};

use herdr_plugins::compat;
use herdr_plugins::manifest::Manifest;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// Bytes of stdout (and of stderr) a failure report keeps.
pub const OUTPUT_CAP: usize = 64 * 1024;

/// Variables a build command never inherits.
const SCRUBBED: &[&str] = &[
    "HERDR_SOCKET_PATH",
    "HERDR_CLIENT_SOCKET_PATH",
    "HERDR_SESSION",
    "HERDR_BIN_PATH",
    "HERDR_ENV",
    "HERDR_WORKSPACE_ID",
    "HERDR_TAB_ID",
    "HERDR_PANE_ID",
];

/// Output kept from one stream.
#[derive(Debug, Default)]
pub struct Captured {
    pub text: String,
    pub truncated: bool,
}

/// Why a build command failed.
#[derive(Debug)]
pub enum BuildFailureKind {
    Empty,
    Start(std::io::Error),
    Wait(std::io::Error),
    Exit { status: ExitStatus, stdout: Captured, stderr: Captured },
}

/// A failed build command with what it was.
#[derive(Debug)]
pub struct BuildFailure {
    pub plugin_id: String,
    pub index: usize,
    pub total: usize,
    pub cwd: String,
    pub command: Vec<String>,
    pub kind: BuildFailureKind,
}

impl fmt::Display for BuildFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "error: plugin build failed")?;
        writeln!(f, "  plugin: {}", self.plugin_id)?;
        writeln!(f, "  build: {}/{}", self.index, self.total)?;
        writeln!(f, "  cwd: {}", self.cwd)?;
        writeln!(f, "  command: {}", self.command.join(" "))?;
        match &self.kind {
            BuildFailureKind::Empty => writeln!(f, "  error: build command must not be empty")?,
            BuildFailureKind::Start(e) => writeln!(f, "  error: failed to start: {e}")?,
            BuildFailureKind::Wait(e) => writeln!(f, "  error: failed to wait for command: {e}")?,
            BuildFailureKind::Exit { status, stdout, stderr } => {
                writeln!(f, "  status: {status}")?;
                section(f, "stderr", stderr)?;
                section(f, "stdout", stdout)?;
            }
        }
        writeln!(f)?;
        write!(f, "Plugin was not installed.")
    }
}

fn section(f: &mut fmt::Formatter<'_>, label: &str, out: &Captured) -> fmt::Result {
    let text = out.text.trim_end();
    if text.is_empty() {
        return Ok(());
    }
    writeln!(f)?;
    if out.truncated {
        writeln!(f, "{label}: showing last {OUTPUT_CAP} bytes; earlier output omitted")?;
    } else {
        writeln!(f, "{label}:")?;
    }
    writeln!(f, "{text}")
}

/// Whether a build command runs on this platform (its own `platforms`, else the plugin's).
pub fn supported(manifest: &Manifest, index: usize) -> bool {
    manifest
        .build
        .get(index)
        .is_some_and(|b| compat::supported(compat::effective(&b.platforms, &manifest.platforms)))
}

/// Runs every supported build command of `manifest` in `root`, in order, stopping at the first
/// failure.
pub fn run_all(manifest: &Manifest, root: &Path) -> Result<(), Box<BuildFailure>> {
    let total = manifest.build.len();
    for (index, build) in manifest.build.iter().enumerate() {
        if !supported(manifest, index) {
            continue;
        }
        let failure = |kind| {
            Box::new(BuildFailure {
                plugin_id: manifest.id.clone(),
                index: index + 1,
                total,
                cwd: root.display().to_string(),
                command: build.command.clone(),
                kind,
            })
        };
        run_one(&build.command, root).map_err(failure)?;
    }
    Ok(())
}

fn run_one(argv: &[String], root: &Path) -> Result<(), BuildFailureKind> {
    let Some((program, args)) = argv.split_first() else { return Err(BuildFailureKind::Empty) };
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    for name in SCRUBBED {
        command.env_remove(name);
    }
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(|n| n.starts_with(herdr_plugins::env::PLUGIN_PREFIX)) {
            command.env_remove(&name);
        }
    }
    let mut child = command.spawn().map_err(BuildFailureKind::Start)?;
    let stdout = child.stdout.take().map(|s| std::thread::spawn(move || capture(s)));
    let stderr = child.stderr.take().map(|s| std::thread::spawn(move || capture(s)));
    let status = child.wait();
    // Whatever the command left running in its group goes with it.
    if let Ok(pid) = i32::try_from(child.id()) {
        let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
    }
    let joined =
        |h: Option<std::thread::JoinHandle<Captured>>| h.and_then(|h| h.join().ok()).unwrap_or_default();
    let (stdout, stderr) = (joined(stdout), joined(stderr));
    let status = status.map_err(BuildFailureKind::Wait)?;
    if status.success() { Ok(()) } else { Err(BuildFailureKind::Exit { status, stdout, stderr }) }
}

fn capture(mut reader: impl Read) -> Captured {
    let mut kept = Vec::new();
    let mut buf = [0u8; 8192];
    let mut truncated = false;
    loop {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                kept.extend_from_slice(&buf[..n]);
                if kept.len() > OUTPUT_CAP {
                    kept.drain(..kept.len() - OUTPUT_CAP);
                    truncated = true;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    Captured { text: String::from_utf8_lossy(&kept).into_owned(), truncated }
}
