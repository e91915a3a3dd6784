use std::path::Path;
use std::process::Command;

use super::*;

/// Runs the test's own `git` inside `own_child`, as the runner does: the runner's calls on other
/// test threads reap every exited child when they finish, and would take this one's status.
fn git(dir: &Path, args: &[&str]) -> String {
    let mut command = Command::new("git");
    command.arg("-C").arg(dir).args(args).env("LC_ALL", "C");
    let out = herdr_host::reaper::own_child(|| command.output()).expect("run git");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A repository `repo` with one commit on `main`, in a fresh temp dir.
fn repo() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let repo = tmp.path().join("repo");
    std::fs::create_dir(&repo).expect("mkdir");
    git(&repo, &["init", "--quiet", "--initial-branch=main"]);
    git(&repo, &["config", "user.email", "test@example.invalid"]);
    git(&repo, &["config", "user.name", "herdr test"]);
    std::fs::write(repo.join("README"), "hello\n").expect("write");
    git(&repo, &["add", "README"]);
    git(&repo, &["commit", "--quiet", "-m", "first"]);
    let repo = repo.canonicalize().expect("canonical");
    (tmp, repo)
}

#[test]
fn parses_every_kind_of_porcelain_record() {
    let text = "worktree /r/main\nHEAD 1111\nbranch refs/heads/main\n\n\
                worktree /r/feature\nHEAD 2222\nbranch refs/heads/feat/x\nlocked\n\n\
                worktree /r/gone\nHEAD 3333\ndetached\nprunable gitdir file points to non-existent location\n\n\
                worktree /r/bare.git\nbare\n";
    let list = parse_porcelain(text);
    assert_eq!(list.len(), 4);
    assert_eq!((list[0].path.as_path(), list[0].branch.as_deref()), (Path::new("/r/main"), Some("main")));
    assert_eq!(list[1].branch.as_deref(), Some("feat/x"));
    assert!(list[2].is_detached && list[2].is_prunable && list[2].branch.is_none());
    assert!(list[3].is_bare);
}

#[test]
fn slugs_paths_and_generated_branches() {
    assert_eq!(path_slug("feat/Login Page"), "feat-login-page");
    assert_eq!(path_slug("--//--"), "worktree");
    assert_eq!(
        default_path(Path::new("/w"), "herdr", "worktree/brave-river"),
        PathBuf::from("/w/herdr/worktree-brave-river")
    );
    assert_eq!(generated_branch(0), "worktree/brave-river-0000");
    assert_eq!(generated_branch(9), "worktree/calm-cloud-0009");
    assert_eq!(
        expand_tilde("~/.herdr/worktrees", Some(Path::new("/home/u"))),
        PathBuf::from("/home/u/.herdr/worktrees")
    );
    assert_eq!(expand_tilde("~", Some(Path::new("/home/u"))), PathBuf::from("/home/u"));
    assert_eq!(expand_tilde("~other/x", Some(Path::new("/home/u"))), PathBuf::from("~other/x"));
}

#[test]
fn a_path_outside_any_repository_is_not_a_git_worktree() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let err = Git::default().space(tmp.path()).expect_err("not a repo");
    assert!(matches!(err, GitError::NotRepository(_)), "{err:?}");
}

#[test]
fn adds_lists_and_removes_checkouts_and_keeps_the_branch() {
    let (tmp, repo) = repo();
    let git_ = Git::default();
    let space = git_.space(&repo.join(".")).expect("space");
    assert_eq!((space.repo_name.as_str(), space.is_linked_worktree), ("repo", false));
    assert_eq!(space.repo_root, repo);

    // A new branch from HEAD, then an existing one checked out as it is.
    let new_path = tmp.path().join("wt/new");
    assert!(git_.add(&repo, &new_path, "feature/new", None).expect("add new"));
    git(&repo, &["branch", "existing"]);
    let existing_path = tmp.path().join("wt/existing");
    assert!(!git_.add(&repo, &existing_path, "existing", Some("main")).expect("add existing"));
    assert_eq!(git(&existing_path, &["branch", "--show-current"]), "existing");

    let list = git_.list(&repo).expect("list");
    let branches: Vec<_> = list.iter().map(|c| c.branch.clone().unwrap_or_default()).collect();
    // The main work tree first, then git's order (by path: wt/existing before wt/new).
    assert_eq!(branches, ["main", "existing", "feature/new"]);

    // Seen from inside a linked checkout: the same repository, a linked worktree.
    let linked = git_.space(&new_path).expect("linked space");
    assert!(linked.is_linked_worktree);
    assert_eq!(
        (linked.repo_key.as_str(), linked.repo_root.as_path()),
        (space.repo_key.as_str(), repo.as_path())
    );

    // Changes need force; the branch survives the removal.
    std::fs::write(new_path.join("scratch"), "wip\n").expect("write");
    let err = git_.remove(&repo, &new_path, false).expect_err("dirty");
    assert!(matches!(err, GitError::Dirty(_)), "{err:?}");
    git_.remove(&repo, &new_path, true).expect("forced remove");
    assert!(!new_path.exists());
    assert!(git_.local_branch_exists(&repo, "feature/new").expect("branch check"));
    git_.remove(&repo, &existing_path, false).expect("clean remove");

    // The main work tree and strangers are refused.
    assert!(matches!(git_.remove(&repo, &repo, true), Err(GitError::NotLinked(_))));
    assert!(matches!(git_.remove(&repo, tmp.path(), true), Err(GitError::NotAWorktree(_))));
}

#[test]
fn a_branch_already_checked_out_elsewhere_is_refused_with_gits_reason() {
    let (tmp, repo) = repo();
    let err =
        Git::default().add(&repo, &tmp.path().join("again"), "main", None).expect_err("main is checked out");
    match err {
        GitError::Refused(message) => assert!(message.contains("main"), "{message}"),
        other => panic!("{other:?}"),
    }
}
