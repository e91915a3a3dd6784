//! A socket read and written without wake-ups for write readiness: the supervisor's terminal
//! client connections, which carry a frame per paint.
//!
//! A tokio `UnixStream` is registered for reading and writing for its whole life, and epoll is
//! edge-triggered: every time the client drains what the paint task wrote, the kernel reports
//! the socket writable again and the supervisor wakes for nothing — once per frame, a third of
//! its wake-ups under a 60 Hz spinner. Here the socket is registered for reading only; a write
//! goes straight to the socket and only a write the socket cannot take right now registers a
//! duplicate descriptor for writability, for as long as that one write waits.

use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream as StdStream;
use std::sync::Arc;

use tokio::io::Interest;
use tokio::io::unix::AsyncFd;
use tokio::net::UnixStream;

/// The reading half (registered for readability).
#[derive(Debug)]
pub struct ClientReader {
    socket: Arc<AsyncFd<StdStream>>,
}

/// The writing half (not registered; see the module doc).
#[derive(Debug)]
pub struct ClientWriter {
    socket: Arc<AsyncFd<StdStream>>,
}

/// Splits an accepted connection into its halves.
pub fn split(stream: UnixStream) -> io::Result<(ClientReader, ClientWriter)> {
    let std = stream.into_std()?;
    std.set_nonblocking(true)?;
    let socket = Arc::new(register(std, Interest::READABLE)?);
    Ok((ClientReader { socket: socket.clone() }, ClientWriter { socket }))
}

impl ClientReader {
    /// Reads what has arrived (0 at end of stream), waiting until something has.
    pub async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let mut ready = self.socket.readable().await?;
            match ready.try_io(|socket| socket.get_ref().read(buf)) {
                Ok(result) => return result,
                Err(_would_block) => continue,
            }
        }
    }
}

impl ClientWriter {
    /// Writes all of `bytes`, waiting for room only when the socket is full.
    pub async fn write_all(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        while !bytes.is_empty() {
            match self.socket.get_ref().write(bytes) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => bytes = &bytes[n..],
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.room().await?,
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Resolves once the socket can take more. A fresh edge-triggered registration reports the
    /// current state at once, so room that appeared before it is not missed.
    async fn room(&self) -> io::Result<()> {
        let waiter = register(self.socket.get_ref().try_clone()?, Interest::WRITABLE)?;
        let _ready = waiter.writable().await?;
        Ok(())
    }
}

/// Registers `socket` with the runtime's reactor for `interest`.
fn register(socket: StdStream, interest: Interest) -> io::Result<AsyncFd<StdStream>> {
    // SAFETY: the stream owns its descriptor, which stays open and the same for as long as the
    // AsyncFd (which owns the stream) lives.
    unsafe { AsyncFd::register_with_interest(socket, interest) }.map_err(|e| e.into_parts().1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_write_bigger_than_the_socket_buffer_waits_for_the_reader() {
        let (a, b) = UnixStream::pair().expect("socketpair");
        let (_, mut writer) = split(a).expect("split");
        let (mut reader, _keep) = split(b).expect("split");
        let payload: Vec<u8> = (0..4 * 1024 * 1024).map(|i| (i % 251) as u8).collect();
        let expected = payload.clone();
        let writing = tokio::spawn(async move { writer.write_all(&payload).await });
        let mut got = Vec::new();
        let mut buf = vec![0u8; 64 * 1024];
        while got.len() < expected.len() {
            let n = reader.read(&mut buf).await.expect("read");
            assert_ne!(n, 0, "the writer hung up early");
            got.extend_from_slice(&buf[..n]);
        }
        writing.await.expect("join").expect("write_all");
        assert_eq!(got, expected);
    }

    #[tokio::test]
    async fn reading_after_the_peer_closed_is_end_of_stream() {
        let (a, b) = UnixStream::pair().expect("socketpair");
        let (mut reader, _writer) = split(a).expect("split");
        drop(b);
        let mut buf = [0u8; 8];
        assert_eq!(reader.read(&mut buf).await.expect("read"), 0);
    }
}
