//! Working-directory reports (OSC 7 `file://host/path`, kitty's `kitty-shell-cwd://host/path`,
//! or a bare path from OSC 9;9) turned into the local path the supervisor shows as a pane's cwd.
//! Pure.

/// The path a cwd report names, percent-decoded; `None` when it names none.
pub fn path_from_report(report: &str) -> Option<String> {
    let path = match report.split_once("://") {
        // Skip the host: the pane's program is the authority on where it is.
        Some((_scheme, rest)) => &rest[rest.find('/')?..],
        None => report,
    };
    if !path.starts_with('/') {
        return None;
    }
    Some(percent_decode(path))
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(hi), Some(lo)) =
                (bytes.get(i + 1).copied().and_then(hex), bytes.get(i + 2).copied().and_then(hex))
        {
            // Two hex digits always fit a byte.
            out.push(u8::try_from(hi * 16 + lo).unwrap_or(b'?'));
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_become_paths() {
        assert_eq!(path_from_report("file://host/tmp/x").as_deref(), Some("/tmp/x"));
        assert_eq!(path_from_report("file:///home/me/my%20dir").as_deref(), Some("/home/me/my dir"));
        assert_eq!(path_from_report("kitty-shell-cwd://box/srv/%E2%9C%93").as_deref(), Some("/srv/✓"));
        assert_eq!(path_from_report("/plain/path").as_deref(), Some("/plain/path"));
        assert_eq!(path_from_report("file://host").as_deref(), None);
        assert_eq!(path_from_report("relative").as_deref(), None);
        assert_eq!(path_from_report("file://h/a%2").as_deref(), Some("/a%2"));
    }
}
