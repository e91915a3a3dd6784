//! Real `git` for the worktree suites: a command in a directory that must succeed, isolated from
//! the machine's git configuration, and a one-commit repository to work on.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::server::TestServer;

/// Runs `git -C dir args…` (with a test identity, no system config, C locale); panics when it
/// fails. Returns stdout, trimmed.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.email=e2e@example.invalid", "-c", "user.name=herdr e2e"])
        .args(args)
        .env("LC_ALL", "C")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?} in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A repository `name` in the test's work dir with one commit on `main`; its canonical path.
pub fn repo(server: &TestServer, name: &str) -> PathBuf {
    let repo = server.work_dir(name);
    git(&repo, &["init", "--quiet", "--initial-branch=main"]);
    std::fs::write(repo.join("README"), "hello\n").expect("write a file");
    git(&repo, &["add", "README"]);
    git(&repo, &["commit", "--quiet", "-m", "first"]);
    repo.canonicalize().expect("canonical repo")
}
