//! The public ids a request names: [`WorkspaceId`], [`TabId`], [`PaneId`]. On the wire each is a
//! plain string; the newtypes keep a pane id from being passed where a tab id is meant.
//!
//! Clients may send any of the id forms of reference §4 (canonical `w3`, `w3:t2`, `w3:p5`, and
//! the aliases `w_<n>`, `<n>`, `t_<ws>_<n>`, `<ws>:<n>`, `p_<ws>_<raw>`, `p_<raw>`, `<ws>-<n>`).
//! Which pane or tab an id names depends on the session (positions, moved panes), so the
//! newtypes only keep the text; the session resolves it.

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
