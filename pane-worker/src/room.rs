//! Waiting for room to write on a descriptor the runtime watches for reading only (the PTY
//! master, the supervisor link). Registered for writability too, edge-triggered epoll would wake
//! the worker every time the peer took data in; instead a duplicate of the descriptor is
//! registered for writability when a write first has to wait, kept while writes keep waiting,
//! and dropped once they have all gone.
//!
//! Not here: the writes themselves (`pty`, `link`).

use std::{
    cell::OnceCell,
    io,
    os::fd::{BorrowedFd, OwnedFd},
};

use tokio::io::{Interest, unix::AsyncFd};

/// The writability registration of one descriptor, present only while writes wait.
#[derive(Debug, Default)]
pub struct Room {
    waiter: OnceCell<AsyncFd<OwnedFd>>,
}

impl Room {
    /// Waits until `fd` can take more. The first wait registers a duplicate of `fd`, which
    /// reports the current state at once, so room that appeared before it is not missed.
    pub async fn wait(&self, fd: BorrowedFd<'_>) -> io::Result<()> {
        let waiter = match self.waiter.get() {
            Some(waiter) => waiter,
            None => {
                let dup = fd.try_clone_to_owned()?;
                // SAFETY: the AsyncFd owns the duplicate, which stays open and the same for its
                // life.
                let waiter = unsafe { AsyncFd::register_with_interest(dup, Interest::WRITABLE) }
                    .map_err(|e| e.into_parts().1)?;
                self.waiter.get_or_init(|| waiter)
            }
        };
        let mut ready = waiter.writable().await?;
        // The caller writes next, until the descriptor would block or nothing is left; room
        // that appears after this is a new edge (one that came meanwhile is kept: readiness is
        // cleared only as of this wake), so the next wait sleeps until the peer takes more.
        ready.clear_ready();
        Ok(())
    }

    /// Nothing waits any more: drop the registration.
    pub fn done(&mut self) {
        self.waiter.take();
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::os::{fd::AsFd, unix::net::UnixStream};
    use std::time::Duration;

    use super::Room;

    /// Fills `stream`'s send buffer; returns how much went in.
    fn fill(stream: &mut UnixStream) -> usize {
        let chunk = [0u8; 4096];
        let mut total = 0;
        loop {
            match stream.write(&chunk) {
                Ok(n) => total += n,
                Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => return total,
                Err(err) => panic!("write: {err}"),
            }
        }
    }

    #[test]
    fn a_kept_registration_waits_for_each_new_room_and_not_for_old_room() {
        let runtime =
            tokio::runtime::Builder::new_current_thread().enable_io().enable_time().build().expect("runtime");
        runtime.block_on(async {
            let (mut ours, mut theirs) = UnixStream::pair().expect("pair");
            ours.set_nonblocking(true).expect("nonblocking");
            theirs.set_nonblocking(true).expect("nonblocking");
            let mut room = Room::default();
            // Room there before the first wait is seen at once.
            tokio::time::timeout(Duration::from_secs(5), room.wait(ours.as_fd()))
                .await
                .expect("room at once")
                .expect("wait");
            let mut sink = vec![0u8; 1 << 20];
            for round in 0..3 {
                let filled = fill(&mut ours);
                assert!(filled > 0, "round {round}: the buffer had room");
                // Full: the kept registration must not report the old room again.
                let early = tokio::time::timeout(Duration::from_millis(100), room.wait(ours.as_fd())).await;
                assert!(early.is_err(), "round {round}: a full socket reported room");
                // The peer takes it all: room again.
                let mut drained = 0;
                while drained < filled {
                    drained += std::io::Read::read(&mut theirs, &mut sink).expect("drain");
                }
                tokio::time::timeout(Duration::from_secs(5), room.wait(ours.as_fd()))
                    .await
                    .unwrap_or_else(|_| panic!("round {round}: room after draining was missed"))
                    .expect("wait");
            }
            room.done();
            assert!(room.waiter.get().is_none(), "done drops the registration");
        });
    }
}
