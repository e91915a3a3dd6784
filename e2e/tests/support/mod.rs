//! A private tmux server for terminal-UI suites that drive `herdr` as a person would: keys with
//! `send-keys`, the screen with `capture-pane`, and (with `set-clipboard on`) what herdr copied
//! via OSC 52 from tmux's paste buffers.

use std::path::PathBuf;
use std::process::Output;

use herdr_e2e::{PATIENCE, TestServer, wait_until};

/// A tmux server for one test, killed on drop.
pub struct Tmux<'a> {
    server: &'a TestServer,
    socket: PathBuf,
}

impl<'a> Tmux<'a> {
    /// Starts a 120×40 session running `sh` with the test's environment.
    pub fn start(server: &'a TestServer) -> Tmux<'a> {
        Tmux::start_on(server, "tmux.sock")
    }

    /// [`Tmux::start`] on its own socket (a second terminal, or one after another was closed).
    pub fn start_on(server: &'a TestServer, socket: &str) -> Tmux<'a> {
        let tmux = Tmux { server, socket: server.root().join(socket) };
        tmux.run(&["-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "40", "sh"]);
        tmux
    }

    /// At the shell prompt, runs `herdr` and waits for the sidebar and one pane.
    pub fn attach_herdr(&self) {
        self.wait_screen("the shell prompt", |s| s.contains("e2e$"));
        self.keys(&["herdr", "Enter"]);
        self.wait_screen("the sidebar and one pane", |s| s.contains("spaces") && boxes_on_top_row(s) == 1);
    }

    /// Runs a tmux command against this server; panics when it fails.
    pub fn run(&self, args: &[&str]) -> Output {
        let output = self.try_run(args);
        assert!(output.status.success(), "tmux {args:?}: {}", String::from_utf8_lossy(&output.stderr));
        output
    }

    /// Runs a tmux command that may fail (reading a buffer that does not exist yet).
    pub fn try_run(&self, args: &[&str]) -> Output {
        self.server
            .command("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("run tmux (is it installed?)")
    }

    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "0"];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    /// Types `text` literally (SGR mouse reports, too).
    pub fn literal(&self, text: &str) {
        self.keys(&["-l", text]);
    }

    /// The screen as text (`escapes`: with SGR colour sequences).
    pub fn screen(&self, escapes: bool) -> String {
        let args: &[&str] = if escapes {
            &["capture-pane", "-p", "-e", "-t", "0"]
        } else {
            &["capture-pane", "-p", "-t", "0"]
        };
        String::from_utf8_lossy(&self.run(args).stdout).into_owned()
    }

    pub fn wait_screen(&self, what: &str, check: impl Fn(&str) -> bool) -> String {
        wait_until(what, PATIENCE, || {
            let screen = self.screen(false);
            if check(&screen) { Ok(screen) } else { Err(format!("screen:\n{screen}")) }
        })
    }

    /// The newest paste buffer (what the last OSC 52 put there), if any.
    pub fn buffer(&self) -> Option<String> {
        let output = self.try_run(&["show-buffer"]);
        output.status.success().then(|| String::from_utf8_lossy(&output.stdout).into_owned())
    }

    /// Waits until the newest paste buffer is `expected`.
    pub fn wait_buffer(&self, what: &str, expected: &str) {
        wait_until(what, PATIENCE, || match self.buffer() {
            Some(text) if text == expected => Ok(()),
            other => Err(format!("buffer {other:?}")),
        });
    }
}

impl Drop for Tmux<'_> {
    fn drop(&mut self) {
        let _ = self.server.command("tmux").arg("-S").arg(&self.socket).arg("kill-server").output();
    }
}

/// An SGR mouse report as a terminal sends it, for a 0-based cell (`button` 0 left, 32 left
/// drag); `press` false is the release.
pub fn sgr_mouse(button: u8, x: u16, y: u16, press: bool) -> String {
    format!("\x1b[<{button};{};{}{}", x + 1, y + 1, if press { 'M' } else { 'm' })
}

/// The left button in an SGR mouse report.
pub const LEFT: u8 = 0;
/// The right button.
pub const RIGHT: u8 = 2;

/// A press and release of `button` on cell `(x, y)`.
pub fn click(tmux: &Tmux<'_>, button: u8, (x, y): (u16, u16)) {
    tmux.literal(&sgr_mouse(button, x, y, true));
    tmux.literal(&sgr_mouse(button, x, y, false));
}

/// Clicks the menu item labelled `label` once it is on the screen.
pub fn choose(tmux: &Tmux<'_>, label: &str) {
    let item = format!("│ {label}");
    let screen = tmux.wait_screen(&format!("the menu item {label}"), |s| s.contains(&item));
    let (x, y) = find_on_screen(&screen, &item).expect("the item is on screen");
    click(tmux, LEFT, (x + 2, y));
}

/// Writes `config` as the test server's `config.toml` (before `herdr` starts it).
pub fn write_config(server: &TestServer, config: &str) {
    let dir = server.root().join("config").join("herdr");
    std::fs::create_dir_all(&dir).expect("create the config dir");
    std::fs::write(dir.join("config.toml"), config).expect("write config");
}

/// herdr attached in a fresh tmux (after writing `config`, when given).
pub fn attached<'a>(server: &'a TestServer, config: Option<&str>) -> Tmux<'a> {
    if let Some(config) = config {
        write_config(server, config);
    }
    let tmux = Tmux::start(server);
    tmux.attach_herdr();
    tmux
}

/// Row 1 of the screen (the panes' top borders) has one corner per pane box.
pub fn boxes_on_top_row(screen: &str) -> usize {
    screen.lines().nth(1).map_or(0, |row| row.matches(['┐', '┓']).count())
}

/// The screen cell `(x, y)` where `needle` starts on the screen (columns counted in characters,
/// which are cells for the ASCII and box-drawing text these suites print).
pub fn find_on_screen(screen: &str, needle: &str) -> Option<(u16, u16)> {
    screen.lines().enumerate().find_map(|(y, row)| {
        let byte = row.find(needle)?;
        let x = row[..byte].chars().count();
        Some((u16::try_from(x).ok()?, u16::try_from(y).ok()?))
    })
}
