//! The herdr terminal client: puts the terminal in raw mode, forwards input to the supervisor over
//! `herdr-client.sock` and writes the frames it is sent.
//!
//! Not built yet: attaching arrives with the terminal UI work. Nothing here pretends to work.
