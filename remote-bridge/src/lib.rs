//! `herdr --remote <ssh-target>`: opens an ssh session, runs the bridge on the far host and relays
//! the client protocol over the channel.
//!
//! Not built yet: remote sessions arrive in a later piece of work. Nothing here pretends to work.
