//! The supervisor's end of a worker link: frames over the socket, PTY master fds passed beside
//! them (SCM_RIGHTS), and the background pace of its reading. A link whose pane may wait (no
//! focus, nothing asked of its worker) is read at a tick shared by every such link on the thread
//! instead of waking the supervisor per frame (ARCHITECTURE.md, "Painting a client").

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::net::UnixStream as StdStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::stream::{Reader, Writer};
use herdr_protocol::ipc::{
    BACKGROUND_FRAME_INTERVAL_MS, FrameDecoder, FrameError, SupervisorToWorker, WorkerToSupervisor,
    encode_frame,
};
use tokio::net::UnixStream;
use tokio::sync::Notify;
use tokio::time::Instant;

/// How often a link read at the background pace is read: three quarters of its worker's own
/// pace, as the supervisor's paint of panes without the focus.
pub const BACKGROUND_TICK: Duration = Duration::from_micros(BACKGROUND_FRAME_INTERVAL_MS * 750);

/// The writing side; cheap to clone, shared by the pane task and shutdown.
#[derive(Debug, Clone)]
pub struct LinkWriter {
    socket: Arc<Writer<StdStream>>,
    write_lock: Arc<tokio::sync::Mutex<()>>,
    pace: Arc<Pace>,
}

/// The reading side: decodes frames and queues fds in arrival order.
#[derive(Debug)]
pub struct LinkReader {
    socket: Reader<StdStream>,
    decoder: FrameDecoder,
    pace: Arc<Pace>,
    /// The last read took less than it could and no fd: the socket held nothing more then.
    drained: bool,
}

/// Whether the reader may take the worker's frames at the shared background tick, and what
/// calls it back early: anything sent to the worker.
#[derive(Debug, Default)]
struct Pace {
    background: AtomicBool,
    sent: Notify,
}

/// How much one read of a link takes at most.
const RECV_LEN: usize = 64 * 1024;

thread_local! {
    /// Every link's reads land here, one per runtime thread: the decoder copies what arrived
    /// before the next await, so a buffer of each link's own (4 KiB of a quiet pane's 28 KiB of
    /// supervisor heap, 64 KiB after a burst) held nothing between reads. Allocated once per
    /// thread; a fresh zeroed 64 KiB per frame had shown up in profiles.
    static SCRATCH: std::cell::RefCell<Vec<u8>> = std::cell::RefCell::new(vec![0u8; RECV_LEN]);
    /// This thread's background ticks, so every link on it is read in one wake-up.
    static BEAT: Arc<Beat> = Arc::default();
}

/// The background ticks of one thread's links: one of the links waiting for a tick (the first
/// to come) holds the timer and tells the others when it fires, for tokio wakes its driver for
/// every timer armed after a tick (an `eventfd` write each: twenty a tick for twenty panes).
#[derive(Debug, Default)]
struct Beat {
    /// Where the ticks count from, and the last tick that fired.
    clock: Mutex<(Option<Instant>, Option<Instant>)>,
    /// Whether a waiting link holds the timer.
    held: AtomicBool,
    /// Tells the other waiting links that the tick fired or its holder left.
    fired: Notify,
}

/// The holder's part: letting go wakes the others, to see whether the tick fired or to take
/// the timer over.
struct Holding<'a>(&'a Beat);

impl Drop for Holding<'_> {
    fn drop(&mut self) {
        self.0.held.store(false, Ordering::Release);
        self.0.fired.notify_waiters();
    }
}

impl Beat {
    /// The next tick after now.
    fn next(&self) -> Instant {
        let now = Instant::now();
        let mut clock = self.clock.lock().unwrap_or_else(PoisonError::into_inner);
        // An epoch ahead of now is another runtime's paused clock: start afresh.
        let epoch = *clock.0.get_or_insert(now);
        let epoch = if epoch > now {
            *clock = (Some(now), None);
            now
        } else {
            epoch
        };
        let ticks = (now - epoch).as_micros() / BACKGROUND_TICK.as_micros() + 1;
        epoch + BACKGROUND_TICK * u32::try_from(ticks).unwrap_or(u32::MAX)
    }

    fn fired_by(&self, tick: Instant) -> bool {
        self.clock.lock().unwrap_or_else(PoisonError::into_inner).1.is_some_and(|fired| fired >= tick)
    }

    /// Resolves at `tick`.
    async fn wait(&self, tick: Instant) {
        loop {
            // Made before looking, so a tick that fires right after the look is not missed.
            let told = self.fired.notified();
            if self.fired_by(tick) {
                return;
            }
            if !self.held.swap(true, Ordering::AcqRel) {
                let _holding = Holding(self);
                tokio::time::sleep_until(tick).await;
                let mut clock = self.clock.lock().unwrap_or_else(PoisonError::into_inner);
                clock.1 = clock.1.max(Some(tick));
                return;
            }
            told.await;
        }
    }
}

/// The halves of a worker link.
pub fn split(stream: UnixStream) -> io::Result<(LinkWriter, LinkReader)> {
    let (reader, writer) = crate::stream::split(stream)?;
    let pace = Arc::new(Pace::default());
    Ok((
        LinkWriter { socket: Arc::new(writer), write_lock: Arc::default(), pace: pace.clone() },
        LinkReader { socket: reader, decoder: FrameDecoder::new(), pace, drained: false },
    ))
}

fn frame_error(e: FrameError) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e)
}

impl LinkWriter {
    /// Closes the link both ways without a `Shutdown`: the worker reads EOF and waits to be
    /// adopted, and our reader ends (a live handoff's release).
    pub fn hang_up(&self) {
        // SAFETY: shutdown(2) on the socket this writer shares; the fd stays open and owned.
        unsafe { libc::shutdown(self.socket.as_raw_fd(), libc::SHUT_RDWR) };
        self.pace.sent.notify_one();
    }

    /// Writes one frame; `fd`, when given, travels with the frame's first byte. The reader
    /// goes back to waiting on the socket, for the answer.
    pub async fn send(&self, msg: &SupervisorToWorker, fd: Option<BorrowedFd<'_>>) -> io::Result<()> {
        let bytes = encode_frame(msg).map_err(frame_error)?;
        let sent = {
            let _guard = self.write_lock.lock().await;
            self.socket.send_all(&bytes, fd).await
        };
        self.pace.sent.notify_one();
        sent
    }

    /// Whether the worker's frames may wait for the background tick: only while its pane has
    /// no focus and no request waits for an answer (the pane task says).
    pub fn set_background(&self, background: bool) {
        let was = self.pace.background.swap(background, Ordering::Relaxed);
        // Only a pane that stops being allowed to wait calls a waiting reader back.
        if was && !background {
            self.pace.sent.notify_one();
        }
    }
}

impl LinkReader {
    /// The next frame; `Ok(None)` when the worker closed the link.
    pub async fn recv(&mut self) -> io::Result<Option<WorkerToSupervisor>> {
        loop {
            match self.recv_now() {
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
                Ok(None) => self.socket.ready().await?,
                got => return got,
            }
        }
    }

    /// A frame that has arrived, without waiting (`None`: none whole yet); a closed link is
    /// `UnexpectedEof`. After a read that took less than it could and no fd, the socket held
    /// nothing more at that moment (a Unix stream read crosses every queued message that carries
    /// no fd), so the next call that finds no whole frame says `None` without reading again: at
    /// the background tick, twenty links cost twenty reads instead of forty. Nothing is left
    /// behind: the call after that reads, a registered reader's readiness was not cleared and
    /// wakes it at once, and the next tick reads afresh.
    pub fn recv_now(&mut self) -> io::Result<Option<WorkerToSupervisor>> {
        loop {
            if let Some(frame) = self.decoder.next_frame().map_err(frame_error)? {
                return Ok(Some(frame));
            }
            if std::mem::take(&mut self.drained) {
                return Ok(None);
            }
            let read = SCRATCH.with_borrow_mut(|buf| {
                let read = self.socket.read_now(buf)?;
                self.decoder.push(&buf[..read.unwrap_or(0)]);
                Ok::<_, io::Error>(read.map(|n| (n, n < buf.len())))
            });
            match read? {
                None => return Ok(None),
                Some((0, _)) => return Err(io::ErrorKind::UnexpectedEof.into()),
                Some((_, short)) => self.drained = short && !self.socket.has_fds(),
            }
        }
    }

    /// Whether the frames may wait for the background tick ([`LinkWriter::set_background`]).
    pub fn background(&self) -> bool {
        self.pace.background.load(Ordering::Relaxed)
    }

    /// Stops the socket waking anyone until the next [`LinkReader::recv`], then waits for the
    /// next background tick (shared by every link on this thread), or less if anything is sent
    /// to the worker meanwhile: true for the tick.
    pub async fn until_tick(&mut self) -> bool {
        self.socket.unregister();
        // Whatever the last read said, the tick reads afresh.
        self.drained = false;
        let beat = BEAT.with(Arc::clone);
        let tick = beat.next();
        tokio::select! {
            () = beat.wait(tick) => true,
            () = self.pace.sent.notified() => false,
        }
    }

    /// The oldest fd received and not yet claimed by a frame.
    pub fn take_fd(&mut self) -> Option<OwnedFd> {
        self.socket.take_fd()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn hello() -> Vec<u8> {
        encode_frame(&WorkerToSupervisor::Hello { version: 1, worker_pid: 7 }).expect("encode")
    }

    #[tokio::test]
    async fn a_short_read_ends_the_reading_until_the_next_call_which_takes_what_came_since() {
        let (ours, theirs) = UnixStream::pair().expect("socketpair");
        let (_writer, mut reader) = split(ours).expect("split");
        let mut worker = theirs.into_std().expect("std stream");
        worker.set_nonblocking(false).expect("blocking");
        worker.write_all(&hello()).expect("send");
        assert!(matches!(reader.recv().await.expect("recv"), Some(WorkerToSupervisor::Hello { .. })));
        // Sent after that read: the next call does not look, the one after it does.
        worker.write_all(&hello()).expect("send");
        assert!(reader.recv_now().expect("recv").is_none(), "a short read already said the socket was empty");
        assert!(matches!(reader.recv_now().expect("recv"), Some(WorkerToSupervisor::Hello { .. })));
        // Drained by an EAGAIN, then registered: `recv` waits for new frames and gets them.
        assert!(reader.recv_now().expect("recv").is_none());
        assert!(reader.recv_now().expect("recv").is_none());
        worker.write_all(&hello()).expect("send");
        let next = tokio::time::timeout(Duration::from_secs(5), reader.recv()).await.expect("woken");
        assert!(matches!(next.expect("recv"), Some(WorkerToSupervisor::Hello { .. })));
        drop(worker);
        let end = tokio::time::timeout(Duration::from_secs(5), reader.recv()).await.expect("woken");
        assert!(end.expect("recv").is_none(), "the worker hung up");
    }
}
