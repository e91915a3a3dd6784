use std::path::{Path, PathBuf};

use super::*;

fn parse(raw: &str) -> Result<InstallSource, SourceError> {
    InstallSource::parse(raw, Some(Path::new("/work/here")), Some(Path::new("/home/u")))
}

#[test]
fn shorthand_is_github_with_optional_subdir() {
    assert_eq!(
        parse("ogulcancelik/herdr-plugin-examples"),
        Ok(InstallSource::Github {
            owner: "ogulcancelik".into(),
            repo: "herdr-plugin-examples".into(),
            subdir: None
        })
    );
    let nested = parse("o/r/a/b").expect("parses");
    assert_eq!(
        nested,
        InstallSource::Github { owner: "o".into(), repo: "r".into(), subdir: Some("a/b".into()) }
    );
    assert_eq!(nested.clone_url().as_deref(), Some("https://github.com/o/r.git"));
    assert_eq!(nested.manifest_root(Path::new("/tmp/c")), PathBuf::from("/tmp/c/a/b"));
    assert_eq!(nested.display(), "o/r/a/b");
}

#[test]
fn bad_shorthand_is_refused_with_the_reason() {
    assert_eq!(parse("owner"), Err(SourceError::Shape));
    assert_eq!(parse("/").map(|s| s.is_git()), Ok(false), "a lone slash is the root directory");
    assert_eq!(parse("o//x"), Err(SourceError::EmptySegment { label: "repo" }));
    assert_eq!(parse("o/r/../x"), Err(SourceError::InvalidSubdir("..".into())));
    assert_eq!(parse("o/r//x"), Err(SourceError::InvalidSubdir(String::new())));
    assert_eq!(parse("o/r$/x"), Err(SourceError::InvalidCharacters { label: "repo", value: "r$".into() }));
    assert_eq!(parse("../o"), Ok(InstallSource::Local { path: "/work/here/../o".into() }));
    assert_eq!(parse("a:b/c"), Err(SourceError::Shape));
    assert_eq!(parse(""), Err(SourceError::Shape));
}

#[test]
fn urls_are_git_sources_cloned_as_given() {
    for url in ["https://example.org/a/b.git", "file:///srv/repo", "ssh://host/x", "git@host:me/p.git"] {
        let source = parse(url).expect("parses");
        assert_eq!(source, InstallSource::Git { url: url.into() });
        assert_eq!(source.clone_url().as_deref(), Some(url));
        assert!(source.is_git());
        assert_eq!(source.manifest_root(Path::new("/c")), PathBuf::from("/c"));
    }
}

#[test]
fn paths_are_local_copies_made_absolute() {
    assert_eq!(parse("/abs/p"), Ok(InstallSource::Local { path: "/abs/p".into() }));
    assert_eq!(parse("./p"), Ok(InstallSource::Local { path: "/work/here/./p".into() }));
    assert_eq!(parse("."), Ok(InstallSource::Local { path: "/work/here/.".into() }));
    assert_eq!(parse("~/p"), Ok(InstallSource::Local { path: "/home/u/p".into() }));
    assert_eq!(parse("~"), Ok(InstallSource::Local { path: "/home/u".into() }));
    assert_eq!(
        InstallSource::parse("./p", None, None),
        Err(SourceError::NotAbsolute("./p".into())),
        "no cwd to join"
    );
    let local = parse("/abs/p").expect("parses");
    assert!(!local.is_git());
    assert_eq!(local.clone_url(), None);
}

#[test]
fn managed_paths_are_per_kind_and_recognised() {
    let config = Path::new("/cfg/herdr");
    let git = parse("o/r").expect("parses");
    let local = parse("/x").expect("parses");
    let cloned = managed_path(config, &git, "example.Tool:x");
    assert_eq!(cloned, PathBuf::from("/cfg/herdr/plugins/github/example.%54ool%3Ax"));
    assert_eq!(managed_path(config, &local, "a.b"), PathBuf::from("/cfg/herdr/plugins/local/a.b"));
    assert!(is_managed_path(config, "example.Tool:x", &cloned));
    assert!(is_managed_path(config, "a.b", Path::new("/cfg/herdr/plugins/local/a.b")));
    assert!(!is_managed_path(config, "a.b", Path::new("/home/u/dev/a.b")), "a linked dev directory");
    assert!(!is_managed_path(config, "a.b", Path::new("/cfg/herdr/plugins/local/c")), "another plugin's");
    assert!(!is_managed_path(config, "a.b", Path::new("/cfg/herdr/plugins/local/a.b/..")));
    assert_eq!(temp_dir(config, 7, 9), PathBuf::from("/cfg/herdr/plugins/.tmp-install-7-9"));
}

#[test]
fn path_components_do_not_collide() {
    assert_eq!(path_component("examples.agent-telegram-notify"), "examples.agent-telegram-notify");
    assert_ne!(path_component("example:a"), path_component("example-a"));
    assert_ne!(path_component("Example"), path_component("example"));
    assert_eq!(path_component("x."), "x%2E");
    assert_eq!(path_component(""), "%plugin");
}
