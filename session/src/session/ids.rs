//! Public ids (reference §4): workspace `w<N>`, tab `<ws>:t<N>`, pane `<ws>:p<N>`, with `N` in
//! upstream's bijective base-32 (`1`..`9`, `A`..`Z` without I L O U, then `0` for 32; `11` is 33).
//! Numbers are handed out by monotonic counters and never reused within a session. The number
//! codec and the workspace id forms are the protocol's (`herdr_protocol::api` ids).

pub use herdr_protocol::api::{decimal, decode_number, encode_number};

pub fn workspace_id(number: u64) -> String {
    format!("w{}", encode_number(number))
}

pub fn tab_id(workspace_id: &str, number: u64) -> String {
    format!("{workspace_id}:t{}", encode_number(number))
}

pub fn pane_id(workspace_id: &str, number: u64) -> String {
    format!("{workspace_id}:p{}", encode_number(number))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_encode_like_upstream() {
        assert_eq!(encode_number(1), "1");
        assert_eq!(encode_number(9), "9");
        assert_eq!(encode_number(10), "A");
        assert_eq!(encode_number(18), "J");
        assert_eq!(encode_number(31), "Z");
        assert_eq!(encode_number(32), "0");
        assert_eq!(encode_number(33), "11");
        assert_eq!(encode_number(64), "10");
        assert_eq!(encode_number(65), "21");
        assert_eq!(workspace_id(12), "wC");
        assert_eq!(pane_id("wC", 10), "wC:pA");
        assert_eq!(tab_id("wE", 1), "wE:t1");
    }

    #[test]
    fn decoding_inverts_encoding() {
        for n in 1..5000 {
            assert_eq!(decode_number(&encode_number(n)), Some(n), "{n}");
        }
        assert_eq!(decode_number("a"), Some(10));
        assert_eq!(decode_number(""), None);
        assert_eq!(decode_number("I"), None);
        assert_eq!(decode_number("ZZZZZZZZZZZZZZZZZZZZ"), None);
    }

    #[test]
    fn decimal_accepts_only_digits() {
        assert_eq!(decimal("12"), Some(12));
        assert_eq!(decimal("1a"), None);
        assert_eq!(decimal(""), None);
        assert_eq!(decimal("+1"), None);
    }
}
