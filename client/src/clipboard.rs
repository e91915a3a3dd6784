//! Copying to the system clipboard for the supervisor ([`ServerToClient::Clipboard`]): OSC 52
//! written to the client's own terminal, which is where the user's clipboard lives (also over
//! ssh). Inside tmux the sequence is written plainly: tmux takes OSC 52 itself when its
//! `set-clipboard` option allows, and forwards it to the outer terminal.
//!
//! [`ServerToClient::Clipboard`]: herdr_protocol::client::ServerToClient::Clipboard

/// The OSC 52 bytes that put `text` on the clipboard (`c` selection).
pub(crate) fn osc52(text: &str) -> Vec<u8> {
    let mut out = b"\x1b]52;c;".to_vec();
    out.extend_from_slice(base64(text.as_bytes()).as_bytes());
    out.push(0x07);
    out
}

/// Standard base64 with padding (RFC 4648 §4).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
        ];
        for (plain, encoded) in cases {
            assert_eq!(base64(plain.as_bytes()), encoded, "{plain:?}");
        }
        assert_eq!(base64("foobar".as_bytes()), "Zm9vYmFy");
    }

    #[test]
    fn osc52_wraps_the_encoded_text() {
        assert_eq!(osc52("hi ü"), b"\x1b]52;c;aGkgw7w=\x07");
    }
}
