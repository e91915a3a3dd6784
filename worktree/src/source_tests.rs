use std::process::Command;

use super::*;

/// Runs the test's own `git` inside `own_child`, as the runner does: the runner's calls on other
/// test threads reap every exited child when they finish, and would take this one's status.
fn git(dir: &Path, args: &[&str]) {
    let mut command = Command::new("git");
    command.arg("-C").arg(dir).args(["-c", "user.email=t@example.invalid", "-c", "user.name=t"]).args(args);
    let out = herdr_host::reaper::own_child(|| command.output()).expect("run git");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// A repository `api` with one commit and a linked checkout `wt`, canonical paths.
fn repo() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let repo = tmp.path().join("api");
    std::fs::create_dir(&repo).expect("mkdir");
    git(&repo, &["init", "--quiet"]);
    std::fs::write(repo.join("README"), "x\n").expect("write");
    git(&repo, &["add", "README"]);
    git(&repo, &["commit", "--quiet", "-m", "first"]);
    let wt = tmp.path().join("wt");
    git(&repo, &["worktree", "add", "--quiet", "-b", "feature", &wt.display().to_string()]);
    (tmp, canonical(&repo), canonical(&wt))
}

fn probe(id: &str, space: Option<WorktreeSpace>, cwd: &Path) -> WorkspaceProbe {
    WorkspaceProbe { workspace_id: id.into(), space, cwds: vec![cwd.display().to_string()] }
}

#[test]
fn a_directory_in_the_main_checkout_is_a_source_and_a_linked_one_is_refused() {
    let (_tmp, repo, wt) = repo();
    let probes = [probe("w1", None, &repo)];
    let source = for_change(&Git::default(), &Origin::Directory(repo.join(".")), &probes).expect("a source");
    assert_eq!((source.repo_root.as_path(), source.checkout.as_path()), (repo.as_path(), repo.as_path()));
    assert_eq!((source.repo_name.as_str(), source.workspace_id.as_deref()), ("api", Some("w1")));
    let refused = for_change(&Git::default(), &Origin::Directory(wt.clone()), &probes).expect_err("linked");
    assert_eq!(refused.code, ErrorCode::LinkedWorktreeSource);
    let outside = for_change(&Git::default(), &Origin::Directory("/".into()), &[]).expect_err("no repo");
    assert_eq!(outside.code, ErrorCode::NotGitWorktree);
}

#[test]
fn listing_from_a_linked_checkout_lists_the_whole_repository() {
    let (_tmp, repo, wt) = repo();
    let probes = [probe("w1", None, &repo), probe("w2", None, &wt)];
    let git = Git::default();
    let source = for_list(&git, &Origin::Workspace(probes[1].clone()), &probes).expect("a source");
    assert_eq!(source.repo_root, repo);
    assert_eq!(source.workspace_id.as_deref(), Some("w1"), "the main checkout's workspace");
    let infos: Vec<WorktreeInfo> =
        git.list(&repo).expect("list").iter().map(|c| source.worktree(c, &probes)).collect();
    let summary: Vec<(bool, Option<&str>, Option<&str>)> = infos
        .iter()
        .map(|i| (i.is_linked_worktree, i.branch.as_deref(), i.open_workspace_id.as_deref()))
        .collect();
    assert_eq!(summary[1], (true, Some("feature"), Some("w2")));
    assert_eq!((summary[0].0, summary[0].2), (false, Some("w1")));
}

#[test]
fn a_membership_decides_before_any_directory() {
    let (_tmp, repo, wt) = repo();
    let space = |checkout: &Path, linked| WorktreeSpace {
        key: "k".into(),
        label: "api".into(),
        repo_root: repo.display().to_string(),
        checkout_path: checkout.display().to_string(),
        is_linked_worktree: linked,
    };
    // w2's directory is the main checkout, but it is a member on the linked one.
    let probes = [probe("w1", Some(space(&repo, false)), &wt), probe("w2", Some(space(&wt, true)), &repo)];
    assert_eq!(open_workspace(&probes, &wt).as_deref(), Some("w2"));
    assert_eq!(parent_workspace(&probes, "k", Path::new("/elsewhere")).as_deref(), Some("w1"));
    let refused =
        for_change(&Git::default(), &Origin::Workspace(probes[1].clone()), &probes).expect_err("linked");
    assert_eq!(refused.code, ErrorCode::LinkedWorktreeSource);
    let source = for_change(&Git::default(), &Origin::Workspace(probes[0].clone()), &probes).expect("source");
    assert_eq!((source.repo_key.as_str(), source.checkout.as_path()), ("k", repo.as_path()));
}
