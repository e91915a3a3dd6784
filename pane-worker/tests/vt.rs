//! Recorded terminal output → expected screen text, one case per file set in `tests/vt/`:
//! `<case>.in` (raw bytes), `<case>.expected` (the `visible` read), optionally
//! `<case>.recent.expected` (the `recent_unwrapped` read) and `<case>.size` (`cols rows`, default
//! 40x10). Adding a case adds files, not code. Each input is also fed one byte at a time, so
//! escape sequences and UTF-8 split across PTY reads must render the same.

use std::{fs, path::Path};

use herdr_pane_worker::engine::Engine;
use herdr_protocol::ipc::{ReadFormat, ReadSource, ReadSpec};

fn read(engine: &Engine, source: ReadSource) -> String {
    engine.read(&ReadSpec { source, lines: None, format: ReadFormat::Text }).expect("read").text
}

fn size_of(case: &Path) -> (u16, u16) {
    let Ok(text) = fs::read_to_string(case.with_extension("size")) else { return (40, 10) };
    let mut parts = text.split_whitespace().map(|n| n.parse::<u16>().expect("size numbers"));
    (parts.next().expect("cols"), parts.next().expect("rows"))
}

fn expected(path: &Path) -> Option<String> {
    fs::read_to_string(path).ok().map(|s| s.strip_suffix('\n').map(str::to_string).unwrap_or(s))
}

#[test]
fn recorded_cases_render_as_expected() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vt");
    let mut cases: Vec<_> = fs::read_dir(&dir)
        .expect("tests/vt")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "in"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 10, "the case files are missing");
    let mut failures = Vec::new();
    for case in &cases {
        let name = case.file_stem().and_then(|s| s.to_str()).expect("case name").to_string();
        let input = fs::read(case).expect("input");
        let (cols, rows) = size_of(case);
        let visible = expected(&case.with_extension("expected")).expect("every case has .expected");
        let recent = expected(&dir.join(format!("{name}.recent.expected")));

        for split in [false, true] {
            let mut engine = Engine::new(cols, rows).expect("terminal");
            if split {
                input.iter().for_each(|b| engine.feed(std::slice::from_ref(b)));
            } else {
                engine.feed(&input);
            }
            let how = if split { "byte by byte" } else { "in one chunk" };
            let got = read(&engine, ReadSource::Visible);
            if got != visible {
                failures.push(format!("{name} ({how}) visible:\n  want {visible:?}\n  got  {got:?}"));
            }
            if let Some(want) = &recent {
                let got = read(&engine, ReadSource::RecentUnwrapped);
                if &got != want {
                    failures
                        .push(format!("{name} ({how}) recent_unwrapped:\n  want {want:?}\n  got  {got:?}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} failing case(s):\n{}", failures.len(), failures.join("\n"));
}
