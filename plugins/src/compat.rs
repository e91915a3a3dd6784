//! Where a plugin may run: platform matching (item-level `platforms` override the plugin's) and
//! the `min_herdr_version` check.
//!
//! Our own `HERDR_VERSION` (0.1.0) is not upstream's numbering, while real plugins ask for
//! 0.7–0.9. This build speaks protocol 22, which is upstream 0.9.x, so the check compares a
//! plugin's minimum against [`COMPATIBLE_UPSTREAM`] = 0.9 with any patch level.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The upstream herdr release line this build is wire-compatible with (protocol 22).
pub const COMPATIBLE_UPSTREAM: (u64, u64) = (0, 9);

/// `PluginPlatform`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Platform {
    Linux,
    Macos,
    Windows,
}

impl Platform {
    /// The platform this build runs on (`None` on one upstream does not name).
    pub fn current() -> Option<Platform> {
        if cfg!(target_os = "linux") {
            Some(Platform::Linux)
        } else if cfg!(target_os = "macos") {
            Some(Platform::Macos)
        } else if cfg!(target_os = "windows") {
            Some(Platform::Windows)
        } else {
            None
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Platform::Linux => "linux",
            Platform::Macos => "macos",
            Platform::Windows => "windows",
        }
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An item's platforms when it names some, else the plugin's.
pub fn effective<'a>(
    item: &'a Option<Vec<Platform>>,
    plugin: &'a Option<Vec<Platform>>,
) -> &'a Option<Vec<Platform>> {
    if item.is_some() { item } else { plugin }
}

/// Whether `platforms` lets this build run the item (no list = everywhere).
pub fn supported(platforms: &Option<Vec<Platform>>) -> bool {
    match (platforms, Platform::current()) {
        (None, _) => true,
        (Some(list), Some(current)) => list.contains(&current),
        (Some(_), None) => false,
    }
}

/// A `MAJOR.MINOR.PATCH` version (a `-pre`/`+build` suffix and missing parts are tolerated).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
}

impl Version {
    /// Parses `0.7.3`, `0.9`, `v1.2.3-beta`; `None` for anything else.
    pub fn parse(raw: &str) -> Option<Version> {
        let raw = raw.trim();
        let raw = raw.strip_prefix('v').unwrap_or(raw);
        let core = raw.split(['-', '+']).next()?;
        let mut parts = core.split('.');
        let mut next = |required: bool| match parts.next() {
            Some(p) => p.parse::<u64>().ok(),
            None if required => None,
            None => Some(0),
        };
        let version = Version { major: next(true)?, minor: next(false)?, patch: next(false)? };
        parts.next().is_none().then_some(version)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// Whether this build satisfies a plugin's `min_herdr_version` (see the module doc).
pub fn satisfies_min_version(min: &Version) -> bool {
    (min.major, min.minor) <= COMPATIBLE_UPSTREAM
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_and_compare_against_the_compatible_line() {
        let v = |s| Version::parse(s).expect(s);
        assert_eq!(v("0.7.3"), Version { major: 0, minor: 7, patch: 3 });
        assert_eq!(v("v0.9"), Version { major: 0, minor: 9, patch: 0 });
        assert_eq!(v("1.0.0-beta.1"), Version { major: 1, minor: 0, patch: 0 });
        assert_eq!(Version::parse("x.y"), None);
        assert_eq!(Version::parse("1.2.3.4"), None);
        assert_eq!(Version::parse(""), None);
        assert!(satisfies_min_version(&v("0.6.10")));
        assert!(satisfies_min_version(&v("0.9.99")));
        assert!(!satisfies_min_version(&v("0.10.0")));
        assert!(!satisfies_min_version(&v("1.0.0")));
    }

    #[test]
    fn item_platforms_override_the_plugins() {
        let plugin = Some(vec![Platform::Windows]);
        let item = Some(vec![Platform::current().unwrap_or(Platform::Linux)]);
        assert!(!supported(effective(&None, &plugin)));
        assert!(supported(effective(&item, &plugin)));
        assert!(supported(&None));
    }
}
