//! `worktree.*` and `herdr worktree …` on a real repository in the test's temp dir: checkouts
//! made for a new and for an existing branch (the branch is checked out, not recreated), opened
//! again (`already_open`), listed as `git worktree list --porcelain` says, removed clean and, with
//! changes, only with `force` (the branch always kept); the events of each step in order; the
//! memberships surviving a restart; the CLI making relative paths absolute. Every answer and
//! event is schema-checked by the harness.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use herdr_e2e::git::{git, repo};
use herdr_e2e::wire::LineStream;
use herdr_e2e::{PATIENCE, TestServer, cli, server::REQUEST_TIMEOUT};
use serde_json::{Value, json};

/// `git worktree list --porcelain`: path → branch (None when detached).
fn git_checkouts(repo: &Path) -> BTreeMap<String, Option<String>> {
    let mut out = BTreeMap::new();
    let mut path = None;
    for line in git(repo, &["worktree", "list", "--porcelain"]).lines().chain([""]) {
        if let Some(p) = line.strip_prefix("worktree ") {
            path = Some(p.to_owned());
            out.insert(p.to_owned(), None);
        } else if let (Some(b), Some(p)) = (line.strip_prefix("branch refs/heads/"), &path) {
            out.insert(p.clone(), Some(b.to_owned()));
        }
    }
    out
}

fn branches(repo: &Path) -> Vec<String> {
    git(repo, &["branch", "--format=%(refname:short)"]).lines().map(str::to_owned).collect()
}

fn s(value: &Value) -> String {
    value.as_str().unwrap_or_else(|| panic!("expected a string, got {value}")).to_owned()
}

fn subscribe(server: &TestServer) -> LineStream {
    let types = [
        "workspace.created",
        "workspace.updated",
        "workspace.renamed",
        "workspace.closed",
        "tab.created",
        "pane.created",
        "worktree.created",
        "worktree.opened",
        "worktree.removed",
    ];
    let subscriptions: Vec<Value> = types.iter().map(|t| json!({"type": t})).collect();
    let request =
        json!({"id": "wt", "method": "events.subscribe", "params": {"subscriptions": subscriptions}});
    let mut stream = LineStream::open(server.socket(), &request.to_string()).expect("subscribe");
    let ack = stream.next_line(PATIENCE).expect("read the ack").expect("an ack");
    assert_eq!(server.check_line(&ack).expect("valid")["result"]["type"], "subscription_started");
    stream
}

/// Events up to and including the first `last` kind, as `(kind, data)`.
fn events_until(server: &TestServer, stream: &mut LineStream, last: &str) -> Vec<(String, Value)> {
    let mut seen = Vec::new();
    loop {
        let line = stream.next_line(PATIENCE).unwrap_or_else(|e| panic!("no {last} yet ({e}); saw {seen:?}"));
        let line = line.unwrap_or_else(|| panic!("the stream closed before {last}; saw {seen:?}"));
        let event = server.check_line(&line).expect("a valid event");
        let kind = s(&event["event"]);
        seen.push((kind.clone(), event["data"].clone()));
        if kind == last {
            return seen;
        }
    }
}

fn kinds(events: &[(String, Value)]) -> Vec<&str> {
    events.iter().map(|(k, _)| k.as_str()).collect()
}

#[test]
fn checkouts_are_created_opened_listed_and_removed_on_a_real_repository() {
    let server = TestServer::start();
    let repo = repo(&server, "api");
    let trees = server.work_dir("trees").canonicalize().expect("canonical");
    let parent = server.call("workspace.create", json!({"cwd": repo.display().to_string(), "label": "api"}));
    let ws1 = s(&parent["workspace"]["workspace_id"]);
    let mut events = subscribe(&server);

    // A new branch, at a path of our choosing, from the repository's workspace.
    let login = trees.join("login");
    let created = server.call(
        "worktree.create",
        json!({"workspace_id": ws1, "branch": "feat/login", "path": login.display().to_string()}),
    );
    assert_eq!(created["type"], "worktree_created");
    let ws2 = s(&created["workspace"]["workspace_id"]);
    let wt = &created["worktree"];
    assert_eq!((s(&wt["path"]), s(&wt["branch"])), (login.display().to_string(), "feat/login".to_owned()));
    assert_eq!((wt["is_linked_worktree"].clone(), s(&wt["label"])), (json!(true), "api".to_owned()));
    assert_eq!(wt["open_workspace_id"], json!(ws2));
    let membership = &created["workspace"]["worktree"];
    assert_eq!(s(&membership["checkout_path"]), login.display().to_string());
    assert_eq!(s(&membership["repo_root"]), repo.display().to_string());
    assert_eq!(
        (s(&membership["repo_name"]), membership["is_linked_worktree"].clone()),
        ("api".into(), json!(true))
    );
    assert_eq!(
        s(&created["root_pane"]["cwd"]),
        login.display().to_string(),
        "the pane starts in the checkout"
    );
    assert_eq!(git(&login, &["rev-parse", "--abbrev-ref", "HEAD"]), "feat/login");
    let seen = events_until(&server, &mut events, "worktree_created");
    assert_eq!(
        kinds(&seen),
        ["workspace_updated", "workspace_created", "tab_created", "pane_created", "worktree_created"],
        "the parent joins its repository, then the checkout's workspace opens: {seen:?}"
    );
    assert_eq!(seen[0].1["workspace"]["workspace_id"], json!(ws1));
    assert_eq!(seen[0].1["workspace"]["worktree"]["is_linked_worktree"], json!(false));
    assert_eq!(seen[1].1["workspace"]["worktree"]["checkout_path"], membership["checkout_path"]);

    // An existing branch is checked out, not made again; no path: the configured directory.
    git(&repo, &["branch", "existing"]);
    let tip = git(&repo, &["rev-parse", "existing"]);
    let created =
        server.call("worktree.create", json!({"cwd": repo.display().to_string(), "branch": "existing"}));
    let ws3 = s(&created["workspace"]["workspace_id"]);
    let existing = PathBuf::from(s(&created["worktree"]["path"]));
    let home = server.root().join("home").canonicalize().expect("canonical home");
    assert_eq!(existing, home.join(".herdr/worktrees/api/existing"), "upstream's default directory");
    assert_eq!(git(&existing, &["rev-parse", "HEAD"]), tip);
    assert_eq!(git(&existing, &["rev-parse", "--abbrev-ref", "HEAD"]), "existing");
    assert_eq!(
        kinds(&events_until(&server, &mut events, "worktree_created")).first(),
        Some(&"workspace_created")
    );
    assert_eq!(server.call("workspace.list", json!({}))["workspaces"].as_array().map(Vec::len), Some(3));

    // Open: by branch, already open; by path, a checkout herdr did not make.
    let again = server.call("worktree.open", json!({"workspace_id": ws1, "branch": "feat/login"}));
    assert_eq!(
        (again["already_open"].clone(), s(&again["workspace"]["workspace_id"])),
        (json!(true), ws2.clone())
    );
    assert_eq!(kinds(&events_until(&server, &mut events, "worktree_opened")), ["worktree_opened"]);
    let manual = trees.join("manual");
    git(&repo, &["worktree", "add", "--quiet", "-b", "manual", &manual.display().to_string()]);
    let opened = server.call(
        "worktree.open",
        json!({"cwd": repo.display().to_string(), "path": manual.display().to_string(), "label": "by hand"}),
    );
    assert_eq!(opened["already_open"], json!(false));
    assert_eq!(s(&opened["workspace"]["label"]), "by hand");
    let ws4 = s(&opened["workspace"]["workspace_id"]);
    let seen = events_until(&server, &mut events, "worktree_opened");
    assert_eq!(kinds(&seen), ["workspace_created", "tab_created", "pane_created", "worktree_opened"]);
    assert_eq!(seen[3].1["already_open"], json!(false));

    // The list is git's, with the workspace each checkout is open in; from a linked checkout too.
    let listed = server.call("worktree.list", json!({"workspace_id": ws1}));
    assert_eq!(s(&listed["source"]["source_workspace_id"]), ws1);
    assert_eq!(s(&listed["source"]["repo_root"]), repo.display().to_string());
    let on_disk = git_checkouts(&repo);
    let reported: BTreeMap<String, Option<String>> = listed["worktrees"]
        .as_array()
        .expect("worktrees")
        .iter()
        .map(|w| (s(&w["path"]), w["branch"].as_str().map(str::to_owned)))
        .collect();
    assert_eq!(reported, on_disk, "the checkouts are the ones git lists");
    let open_in: BTreeMap<String, String> = listed["worktrees"]
        .as_array()
        .expect("worktrees")
        .iter()
        .map(|w| (s(&w["path"]), w["open_workspace_id"].as_str().unwrap_or("-").to_owned()))
        .collect();
    let expected: BTreeMap<String, String> = [
        (repo.display().to_string(), ws1.clone()),
        (login.display().to_string(), ws2.clone()),
        (existing.display().to_string(), ws3.clone()),
        (manual.display().to_string(), ws4.clone()),
    ]
    .into_iter()
    .collect();
    assert_eq!(open_in, expected);
    for (path, branch) in &on_disk {
        assert_eq!(Some(git(Path::new(path), &["rev-parse", "--abbrev-ref", "HEAD"])), branch.clone());
    }
    let from_linked = server.call("worktree.list", json!({"workspace_id": ws2}));
    assert_eq!(from_linked["worktrees"], listed["worktrees"]);
    assert_eq!(from_linked["source"], listed["source"]);

    // Remove, clean: the checkout goes, the branch stays, the workspace closes.
    let removed = server.call("worktree.remove", json!({"workspace_id": ws2}));
    assert_eq!(
        removed,
        json!({"type": "worktree_removed", "workspace_id": ws2, "path": login.display().to_string(), "forced": false})
    );
    assert!(!login.exists(), "the checkout is gone from disk");
    assert!(branches(&repo).contains(&"feat/login".to_owned()), "the branch is kept");
    assert!(!git_checkouts(&repo).contains_key(&login.display().to_string()));
    let seen = events_until(&server, &mut events, "worktree_removed");
    assert_eq!(kinds(&seen), ["workspace_closed", "worktree_removed"]);
    assert_eq!(seen[1].1["worktree"]["branch"], "feat/login");
    assert_eq!(seen[1].1["workspace"]["workspace_id"], json!(ws2));
    assert_eq!(server.call_error("workspace.get", json!({"workspace_id": ws2})).0, "workspace_not_found");

    // Remove with changes: refused without force, done with it.
    std::fs::write(existing.join("scratch.txt"), "unsaved\n").expect("dirty the checkout");
    let (code, message) = server.call_error("worktree.remove", json!({"workspace_id": ws3}));
    assert_eq!(code, "dirty_worktree_requires_force", "{message}");
    assert!(existing.join("scratch.txt").exists(), "nothing was removed");
    assert_eq!(
        s(&server.call("workspace.get", json!({"workspace_id": ws3}))["workspace"]["workspace_id"]),
        ws3
    );
    let forced = server.call("worktree.remove", json!({"workspace_id": ws3, "force": true}));
    assert_eq!(forced["forced"], json!(true));
    assert!(!existing.exists());
    assert!(branches(&repo).contains(&"existing".to_owned()), "the branch is kept");
    let seen = events_until(&server, &mut events, "worktree_removed");
    assert_eq!(seen.last().map(|(_, d)| d["forced"].clone()), Some(json!(true)));

    // What is refused, with upstream's codes.
    let code = |method: &str, params: Value| server.call_error(method, params).0;
    assert_eq!(code("worktree.remove", json!({"workspace_id": ws1})), "not_linked_worktree");
    assert_eq!(
        code("worktree.create", json!({"workspace_id": ws4, "branch": "x"})),
        "linked_worktree_source"
    );
    let outside = server.work_dir("plain").display().to_string();
    assert_eq!(code("worktree.list", json!({"cwd": outside})), "not_git_worktree");
    assert_eq!(code("worktree.list", json!({"cwd": "relative/dir"})), "invalid_request");
    assert_eq!(code("worktree.list", json!({"cwd": outside, "workspace_id": ws1})), "invalid_request");
    assert_eq!(code("worktree.open", json!({"workspace_id": ws1})), "invalid_request");
    assert_eq!(code("worktree.open", json!({"workspace_id": ws1, "branch": "nope"})), "worktree_not_found");
    assert_eq!(code("worktree.remove", json!({"workspace_id": "w9"})), "workspace_not_found");
    let taken = json!({"workspace_id": ws1, "branch": "again", "path": manual.display().to_string()});
    assert_eq!(code("worktree.create", taken), "worktree_create_failed");
}

#[test]
fn memberships_survive_a_restart() {
    let mut server = TestServer::start();
    let repo = repo(&server, "api");
    let parent = server.call("workspace.create", json!({"cwd": repo.display().to_string()}));
    let ws1 = s(&parent["workspace"]["workspace_id"]);
    let path = server.work_dir("trees").canonicalize().expect("canonical").join("kept");
    let created = server.call(
        "worktree.create",
        json!({"workspace_id": ws1, "branch": "kept", "path": path.display().to_string()}),
    );
    let ws2 = s(&created["workspace"]["workspace_id"]);
    server.stop();
    server.restart();
    let got = server.call("workspace.get", json!({"workspace_id": ws2}));
    assert_eq!(got["workspace"]["worktree"], created["workspace"]["worktree"]);
    let listed = server.call("worktree.list", json!({"workspace_id": ws1}));
    let open: Vec<&Value> =
        listed["worktrees"].as_array().expect("list").iter().map(|w| &w["open_workspace_id"]).collect();
    assert_eq!(open, [&json!(ws1), &json!(ws2)]);
    server.call("worktree.remove", json!({"workspace_id": ws2}));
    assert!(!path.exists());
}

#[test]
fn the_cli_makes_relative_paths_absolute() {
    let server = TestServer::start();
    let repo = repo(&server, "api");
    let run = |args: &[&str]| {
        let mut command = server.command(herdr_e2e::binaries::binary("herdr"));
        command.current_dir(&repo);
        cli::run(command, args, REQUEST_TIMEOUT)
    };
    let created = run(&["worktree", "create", "--cwd", ".", "--branch", "from-cli", "--path", "../from-cli"]);
    let result = created.result();
    let expected = repo.parent().expect("a parent").join("from-cli");
    assert_eq!(s(&result["worktree"]["path"]), expected.display().to_string());
    assert_eq!(git(&expected, &["rev-parse", "--abbrev-ref", "HEAD"]), "from-cli");
    let envelope = created.stdout_envelope().expect("an envelope");
    let keys: Vec<&String> = envelope["result"].as_object().expect("result").keys().collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "the CLI prints sorted keys: {keys:?}");
    assert_eq!(envelope["id"], "cli:worktree:create");

    let listed = run(&["worktree", "list", "--cwd", "."]).result();
    assert_eq!(listed["worktrees"].as_array().map(Vec::len), Some(2), "{listed}");
    let workspace = s(&result["workspace"]["workspace_id"]);
    let reopened = run(&["worktree", "open", "--cwd", ".", "--path", "../from-cli"]).result();
    assert_eq!(reopened["already_open"], json!(true));
    let removed = run(&["worktree", "remove", "--workspace", &workspace]).result();
    assert_eq!(removed["path"], result["worktree"]["path"]);
    assert!(!expected.exists());
    let (code, _) = run(&["worktree", "list", "--cwd", "/"]).error();
    assert_eq!(code, "not_git_worktree");
}
