//! The public ids a request names: [`WorkspaceId`], [`TabId`], [`PaneId`]. On the wire each is a
//! plain string; the newtypes keep a pane id from being passed where a tab id is meant.
//!
//! Clients may send any of the id forms of reference §4 (canonical `w3`, `w3:t2`, `w3:p5`, and
//! the aliases `w_<n>`, `<n>`, `t_<ws>_<n>`, `<ws>:<n>`, `p_<ws>_<raw>`, `p_<raw>`, `<ws>-<n>`).
//! Numbers in canonical ids are upstream's bijective base-32 ([`encode_number`]). What a
//! workspace id says is pure syntax ([`WorkspaceRef`]); which workspace that is, and what tab
//! and pane ids name (positions, old ids kept after a move), the session decides.

use std::fmt;

use serde::{Deserialize, Serialize};

macro_rules! id_newtype {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            pub fn new(id: impl Into<String>) -> Self {
                Self(id.into())
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }

            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<&str> for $name {
            fn from(id: &str) -> Self {
                Self(id.to_owned())
            }
        }

        impl From<String> for $name {
            fn from(id: String) -> Self {
                Self(id)
            }
        }

        /// The id's text: resolvers take `&str`, since ids also come from the TUI and persistence.
        impl std::ops::Deref for $name {
            type Target = str;

            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
    };
}

id_newtype!(
    /// A workspace as a client names it (`w3`, `w_3`, or a 1-based position `2`).
    WorkspaceId
);
id_newtype!(
    /// A tab as a client names it (`w3:t2`, `t_3_2`, or `w3:2` by position).
    TabId
);
id_newtype!(
    /// A pane as a client names it (`w3:p5`, `p_3_17`, `p_17`, `w3-5`, or an id it had before a
    /// move).
    PaneId
);

/// Upstream's bijective base-32 digits: `1`..`9`, `A`..`Z` without I L O U, then `0` for 32.
const ALPHABET: &[u8; 32] = b"123456789ABCDEFGHJKMNPQRSTVWXYZ0";

/// `n >= 1` in bijective base-32 (`33` is `11`). `0` has no encoding and yields an empty string.
pub fn encode_number(mut n: u64) -> String {
    let mut digits = String::new();
    while n > 0 {
        n -= 1;
        digits.insert(0, char::from(ALPHABET[(n % 32) as usize]));
        n /= 32;
    }
    digits
}

/// Inverse of [`encode_number`]; case-insensitive. `None` for empty, foreign or overflowing text.
pub fn decode_number(text: &str) -> Option<u64> {
    if text.is_empty() {
        return None;
    }
    let mut n: u64 = 0;
    for c in text.bytes() {
        let upper = c.to_ascii_uppercase();
        let digit = ALPHABET.iter().position(|&a| a == upper)? as u64 + 1;
        n = n.checked_mul(32)?.checked_add(digit)?;
    }
    Some(n)
}

/// A plain decimal number (the legacy alias forms use decimal).
pub fn decimal(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// What a workspace id names, by its form alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkspaceRef {
    /// The workspace's id number: canonical `w<base-32>` or the alias `w_<decimal>`.
    Number(u64),
    /// A 1-based position in the sidebar: a bare decimal `<n>`.
    Position(u64),
}

impl WorkspaceRef {
    /// `None` when `id` is in no workspace form.
    pub fn parse(id: &str) -> Option<WorkspaceRef> {
        if let Some(n) = id.strip_prefix("w_").and_then(decimal) {
            return Some(WorkspaceRef::Number(n));
        }
        if let Some(position) = decimal(id) {
            return Some(WorkspaceRef::Position(position));
        }
        id.strip_prefix('w').and_then(decode_number).map(WorkspaceRef::Number)
    }
}

impl WorkspaceId {
    /// What this id names, by its form ([`WorkspaceRef::parse`]).
    pub fn reference(&self) -> Option<WorkspaceRef> {
        WorkspaceRef::parse(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_use_upstreams_bijective_base_32() {
        assert_eq!(encode_number(9), "9");
        assert_eq!(encode_number(10), "A");
        assert_eq!(encode_number(32), "0");
        assert_eq!(encode_number(33), "11");
        for n in 1..2000 {
            assert_eq!(decode_number(&encode_number(n)), Some(n), "{n}");
        }
        assert_eq!(decode_number("I"), None, "no I, L, O or U");
    }

    #[test]
    fn workspace_forms() {
        assert_eq!(WorkspaceRef::parse("w3"), Some(WorkspaceRef::Number(3)));
        assert_eq!(WorkspaceRef::parse("wA"), Some(WorkspaceRef::Number(10)));
        assert_eq!(WorkspaceRef::parse("w_12"), Some(WorkspaceRef::Number(12)));
        assert_eq!(WorkspaceRef::parse("2"), Some(WorkspaceRef::Position(2)));
        assert_eq!(WorkspaceRef::parse("w_x"), None);
        assert_eq!(WorkspaceRef::parse("x3"), None);
        assert_eq!(WorkspaceId::from("w1").reference(), Some(WorkspaceRef::Number(1)));
    }
}
