//! The link reader's background pace (`read_frames`): a pane without the focus whose worker owes
//! nothing has its frames read at the shared background tick, and anything sent to the worker
//! brings the reader back to the socket at once. On a paused clock, which moves only when every
//! task waits on a timer: a frame read as it arrives is delivered at the instant it was sent.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream as StdStream;
use std::sync::Arc;
use std::time::Duration;

use herdr_protocol::grid::CursorPlacement;
use herdr_protocol::ipc::{
    FrameDecoder, GridDamage, PaneModes, SupervisorToWorker, WorkerEvent, WorkerRequest, WorkerResponse,
    WorkerToSupervisor, encode_frame,
};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::{Incoming, read_frames};
use crate::session::PaneKey;
use crate::workers::{Gone, PaneObserver};
use herdr_host::link::{self, BACKGROUND_TICK, LinkWriter};

/// Damage as the screens saw it, with the (paused) clock's time.
struct Seen(mpsc::UnboundedSender<(Instant, u16)>);

impl PaneObserver for Seen {
    fn worker_event(&self, _key: PaneKey, event: WorkerEvent) {
        if let WorkerEvent::Damage(damage) = event {
            let _ = self.0.send((Instant::now(), damage.cols));
        }
    }
    fn pane_gone(&self, _key: PaneKey, _how: Gone) {}
}

/// The latest a frame waiting for the tick is read: tokio's timer fires on whole milliseconds.
const LATEST: Duration = BACKGROUND_TICK.saturating_add(Duration::from_millis(1));

fn damage(cols: u16) -> Vec<u8> {
    let damage = GridDamage {
        cols,
        rows: 1,
        full: true,
        lines: Vec::new(),
        cursor: CursorPlacement::default(),
        modes: PaneModes::default(),
        scroll: Default::default(),
        copy: None,
    };
    encode_frame(&WorkerToSupervisor::Event(WorkerEvent::Damage(damage))).expect("encode")
}

struct Link {
    writer: LinkWriter,
    /// The worker's end.
    worker: StdStream,
    damage: mpsc::UnboundedReceiver<(Instant, u16)>,
    frames: mpsc::UnboundedReceiver<Incoming>,
}

fn link(background: bool) -> Link {
    let (ours, worker) = StdStream::pair().expect("socketpair");
    ours.set_nonblocking(true).expect("non-blocking");
    let (writer, reader) =
        link::split(tokio::net::UnixStream::from_std(ours).expect("tokio")).expect("split");
    writer.set_background(background);
    let (seen, damage) = mpsc::unbounded_channel();
    let (tx, frames) = mpsc::unbounded_channel();
    tokio::spawn(read_frames(reader, tx, (PaneKey(1), Arc::new(Seen(seen)))));
    Link { writer, worker, damage, frames }
}

#[tokio::test(start_paused = true)]
async fn background_damage_waits_for_the_tick_and_focused_damage_does_not() {
    for background in [true, false] {
        let mut link = link(background);
        // Two frames in one write: the second is read with the first, yet waits for the tick.
        link.worker.write_all(&[damage(1), damage(2)].concat()).expect("write");
        let (first, cols) = link.damage.recv().await.expect("first damage");
        assert_eq!(cols, 1);
        let (second, cols) = link.damage.recv().await.expect("second damage");
        assert_eq!(cols, 2);
        if background {
            assert!(second > first, "read at the tick, not as it came");
            assert!(second - first <= LATEST, "at the next tick: {:?}", second - first);
        } else {
            assert_eq!(second, first, "a pane that may not wait has its frames read as they come");
        }
        // Damage goes on arriving: each frame waits at most one tick.
        for cols in 3..8 {
            let sent = Instant::now();
            link.worker.write_all(&damage(cols)).expect("write");
            let (at, got) = link.damage.recv().await.expect("damage");
            assert_eq!(got, cols);
            assert!(at - sent <= LATEST, "{:?}", at - sent);
            assert_eq!(at > sent, background, "{:?} after it was sent", at - sent);
        }
    }
}

#[tokio::test(start_paused = true)]
async fn an_answer_to_a_request_sent_while_the_link_waits_for_the_tick_is_read_at_once() {
    let mut link = link(true);
    link.worker.write_all(&damage(1)).expect("write");
    let (start, _) = link.damage.recv().await.expect("damage");
    // The reader now waits for the tick; the pane task asks something and its worker answers.
    let request = SupervisorToWorker::Request { id: 9, body: WorkerRequest::SetFocused(true) };
    link.writer.set_background(false);
    link.writer.send(&request, None).await.expect("send");
    let mut worker = link.worker.try_clone().expect("clone");
    let answering = std::thread::spawn(move || {
        let mut decoder = FrameDecoder::new();
        let mut buf = [0u8; 4096];
        loop {
            if let Some(SupervisorToWorker::Request { id, .. }) = decoder.next_frame().expect("decode") {
                let answer = WorkerToSupervisor::Response { id, body: WorkerResponse::Ok };
                worker.write_all(&encode_frame(&answer).expect("encode")).expect("answer");
                return;
            }
            let n = worker.read(&mut buf).expect("read the request");
            assert_ne!(n, 0, "link closed");
            decoder.push(&buf[..n]);
        }
    });
    match link.frames.recv().await {
        Some(Incoming::Frame(frame, _)) => {
            assert!(matches!(*frame, WorkerToSupervisor::Response { id: 9, .. }), "{frame:?}")
        }
        other => panic!("expected the answer, got {other:?}"),
    }
    assert_eq!(Instant::now(), start, "the answer was read as it came, not at the tick");
    answering.join().expect("the worker answered");
}

#[tokio::test(start_paused = true)]
async fn a_worker_that_closes_its_link_while_the_reader_waits_for_the_tick_is_seen_gone() {
    for hang_up in [false, true] {
        let mut link = link(true);
        link.worker.write_all(&damage(1)).expect("write");
        let (start, _) = link.damage.recv().await.expect("damage");
        if hang_up {
            // A handoff's release closes the link from our side: the reader hears it at once.
            link.writer.hang_up();
        } else {
            drop(link.worker);
        }
        assert!(matches!(link.frames.recv().await, Some(Incoming::Closed)));
        if hang_up {
            assert_eq!(Instant::now(), start, "a hang-up is not held for the tick");
        } else {
            assert!(Instant::now() - start <= LATEST);
        }
    }
}

#[tokio::test(start_paused = true)]
async fn waiting_links_share_one_tick_even_when_the_one_holding_its_timer_is_called_back() {
    let mut links = vec![link(true), link(true), link(true)];
    for link in &mut links {
        link.worker.write_all(&damage(1)).expect("write");
        link.damage.recv().await.expect("first damage");
    }
    // The first link holds the tick's timer; it is called back by a send and lets go of it.
    let start = Instant::now();
    for link in &mut links {
        link.worker.write_all(&damage(2)).expect("write");
    }
    links[0].writer.hang_up();
    let mut at = Vec::new();
    for link in &mut links[1..] {
        let seen = tokio::time::timeout(Duration::from_secs(5), link.damage.recv()).await;
        at.push(seen.expect("the others still tick").expect("damage").0);
    }
    assert_eq!(at[0], at[1], "read in the same wake-up");
    assert!(at[0] > start && at[0] - start <= LATEST, "at the tick: {:?}", at[0] - start);
}
