//! The context injectors against a real temporary project: a git repository made with `git
//! init`, prompt files, a directory tree; and a directory that is not a repository.

use std::path::Path;
use std::process::Command;

use hookchain_guards::inject::{InjectAt, Injector, docker_agent_builtin};
use hookchain_guards::{
    AddDate, AddDirectoryListing, AddEnvironmentInfo, AddGitDiff, AddGitStatus, AddPromptFiles,
    AddRecentCommits, AddUserInfo, BuiltinsExt,
};
use hookchain_runtime::HooksBuilder;

use tempfile::TempDir;

use crate::support::{git, temp_dir};

/// A temporary directory, removed when dropped.
struct Temp(TempDir);

impl Temp {
    fn new() -> Temp {
        Temp(temp_dir())
    }

    fn dir(&self) -> &Path {
        self.0.path()
    }

    fn path(&self) -> String {
        self.dir().display().to_string()
    }

    fn write(&self, name: &str, text: &str) {
        let path = self.dir().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// A repository on `main` with `n` commits (`commit 1`, ...) of `file.txt`.
fn repo(n: usize) -> Temp {
    let temp = Temp::new();
    git(temp.dir(), &["init", "-q"]);
    for i in 1..=n {
        temp.write("file.txt", &format!("line {i}\n"));
        git(temp.dir(), &["add", "file.txt"]);
        git(temp.dir(), &["commit", "-q", "-m", &format!("commit {i}")]);
    }
    temp
}

#[test]
fn add_date_is_today_in_utc() {
    let text = AddDate::default().context().unwrap();
    let out = Command::new("date")
        .args(["-u", "+%Y-%m-%d"])
        .output()
        .unwrap();
    let today = String::from_utf8(out.stdout).unwrap();
    let again = AddDate::default().context().unwrap();
    // Around midnight the two reads may straddle it; one of them is the shell's date.
    assert!(
        text == format!("Today's date: {} (UTC)", today.trim())
            || again == format!("Today's date: {} (UTC)", today.trim()),
        "{text}"
    );
}

#[test]
fn add_environment_info_says_whether_the_directory_is_a_repository() {
    let repo = repo(1);
    let info = AddEnvironmentInfo {
        project_dir: Some(repo.path()),
        ..Default::default()
    };
    let text = info.context().unwrap();
    assert!(
        text.contains(&format!("working directory: {}", repo.path())),
        "{text}"
    );
    assert!(text.contains("git repository: yes"), "{text}");
    assert!(text.contains(std::env::consts::OS) && text.contains(std::env::consts::ARCH));

    let plain = Temp::new();
    let text = AddEnvironmentInfo {
        project_dir: Some(plain.path()),
        ..Default::default()
    }
    .context()
    .unwrap();
    assert!(
        text.contains("git repository: no (") && text.contains("is not a git repository"),
        "{text}"
    );
}

#[test]
fn add_git_status_shows_the_branch_and_changes_or_says_there_is_no_repository() {
    let repo = repo(1);
    repo.write("file.txt", "changed\n");
    repo.write("new.txt", "new\n");
    let status = AddGitStatus {
        project_dir: Some(repo.path()),
        ..Default::default()
    };
    let text = status.context().unwrap();
    assert!(
        text.starts_with("Git status (git status --short --branch):\n## main"),
        "{text}"
    );
    assert!(
        text.contains(" M file.txt") && text.contains("?? new.txt"),
        "{text}"
    );

    let plain = Temp::new();
    let text = AddGitStatus {
        project_dir: Some(plain.path()),
        ..Default::default()
    }
    .context()
    .unwrap();
    assert_eq!(
        text,
        format!(
            "Git status: none, {} is not a git repository.",
            plain.path()
        )
    );
}

#[test]
fn add_git_diff_is_a_stat_by_default_and_the_full_diff_capped_on_request() {
    let repo = repo(1);
    let clean = AddGitDiff {
        project_dir: Some(repo.path()),
        ..Default::default()
    };
    assert_eq!(
        clean.context().unwrap(),
        "Git diff (git diff HEAD --stat): no uncommitted changes."
    );
    repo.write("file.txt", &"a changed line\n".repeat(400));
    let stat = clean.context().unwrap();
    assert!(
        stat.contains("file.txt |") && stat.contains("1 file changed"),
        "{stat}"
    );
    assert!(!stat.contains("+a changed line"), "{stat}");

    let full = AddGitDiff {
        full: true,
        max_bytes: 300,
        ..clean.clone()
    }
    .context()
    .unwrap();
    assert!(full.contains("+a changed line"), "{full}");
    assert!(full.contains("[… truncated: 300 of "), "{full}");
    assert!(full.len() < 400, "{}", full.len());

    // A repository with no commit yet: the staged files, against the empty tree.
    let fresh = repo_without_commits();
    let text = AddGitDiff {
        project_dir: Some(fresh.path()),
        ..Default::default()
    }
    .context()
    .unwrap();
    assert!(text.contains("staged.txt |"), "{text}");

    let plain = Temp::new();
    let text = AddGitDiff {
        project_dir: Some(plain.path()),
        ..Default::default()
    }
    .context()
    .unwrap();
    assert_eq!(
        text,
        format!("Git diff: none, {} is not a git repository.", plain.path())
    );
}

fn repo_without_commits() -> Temp {
    let temp = Temp::new();
    git(temp.dir(), &["init", "-q"]);
    temp.write("staged.txt", "x\n");
    git(temp.dir(), &["add", "staged.txt"]);
    temp
}

#[test]
fn add_recent_commits_lists_the_last_n_newest_first() {
    let repo = repo(12);
    let ten = AddRecentCommits {
        project_dir: Some(repo.path()),
        ..Default::default()
    }
    .context()
    .unwrap();
    let lines: Vec<&str> = ten.lines().collect();
    assert_eq!(lines[0], "Recent commits (git log --oneline -n 10):");
    assert_eq!(lines.len(), 11, "{ten}");
    assert!(
        lines[1].ends_with(" commit 12") && lines[10].ends_with(" commit 3"),
        "{ten}"
    );

    let three = AddRecentCommits {
        count: 3,
        project_dir: Some(repo.path()),
        ..Default::default()
    }
    .context()
    .unwrap();
    assert_eq!(three.lines().count(), 4, "{three}");

    let fresh = repo_without_commits();
    let text = AddRecentCommits {
        project_dir: Some(fresh.path()),
        ..Default::default()
    }
    .context()
    .unwrap();
    assert!(text.starts_with("Recent commits: none, `git log"), "{text}");

    let plain = Temp::new();
    let text = AddRecentCommits {
        project_dir: Some(plain.path()),
        ..Default::default()
    }
    .context()
    .unwrap();
    assert_eq!(
        text,
        format!(
            "Recent commits: none, {} is not a git repository.",
            plain.path()
        )
    );
}

#[test]
fn add_prompt_files_reads_each_file_capped_and_skips_missing_ones_with_a_note() {
    let dir = Temp::new();
    dir.write("AGENTS.md", "Use tabs.\n");
    dir.write("docs/long.md", &"é".repeat(100));
    let files = AddPromptFiles {
        files: vec![
            "AGENTS.md".into(),
            "MISSING.md".into(),
            "docs/long.md".into(),
        ],
        max_bytes: 11,
        project_dir: Some(dir.path()),
        ..Default::default()
    };
    let text = files.context().unwrap();
    assert!(
        text.starts_with("Prompt files:\n--- AGENTS.md ---\nUse tabs.\n"),
        "{text}"
    );
    assert!(
        text.contains("--- MISSING.md: skipped, it does not exist (looked for "),
        "{text}"
    );
    // 11 bytes of two-byte characters: cut at a character boundary, 10 bytes.
    assert!(
        text.contains(&format!(
            "--- docs/long.md ---\n{}\n[… truncated: 10 of 200 bytes shown]",
            "é".repeat(5)
        )),
        "{text}"
    );
    let none = AddPromptFiles::default().context();
    assert_eq!(none, None);
}

#[test]
fn add_directory_listing_is_alphabetical_bounded_in_depth_and_count() {
    let dir = Temp::new();
    dir.write("b.txt", "");
    dir.write("a/inner.txt", "");
    dir.write("a/deeper/x.txt", "");
    dir.write(".hidden", "");
    for i in 0..5 {
        dir.write(&format!("many/f{i}.txt"), "");
    }
    std::os::unix::fs::symlink(dir.dir(), dir.dir().join("loop")).unwrap();
    let listing = AddDirectoryListing {
        project_dir: Some(dir.path()),
        ..Default::default()
    };
    let text = listing.context().unwrap();
    assert_eq!(
        text,
        format!(
            "Directory listing of {}:\na/\nb.txt\nloop\nmany/",
            dir.path()
        )
    );
    let deep = AddDirectoryListing {
        depth: 2,
        max_entries: 6,
        hidden: true,
        ..listing.clone()
    }
    .context()
    .unwrap();
    assert_eq!(
        deep,
        format!(
            "Directory listing of {}:\n.hidden\na/\n  deeper/\n  inner.txt\nb.txt\nloop\n… and 1 more",
            dir.path()
        )
    );
}

#[test]
fn add_user_info_names_the_user_and_the_host() {
    let text = AddUserInfo::default().context().unwrap();
    let mut lines = text.lines();
    let user = lines.next().unwrap();
    assert!(user.starts_with("User: "), "{text}");
    if let Ok(login) = std::env::var("USER")
        && !login.is_empty()
    {
        assert!(user.starts_with(&format!("User: {login}")), "{text}");
    }
    let host = lines.next().unwrap();
    assert!(
        host.starts_with("Host: ") && host.len() > "Host: ".len(),
        "{text}"
    );
}

#[test]
fn enabled_from_rust_each_injects_at_its_point() {
    let repo = repo(2);
    let dir = Some(repo.path());
    let hooks = HooksBuilder::new()
        .builtin(AddDate::default())
        .builtin(AddGitStatus {
            project_dir: dir.clone(),
            ..Default::default()
        })
        .builtin(AddRecentCommits {
            project_dir: dir.clone(),
            ..Default::default()
        })
        .builtin(AddUserInfo {
            point: InjectAt::TurnStart,
        })
        .build()
        .unwrap();
    let session = hooks.session("inject-rust");
    // session_start: persistent.
    assert_eq!(session.context().len(), 1, "{:?}", session.context());
    assert!(session.context()[0].starts_with("Recent commits"));
    // turn_start: this turn's, in chain order.
    let turn = session.begin_turn();
    let start = turn.turn_start("hi").continued().unwrap();
    assert_eq!(start.context.len(), 3, "{:?}", start.context);
    assert!(start.context[0].starts_with("Today's date: "));
    assert!(start.context[1].starts_with("Git status"));
    assert!(start.context[2].starts_with("User: "));
}

#[test]
fn not_enabled_an_injector_adds_nothing() {
    let hooks = hookchain_guards::add_all(HooksBuilder::new())
        .build()
        .unwrap();
    let session = hooks.session("inject-off");
    assert!(session.context().is_empty());
    let start = session.begin_turn().turn_start("hi").continued().unwrap();
    assert!(start.context.is_empty());
}

#[test]
fn docker_agent_builtins_map_onto_the_injectors_with_their_args() {
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let (name, section) =
        docker_agent_builtin("add_git_diff", &args(&["full"]), InjectAt::TurnStart)
            .unwrap()
            .unwrap();
    assert_eq!(name, "add-git-diff");
    assert_eq!(section["full"], true);
    assert_eq!(section["point"], "turn_start");
    let (_, files) = docker_agent_builtin(
        "add_prompt_files",
        &args(&["AGENTS.md"]),
        InjectAt::SessionStart,
    )
    .unwrap()
    .unwrap();
    assert_eq!(files["files"], serde_json::json!(["AGENTS.md"]));
    assert_eq!(files["point"], "session_start");
    let error = docker_agent_builtin(
        "add_recent_commits",
        &args(&["ten"]),
        InjectAt::SessionStart,
    )
    .unwrap()
    .unwrap_err();
    assert_eq!(
        error,
        "`add_recent_commits` takes a positive number of commits, found `ten`"
    );
    assert!(
        docker_agent_builtin("add_date", &args(&["x"]), InjectAt::TurnStart)
            .unwrap()
            .is_err()
    );
    assert!(docker_agent_builtin("snapshot", &[], InjectAt::TurnStart).is_none());
}
