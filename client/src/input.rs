//! The thread that reads the terminal's keys while this client reads them itself (no supervisor
//! took the terminal, or the one that did is gone), and how it is stopped again: a reconnecting
//! client offers its terminal to the next supervisor too, and two readers of one terminal would
//! split the keys between them. With the terminal at hand the thread waits in `poll` on it and
//! on a stop pipe before each read, so stopping it never leaves a `read` blocked on the
//! terminal; without one (a test's input) it just reads, and cannot be stopped.
//!
//! Not here: what is done with the bytes read (`pump::forward_input`).

use std::fs::File;
use std::io::{self, PipeReader, PipeWriter, Read};
use std::os::fd::{AsFd, OwnedFd};
use std::thread::{self, JoinHandle};

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};

/// The user's raw input, as [`crate::TerminalIo::input`] holds it.
pub(crate) type Input = Box<dyn Read + Send>;

/// A running input thread.
pub(crate) struct InputThread {
    /// Dropping it stops the thread (its [`Watch`] sees the pipe hang up); `None` when the
    /// thread reads without watching and cannot be stopped.
    stop: Option<PipeWriter>,
    handle: JoinHandle<Option<Input>>,
}

/// What the thread waits on before each read.
pub(crate) struct Watch {
    terminal: OwnedFd,
    stop: PipeReader,
}

/// What a [`Watch`] woke up to.
pub(crate) enum Woke {
    /// Something to read (or the terminal hung up: the read will say so).
    Input,
    Stop,
}

impl InputThread {
    /// Runs `body` with `input` on a thread of its own, watching `terminal` when there is one
    /// (a stoppable thread); `body` gives the input back when it was stopped, `None` when the
    /// input ended.
    pub(crate) fn spawn(
        input: Input,
        terminal: Option<&File>,
        body: impl FnOnce(Input, Option<Watch>) -> Option<Input> + Send + 'static,
    ) -> io::Result<InputThread> {
        let (stop, watch) = match terminal {
            Some(terminal) => {
                let (reader, writer) = io::pipe()?;
                let watch = Watch { terminal: terminal.as_fd().try_clone_to_owned()?, stop: reader };
                (Some(writer), Some(watch))
            }
            None => (None, None),
        };
        let handle = thread::Builder::new().name("herdr-input".into()).spawn(move || body(input, watch))?;
        Ok(InputThread { stop, handle })
    }

    pub(crate) fn stoppable(&self) -> bool {
        self.stop.is_some()
    }

    /// Stops the thread and waits for it: `Ok` with the input to read later (`None` if it had
    /// already ended), or the thread itself back when it cannot be stopped.
    pub(crate) fn stop(mut self) -> Result<Option<Input>, InputThread> {
        if self.stop.take().is_none() {
            return Err(self);
        }
        Ok(self.handle.join().unwrap_or(None))
    }
}

impl Watch {
    /// Waits until the terminal has input or the thread is told to stop (stopping first when
    /// both are so). A `poll` that fails outright counts as input: the blocking read decides.
    pub(crate) fn wait(&self) -> Woke {
        let ready = PollFlags::POLLIN;
        loop {
            let mut fds = [PollFd::new(self.stop.as_fd(), ready), PollFd::new(self.terminal.as_fd(), ready)];
            match poll(&mut fds, PollTimeout::NONE) {
                Err(Errno::EINTR) => continue,
                Err(_) => return Woke::Input,
                Ok(_) if fds[0].revents().is_some_and(|r| !r.is_empty()) => return Woke::Stop,
                Ok(_) => return Woke::Input,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::mpsc;

    use super::*;

    /// A stand-in terminal: a pipe whose reading end is watched and read, as the real terminal
    /// is (the watch polls its own descriptor of the device the input reads).
    fn fake_terminal() -> (File, Input, PipeWriter) {
        let (reader, writer) = io::pipe().expect("pipe");
        let watched = File::from(OwnedFd::from(reader.try_clone().expect("dup")));
        (watched, Box::new(reader), writer)
    }

    #[test]
    fn a_stopped_thread_gives_its_input_back_unread() {
        let (terminal, input, mut keys) = fake_terminal();
        let (got_tx, got) = mpsc::channel();
        let thread = InputThread::spawn(input, Some(&terminal), move |mut input, watch| {
            let watch = watch.expect("a terminal is watched");
            let mut buf = [0u8; 16];
            loop {
                if let Woke::Stop = watch.wait() {
                    return Some(input);
                }
                let n = input.read(&mut buf).expect("read");
                got_tx.send(buf[..n].to_vec()).expect("send");
            }
        })
        .expect("spawn");
        assert!(thread.stoppable());
        keys.write_all(b"ab").expect("type");
        assert_eq!(got.recv().expect("forwarded"), b"ab");
        let mut input = thread.stop().map_err(|_| "stoppable").expect("stopped").expect("input back");
        // Typed after the stop: left for whoever reads the terminal next.
        keys.write_all(b"c").expect("type");
        let mut buf = [0u8; 4];
        assert_eq!(input.read(&mut buf).expect("read"), 1);
        assert_eq!(&buf[..1], b"c");
        assert!(got.try_recv().is_err(), "the thread read nothing after the stop");
    }

    #[test]
    fn without_a_terminal_the_thread_cannot_be_stopped() {
        let (_terminal, input, _keys) = fake_terminal();
        let thread = InputThread::spawn(input, None, |_, watch| {
            assert!(watch.is_none());
            None
        })
        .expect("spawn");
        assert!(!thread.stoppable());
        assert!(thread.stop().is_err());
    }
}
