//! A lossy, slow network link built in userspace at the packet level, for the remote suites
//! (this kernel has no `netem`). Two network namespaces made for the test, a client side and a
//! server side, each get a point-to-point TUN device (`hl0`: [`CLIENT_ADDR`] ↔ [`SERVER_ADDR`]);
//! relay threads read every IP packet one TUN device hands up, drop a share of them (a seeded
//! generator, each direction its own stream) and write the rest into the other device after the
//! one-way delay. Because whole packets vanish, the TCP stacks on both sides really retransmit,
//! which a delaying byte relay ([`crate::sshd::LinkRelay`]) cannot show.
//!
//! Programs reach the link by running in a namespace: [`LossyLink::exec`] is the `ip netns exec`
//! prefix for a command line, [`in_namespace`] runs a closure on a thread that joined one (for a
//! readiness probe). Nothing here ever leaves the two namespaces: the addresses exist only there.
//!
//! Cleanup: dropping the link stops the relay, closes the TUN devices (they are not persistent,
//! so closing removes them) and deletes both namespaces, on a panic too. Names are unique per
//! process and link (`herdr-ll-<pid>-<n>-c|s`); namespaces left by a process that was killed
//! before its drop ran are deleted by the next link made.

use std::fs::File;
use std::io::{Read, Write};
use std::net::Ipv4Addr;
use std::os::fd::{AsFd, AsRawFd};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use nix::poll::{PollFd, PollFlags, PollTimeout, poll};

/// The client namespace's end of the link.
pub const CLIENT_ADDR: Ipv4Addr = Ipv4Addr::new(10, 250, 0, 1);
/// The server namespace's end of the link.
pub const SERVER_ADDR: Ipv4Addr = Ipv4Addr::new(10, 250, 0, 2);

const PREFIX: &str = "herdr-ll-";
const DEVICE: &str = "hl0";
const NETNS_DIR: &str = "/run/netns";
/// How often the relay threads look at the stop flag while no packet comes.
const STOP_CHECK: Duration = Duration::from_millis(100);

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// What the link does to each packet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shape {
    /// Added to every packet, each direction (half the round trip).
    pub one_way: Duration,
    /// The share of packets dropped, each direction (0.02 is 2 %).
    pub loss: f64,
    /// Seeds the drop decisions, so a run's pattern of losses can be had again.
    pub seed: u64,
}

/// Which namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Client,
    Server,
}

/// Packets seen by the relay, per direction.
#[derive(Debug, Default)]
pub struct Counters {
    pub forwarded: [AtomicU64; 2],
    pub dropped: [AtomicU64; 2],
}

/// The link: two namespaces, their TUN devices and the relay between them.
#[derive(Debug)]
pub struct LossyLink {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    counters: Arc<Counters>,
    // Dropped after the relay threads (and with them the TUN devices) are gone.
    client: Namespace,
    server: Namespace,
}

impl LossyLink {
    /// Makes the namespaces and devices and starts relaying with `shape`.
    pub fn start(shape: Shape) -> LossyLink {
        remove_stale();
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let base = format!("{PREFIX}{}-{n}", std::process::id());
        let client = Namespace::create(format!("{base}-c"));
        let server = Namespace::create(format!("{base}-s"));
        let client_tun = client.tun(CLIENT_ADDR, SERVER_ADDR);
        let server_tun = server.tun(SERVER_ADDR, CLIENT_ADDR);
        let stop = Arc::new(AtomicBool::new(false));
        let counters = Arc::new(Counters::default());
        let mut threads = Vec::new();
        for (direction, (from, to)) in
            [(client_tun.clone(), server_tun.clone()), (server_tun, client_tun)].into_iter().enumerate()
        {
            let seed = shape.seed ^ (direction as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let (send, receive) = mpsc::channel::<(Instant, Vec<u8>)>();
            let (stop, counters) = (stop.clone(), counters.clone());
            threads.push(thread::spawn(move || {
                read_side(
                    &from,
                    shape,
                    Dice::new(seed),
                    &send,
                    &stop,
                    &counters.forwarded[direction],
                    &counters.dropped[direction],
                );
            }));
            threads.push(thread::spawn(move || write_side(&to, &receive)));
        }
        LossyLink { stop, threads, counters, client, server }
    }

    /// The namespace's name (for `ip netns exec`, `ip -n`).
    pub fn namespace(&self, side: Side) -> &str {
        match side {
            Side::Client => &self.client.name,
            Side::Server => &self.server.name,
        }
    }

    /// `ip netns exec <namespace>`: put before a command line to run it on that side.
    pub fn exec(&self, side: Side) -> String {
        format!("ip netns exec {}", self.namespace(side))
    }

    /// A command running `program` in the namespace of `side`.
    pub fn command(&self, side: Side, program: &str) -> Command {
        let mut command = Command::new("ip");
        command.args(["netns", "exec", self.namespace(side), program]);
        command
    }

    /// (forwarded, dropped) packets so far, both directions together.
    pub fn packets(&self) -> (u64, u64) {
        let sum = |pair: &[AtomicU64; 2]| pair.iter().map(|c| c.load(Ordering::Relaxed)).sum();
        (sum(&self.counters.forwarded), sum(&self.counters.dropped))
    }
}

impl Drop for LossyLink {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// Runs `f` on a thread that joined the network namespace `name` (only that thread moves).
pub fn in_namespace<T: Send>(name: &str, f: impl FnOnce() -> T + Send) -> T {
    thread::scope(|scope| {
        scope
            .spawn(|| {
                enter(name);
                f()
            })
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// Moves the calling thread into the network namespace `name`.
fn enter(name: &str) {
    let handle = File::open(format!("{NETNS_DIR}/{name}"))
        .unwrap_or_else(|e| panic!("open the namespace {name}: {e}"));
    // SAFETY: `handle` is an open namespace file for the duration of the call; setns changes
    // only the calling thread's network namespace.
    let rc = unsafe { libc::setns(handle.as_raw_fd(), libc::CLONE_NEWNET) };
    assert_eq!(rc, 0, "setns into {name}: {}", std::io::Error::last_os_error());
}

/// A network namespace, deleted on drop.
#[derive(Debug)]
struct Namespace {
    name: String,
}

impl Namespace {
    fn create(name: String) -> Namespace {
        ip(&["netns", "add", &name]);
        let namespace = Namespace { name };
        ip(&["-n", &namespace.name, "link", "set", "lo", "up"]);
        namespace
    }

    /// Opens `hl0` in this namespace, addressed `local` with `peer` on the other end, and up.
    fn tun(&self, local: Ipv4Addr, peer: Ipv4Addr) -> Arc<File> {
        let device = in_namespace(&self.name, open_tun);
        let local = format!("{local}/32");
        let peer = format!("{peer}/32");
        ip(&["-n", &self.name, "addr", "add", &local, "peer", &peer, "dev", DEVICE]);
        ip(&["-n", &self.name, "link", "set", DEVICE, "up"]);
        Arc::new(device)
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        let _ = Command::new("ip").args(["netns", "del", &self.name]).output();
    }
}

/// `struct ifreq` as TUNSETIFF reads it: the name, then the flags in the union.
#[repr(C)]
struct InterfaceRequest {
    name: [u8; libc::IFNAMSIZ],
    flags: libc::c_short,
    _union_rest: [u8; 22],
}

/// A TUN device (IP packets, no packet-info header) in the calling thread's namespace.
fn open_tun() -> File {
    let tun = File::options().read(true).write(true).open("/dev/net/tun").expect("open /dev/net/tun");
    let mut request = InterfaceRequest {
        name: [0; libc::IFNAMSIZ],
        flags: (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short,
        _union_rest: [0; 22],
    };
    request.name[..DEVICE.len()].copy_from_slice(DEVICE.as_bytes());
    // SAFETY: the fd is the open tun control file and `request` is a properly sized ifreq that
    // outlives the call.
    let rc = unsafe { libc::ioctl(tun.as_raw_fd(), libc::TUNSETIFF, &mut request as *mut InterfaceRequest) };
    assert_eq!(rc, 0, "TUNSETIFF {DEVICE}: {}", std::io::Error::last_os_error());
    tun
}

/// One direction's intake: every packet is dropped or stamped with when it may arrive.
fn read_side(
    from: &File,
    shape: Shape,
    mut dice: Dice,
    send: &mpsc::Sender<(Instant, Vec<u8>)>,
    stop: &AtomicBool,
    forwarded: &AtomicU64,
    dropped: &AtomicU64,
) {
    let mut buf = vec![0u8; 65_536];
    let timeout = PollTimeout::try_from(STOP_CHECK).unwrap_or(PollTimeout::MAX);
    while !stop.load(Ordering::Relaxed) {
        let mut fds = [PollFd::new(from.as_fd(), PollFlags::POLLIN)];
        match poll(&mut fds, timeout) {
            Ok(0) | Err(nix::errno::Errno::EINTR) => continue,
            Ok(_) => {}
            Err(_) => return,
        }
        let n = match (&*from).read(&mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        };
        if dice.below(shape.loss) {
            dropped.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        forwarded.fetch_add(1, Ordering::Relaxed);
        if send.send((Instant::now() + shape.one_way, buf[..n].to_vec())).is_err() {
            return;
        }
    }
}

/// One direction's delivery: each packet waits out its own delay, in order.
fn write_side(to: &File, receive: &mpsc::Receiver<(Instant, Vec<u8>)>) {
    for (due, packet) in receive {
        // The link's latency is what this relay is for.
        thread::sleep(due.saturating_duration_since(Instant::now()));
        // A packet the kernel refuses (the device going away at the end) is a lost packet.
        let _ = (&*to).write(&packet);
    }
}

/// splitmix64: a small seeded generator, so no dependency is needed for a coin with bias.
#[derive(Debug)]
struct Dice(u64);

impl Dice {
    fn new(seed: u64) -> Dice {
        Dice(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// True with probability `share`.
    fn below(&mut self, share: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < share
    }
}

fn ip(args: &[&str]) {
    let output = Command::new("ip").args(args).output().expect("run ip (iproute2)");
    assert!(output.status.success(), "ip {}: {}", args.join(" "), String::from_utf8_lossy(&output.stderr));
}

/// Deletes the namespaces of links whose process is gone (killed before its drop ran).
fn remove_stale() {
    let Ok(entries) = std::fs::read_dir(NETNS_DIR) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix(PREFIX).and_then(|rest| rest.split('-').next()) else { continue };
        if pid.parse::<u32>().is_ok() && !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            let _ = Command::new("ip").args(["netns", "del", &name]).output();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dice_drop_about_the_share_asked_for_and_repeat_with_the_seed() {
        let mut dice = Dice::new(11);
        let drops = (0..100_000).filter(|_| dice.below(0.02)).count();
        assert!((1_700..2_300).contains(&drops), "{drops} of 100000");
        let (mut a, mut b) = (Dice::new(5), Dice::new(5));
        assert!((0..1000).all(|_| a.next() == b.next()));
    }
}
