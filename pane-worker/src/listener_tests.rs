use std::os::unix::fs::PermissionsExt;

use super::*;

/// Registering with the reactor needs a runtime; these tests only bind and drop.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_io().build().expect("runtime")
}

#[test]
fn binds_0600_and_removes_the_file_when_dropped() {
    let rt = runtime();
    let _in_rt = rt.enter();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("w.sock");
    let listener = Listener::bind(&path).expect("bind");
    let meta = fs::symlink_metadata(&path).expect("socket file");
    assert!(meta.file_type().is_socket());
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert!(accepts_connections(&path).expect("probe"));
    drop(listener);
    assert!(!path.exists(), "the socket file is removed");
}

#[test]
fn a_stale_socket_is_replaced_and_a_live_one_refused() {
    let rt = runtime();
    let _in_rt = rt.enter();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("w.sock");
    drop(UnixListener::bind(&path).expect("stale socket"));
    assert!(!accepts_connections(&path).expect("probe"), "nobody listens on a dropped listener");
    let ours = Listener::bind(&path).expect("replaces the stale socket");
    match Listener::bind(&path) {
        Err(BindError::InUse(p)) => assert_eq!(p, path.display().to_string()),
        other => panic!("a live socket must be refused: {other:?}"),
    }
    drop(ours);
}

#[test]
fn other_files_are_never_removed() {
    let rt = runtime();
    let _in_rt = rt.enter();
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("file.sock");
    fs::write(&file, "keep me").expect("write");
    let sub = dir.path().join("dir.sock");
    fs::create_dir(&sub).expect("mkdir");
    let link = dir.path().join("link.sock");
    std::os::unix::fs::symlink(&file, &link).expect("symlink");
    let fifo = dir.path().join("fifo.sock");
    let c = CString::new(fifo.as_os_str().as_bytes()).expect("path");
    // SAFETY: mkfifo with a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    for (path, kind) in
        [(&file, "regular file"), (&sub, "directory"), (&link, "symbolic link"), (&fifo, "fifo")]
    {
        match Listener::bind(path) {
            Err(err @ BindError::NotASocket { .. }) => {
                assert!(err.to_string().contains(kind), "{err}");
                assert!(err.to_string().contains("left alone"), "{err}");
            }
            other => panic!("{} must be refused: {other:?}", path.display()),
        }
    }
    assert_eq!(fs::read_to_string(&file).expect("still there"), "keep me");
    assert!(sub.is_dir() && fs::symlink_metadata(&link).is_ok() && fs::symlink_metadata(&fifo).is_ok());
}

#[test]
fn a_missing_directory_is_refused() {
    let rt = runtime();
    let _in_rt = rt.enter();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("gone").join("w.sock");
    assert!(matches!(Listener::bind(&path), Err(BindError::NoDirectory(_))));
}

#[test]
fn a_socket_put_in_our_place_is_not_removed() {
    let rt = runtime();
    let _in_rt = rt.enter();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("w.sock");
    let ours = Listener::bind(&path).expect("bind");
    // Someone removed ours and bound their own (a replacement worker after a hang).
    fs::remove_file(&path).expect("remove");
    let theirs = UnixListener::bind(&path).expect("their socket");
    drop(ours);
    assert!(fs::symlink_metadata(&path).is_ok(), "their socket stays");
    drop(theirs);
}
