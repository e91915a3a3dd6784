//! Installing this machine's herdr on a remote host that lacks it (or has another version):
//! `herdr`, `herdr-pane-worker` and `libghostty-vt.so.0` streamed over exec channels into
//! `~/.local/bin` and `~/.local/lib` (the `scripts/install` layout: the worker's rpath is
//! `$ORIGIN/../lib`). Each file lands under a temporary name, is checked by sha256 on the remote
//! side against the local file's digest, and only then renamed into place, so a broken copy
//! never replaces a working binary; `herdr` goes last, so its presence means a whole install.
//! Asking the user first is the caller's business.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use ssh2::Session;

use crate::digest::{self, Sha256};
use crate::exec::{self, ExecError, quote};

/// How long one blocking step of a copy may take (a write, or the remote hash of a large file).
const COPY_TIMEOUT_MS: u32 = 300_000;

/// The library's SONAME, which the worker records.
pub const LIBGHOSTTY: &str = "libghostty-vt.so.0";

#[derive(Debug, thiserror::Error)]
pub enum ProvisionError {
    #[error("cannot read {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error(
        "cannot find {LIBGHOSTTY} for the local herdr (looked in {looked}); set HERDR_REMOTE_LIBGHOSTTY to its path"
    )]
    NoLibrary { looked: String },
    #[error(
        "the remote host is {remote}, this machine {local}: herdr copies itself only to the same platform"
    )]
    Platform { remote: String, local: String },
    #[error(transparent)]
    Exec(#[from] ExecError),
    #[error("copying {file} to the remote host failed (status {status}): {detail}")]
    Copy { file: String, status: i32, detail: String },
}

/// One file to install.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upload {
    pub local: PathBuf,
    /// Relative to the remote `~/.local`.
    pub remote: String,
    pub mode: u32,
}

/// This machine's build, as it would be installed remotely.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalBuild {
    pub files: Vec<Upload>,
}

impl LocalBuild {
    /// The build next to `herdr_exe`: the worker beside it, the library in `PREFIX/lib`, beside
    /// it, or (a development tree) in `vendor/libghostty-vt/lib`; `library` overrides that search.
    pub fn locate(herdr_exe: &Path, library: Option<PathBuf>) -> Result<LocalBuild, ProvisionError> {
        let dir = herdr_exe.parent().unwrap_or(Path::new("."));
        let candidates = [
            dir.join("../lib").join(LIBGHOSTTY),
            dir.join(LIBGHOSTTY),
            dir.join("../../vendor/libghostty-vt/lib").join(LIBGHOSTTY),
        ];
        let library = match library {
            Some(path) => path,
            None => {
                candidates.iter().find(|p| p.is_file()).cloned().ok_or_else(|| ProvisionError::NoLibrary {
                    looked: candidates.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "),
                })?
            }
        };
        Ok(LocalBuild {
            files: vec![
                Upload { local: library, remote: format!("lib/{LIBGHOSTTY}"), mode: 0o644 },
                Upload {
                    local: dir.join("herdr-pane-worker"),
                    remote: "bin/herdr-pane-worker".into(),
                    mode: 0o755,
                },
                Upload { local: herdr_exe.to_path_buf(), remote: "bin/herdr".into(), mode: 0o755 },
            ],
        })
    }
}

/// The sha256 of a local file, hex.
pub fn file_sha256(path: &Path) -> Result<String, ProvisionError> {
    let read = |source| ProvisionError::Read { path: path.display().to_string(), source };
    let mut file = BufReader::new(File::open(path).map_err(read)?);
    let mut hasher = Sha256::default();
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        let n = file.read(&mut buf).map_err(read)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(digest::hex(&hasher.finish()))
}

/// The remote script that receives one file on stdin into `dest`, checks it and renames it.
fn receive_script(dest: &str, mode: u32, sha256: &str) -> String {
    let dest = quote(dest);
    format!(
        "set -e; umask 077; dest={dest}; mkdir -p \"$(dirname \"$dest\")\"; tmp=\"$dest.herdr-upload.$$\"; \
         trap 'rm -f \"$tmp\"' EXIT; cat > \"$tmp\"; \
         got=$( (sha256sum \"$tmp\" 2>/dev/null || shasum -a 256 \"$tmp\") | cut -d ' ' -f 1); \
         if [ \"$got\" != {sha256} ]; then echo \"sha256 mismatch: got $got, expected {sha256}\" >&2; exit 3; fi; \
         chmod {mode:o} \"$tmp\"; mv -f \"$tmp\" \"$dest\"; trap - EXIT; echo \"$got\""
    )
}

/// Installs `build` under `remote_home/.local` on a host whose `uname -sm` is `platform`;
/// returns the remote `herdr` path. `progress` hears about each file before it is sent.
pub fn install(
    session: &Session,
    build: &LocalBuild,
    platform: &str,
    remote_home: &str,
    progress: &mut dyn FnMut(&Upload),
) -> Result<String, ProvisionError> {
    let local = crate::remote_host::local_platform();
    if platform != local {
        return Err(ProvisionError::Platform { remote: platform.to_owned(), local });
    }
    let prefix = format!("{}/.local", remote_home.trim_end_matches('/'));
    // Hashing a large binary on a busy host can keep the channel silent longer than the
    // session's usual per-call timeout; the copy gets its own, then the usual one comes back.
    let usual = session.timeout();
    session.set_timeout(COPY_TIMEOUT_MS);
    let result = install_files(session, build, &prefix, progress);
    session.set_timeout(usual);
    result
}

fn install_files(
    session: &Session,
    build: &LocalBuild,
    prefix: &str,
    progress: &mut dyn FnMut(&Upload),
) -> Result<String, ProvisionError> {
    for upload in &build.files {
        progress(upload);
        let sha256 = file_sha256(&upload.local)?;
        let dest = format!("{prefix}/{}", upload.remote);
        let mut file = File::open(&upload.local)
            .map_err(|source| ProvisionError::Read { path: upload.local.display().to_string(), source })?;
        let output = exec::run(session, &receive_script(&dest, upload.mode, &sha256), Some(&mut file))?;
        if !output.success() || output.stdout.trim() != sha256 {
            return Err(ProvisionError::Copy {
                file: dest,
                status: output.status,
                detail: format!("{}{}", output.stderr.trim(), output.stdout.trim()),
            });
        }
    }
    Ok(format!("{prefix}/bin/herdr"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_is_found_in_the_install_layout_with_herdr_last() {
        let root = tempfile::tempdir().expect("temp dir");
        let (bin, lib) = (root.path().join("bin"), root.path().join("lib"));
        std::fs::create_dir_all(&bin).expect("mkdir");
        std::fs::create_dir_all(&lib).expect("mkdir");
        std::fs::write(lib.join(LIBGHOSTTY), "lib").expect("write");
        let build = LocalBuild::locate(&bin.join("herdr"), None).expect("locate");
        let remote: Vec<&str> = build.files.iter().map(|f| f.remote.as_str()).collect();
        assert_eq!(remote, ["lib/libghostty-vt.so.0", "bin/herdr-pane-worker", "bin/herdr"]);
        assert_eq!(build.files[0].local, bin.join("../lib").join(LIBGHOSTTY));
        assert!(matches!(
            LocalBuild::locate(&root.path().join("x/herdr"), None),
            Err(ProvisionError::NoLibrary { .. })
        ));
    }

    #[test]
    fn the_receive_script_checks_the_digest_before_the_rename() {
        let script = receive_script("/h/.local/bin/herdr", 0o755, "abc");
        let check = script.find("!= abc").expect("a digest check");
        let rename = script.find("mv -f").expect("a rename");
        assert!(check < rename, "{script}");
        assert!(script.contains("chmod 755"), "{script}");
    }

    #[test]
    fn a_file_digest_is_the_sha256_of_its_bytes() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("f");
        std::fs::write(&path, b"abc").expect("write");
        assert_eq!(
            file_sha256(&path).expect("hash"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
