//! Socket security and single-instance rules (reference §1; design "Security"): the socket is
//! 0600 in a 0700 folder the server creates, a second server on a live socket refuses with
//! "already running", a stale socket file is replaced.

use std::fs;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::net::UnixListener;

use herdr_e2e::{PATIENCE, TestServer, wait_until};

fn mode(path: &std::path::Path) -> u32 {
    fs::metadata(path).unwrap_or_else(|e| panic!("stat {}: {e}", path.display())).permissions().mode() & 0o777
}

#[test]
fn socket_is_0600_in_a_0700_folder() {
    let server = TestServer::start();
    let socket = server.socket();
    assert!(fs::metadata(socket).expect("stat socket").file_type().is_socket());
    assert_eq!(mode(socket), 0o600, "socket mode");
    let folder = socket.parent().expect("socket has a folder");
    assert_eq!(mode(folder), 0o700, "socket folder mode (the server created {})", folder.display());
}

#[test]
fn a_second_server_on_the_same_socket_refuses() {
    let server = TestServer::start();
    let log = server.root().join("second-server.log");
    let mut second = server.server_command(&log).spawn().expect("start a second server");
    let status = wait_until("the second server to exit", PATIENCE, || {
        second.try_wait().expect("try_wait").ok_or_else(|| "still running".to_owned())
    });
    let output = fs::read_to_string(&log).unwrap_or_default();
    assert!(!status.success(), "a second server must fail; it printed: {output}");
    assert!(output.contains("already running"), "expected \"already running\" in: {output}");
    // The first server was not disturbed and still owns its socket.
    server.assert_alive();
}

#[test]
fn a_stale_socket_file_is_replaced() {
    let mut server = TestServer::prepare();
    let socket = server.socket().to_path_buf();
    fs::create_dir_all(socket.parent().expect("socket folder")).expect("create socket folder");
    fs::set_permissions(socket.parent().expect("socket folder"), fs::Permissions::from_mode(0o700))
        .expect("chmod socket folder");
    // Bind and drop a listener: the file stays, nobody listens.
    drop(UnixListener::bind(&socket).expect("bind a soon-stale socket"));
    assert!(fs::metadata(&socket).expect("stale file exists").file_type().is_socket());
    server.start_server();
    server.assert_alive();
    assert_eq!(mode(&socket), 0o600);
}
