//! A repository is untrusted input: its `.git/config`, `.gitattributes`, files and symlinks
//! are written by whoever wrote it. These tests plant what such a repository could — settings
//! that name a program, symlinks out of the project, FIFOs — and check that the injectors and
//! guards that read the project run none of those programs, read nothing outside it, and never
//! hang on a FIFO.
//!
//! A planted program writes a marker file named after the setting that ran it; each test
//! asserts that no marker appears.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use hookchain_guards::git_checkpoint::{Label, Trigger};
use hookchain_guards::inject::Injector;
use hookchain_guards::{
    AddEnvironmentInfo, AddGitDiff, AddGitStatus, AddRecentCommits, GitCheckpoint,
};

use crate::support::{git, temp_dir};

/// A project repository whose `.git/config`, `.git/info/attributes` and `.gitattributes` set
/// every program-running setting to a program that writes a marker into `markers/`; one
/// commit, then a tracked file changed (so status and diff must read it) and a file added.
struct Planted {
    _root: tempfile::TempDir,
    project: PathBuf,
    markers: PathBuf,
}

/// The settings planted, each run with the marker named after it.
const PLANTED: &[&str] = &[
    "core.fsmonitor",
    "core.pager",
    "core.editor",
    "core.sshCommand",
    "core.askPass",
    "core.alternateRefsCommand",
    "sequence.editor",
    "credential.helper",
    "diff.external",
    "diff.planted.command",
    "diff.planted.textconv",
    "filter.planted.clean",
    "filter.planted.smudge",
    "filter.planted.process",
    "merge.planted.driver",
    "gpg.program",
    "gpg.ssh.program",
    "pager.status",
    "pager.diff",
    "pager.log",
];

/// The hooks planted in `.git/hooks/` and in the directory `core.hooksPath` names.
const HOOKS: &[&str] = &[
    "post-index-change",
    "reference-transaction",
    "pre-commit",
    "post-checkout",
    "fsmonitor-watchman",
];

impl Planted {
    fn new() -> Planted {
        let root = temp_dir();
        let base = root.path().canonicalize().unwrap();
        let project = base.join("project");
        let markers = base.join("markers");
        let outside = base.join("outside");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&markers).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret-name.txt"), "x\n").unwrap();
        let mark = base.join("mark");
        std::fs::write(
            &mark,
            format!(
                "#!/bin/sh\ntouch '{}'/\"$1\"\ncat >/dev/null 2>&1 || true\n",
                markers.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&mark, std::fs::Permissions::from_mode(0o755)).unwrap();

        git(&project, &["init", "-q"]);
        std::fs::write(project.join("notes.txt"), "first\n").unwrap();
        git(&project, &["add", "notes.txt"]);
        git(&project, &["commit", "-q", "-m", "first"]);
        // Planted after the commit: the test's own git calls run none of it.
        let attributes = "* filter=planted diff=planted merge=planted\n";
        std::fs::write(project.join(".gitattributes"), attributes).unwrap();
        std::fs::write(project.join(".git/info/attributes"), attributes).unwrap();
        let hooks = base.join("hooks");
        std::fs::create_dir_all(&hooks).unwrap();
        for hook in HOOKS {
            for dir in [hooks.clone(), project.join(".git/hooks")] {
                let path = dir.join(hook);
                std::fs::write(
                    &path,
                    format!("#!/bin/sh\n'{}' hook-{hook}\n", mark.display()),
                )
                .unwrap();
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
        }
        let mut config = std::fs::read_to_string(project.join(".git/config")).unwrap();
        for key in PLANTED {
            let (section, rest) = key.split_once('.').unwrap();
            let (sub, name) = match rest.rsplit_once('.') {
                Some((sub, name)) => (format!(" \"{sub}\""), name),
                None => (String::new(), rest),
            };
            config.push_str(&format!(
                "[{section}{sub}]\n\t{name} = \"{} {key}\"\n",
                mark.display()
            ));
        }
        config.push_str(&format!(
            "[core]\n\thooksPath = {}\n\tworktree = {}\n[filter \"planted\"]\n\trequired = true\n\
             [log]\n\tshowSignature = true\n[status]\n\tsubmoduleSummary = true\n",
            hooks.display(),
            outside.display()
        ));
        std::fs::write(project.join(".git/config"), config).unwrap();
        // A tracked file changed with the same size and an old time, so that git must read it.
        std::fs::write(project.join("notes.txt"), "again\n").unwrap();
        std::fs::write(project.join("added.txt"), "new\n").unwrap();
        Planted {
            _root: root,
            project,
            markers,
        }
    }

    /// The markers written: the settings and hooks that ran a program.
    fn ran(&self) -> Vec<String> {
        let mut ran: Vec<String> = std::fs::read_dir(&self.markers)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        ran.sort();
        ran
    }

    fn dir(&self) -> Option<String> {
        Some(self.project.display().to_string())
    }
}

#[test]
fn the_git_injectors_run_no_program_the_repository_configures() {
    let repo = Planted::new();
    let texts = [
        AddGitStatus {
            project_dir: repo.dir(),
            ..Default::default()
        }
        .context_in(Path::new("/")),
        AddGitDiff {
            project_dir: repo.dir(),
            ..Default::default()
        }
        .context_in(Path::new("/")),
        AddGitDiff {
            project_dir: repo.dir(),
            full: true,
            ..Default::default()
        }
        .context_in(Path::new("/")),
        AddRecentCommits {
            project_dir: repo.dir(),
            ..Default::default()
        }
        .context_in(Path::new("/")),
        AddEnvironmentInfo {
            project_dir: repo.dir(),
            ..Default::default()
        }
        .context_in(Path::new("/")),
    ];
    let texts: Vec<String> = texts.into_iter().map(Option::unwrap).collect();
    assert_eq!(repo.ran(), Vec::<String>::new(), "{texts:#?}");
    // They still work: the change, the new file and the commit are there.
    assert!(texts[0].contains(" M notes.txt"), "{}", texts[0]);
    assert!(texts[0].contains("?? added.txt"), "{}", texts[0]);
    assert!(texts[1].contains("notes.txt"), "{}", texts[1]);
    assert!(texts[2].contains("+again"), "{}", texts[2]);
    assert!(texts[3].contains("first"), "{}", texts[3]);
}

#[test]
fn the_git_injectors_list_the_project_not_the_directory_core_worktree_names() {
    let repo = Planted::new();
    let status = AddGitStatus {
        project_dir: repo.dir(),
        ..Default::default()
    }
    .context_in(Path::new("/"))
    .unwrap();
    assert!(!status.contains("secret-name"), "{status}");
    assert!(status.contains("?? added.txt"), "{status}");
}

#[test]
fn git_checkpoint_runs_no_program_the_repository_configures() {
    let repo = Planted::new();
    let state = temp_dir();
    let guard = GitCheckpoint {
        project_dir: repo.dir(),
        dir: Some(state.path().display().to_string()),
        ..GitCheckpoint::default()
    };
    let label = Label {
        session: "s".into(),
        turn: 0,
        trigger: Trigger::TurnStart,
    };
    let first = guard.snapshot(&repo.project, &label).unwrap();
    std::fs::write(repo.project.join("notes.txt"), "third\n").unwrap();
    guard.snapshot(&repo.project, &label).unwrap();
    assert!(!guard.list(&repo.project).unwrap().is_empty());
    guard.restore(&repo.project, &first.id).unwrap();
    assert_eq!(
        std::fs::read_to_string(repo.project.join("notes.txt")).unwrap(),
        "again\n"
    );
    assert_eq!(repo.ran(), Vec::<String>::new());
}

/// Runs `f` on a thread of its own and waits at most 20 s for it: a call that hangs (on a
/// FIFO, say) fails the test instead of hanging it.
fn within_20s<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(f());
    });
    receive
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("it did not finish within 20 s")
}

/// `mkfifo path`; `false` when the system cannot make one (the test is then skipped).
fn mkfifo(path: &Path) -> bool {
    std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn add_prompt_files_reads_nothing_outside_the_project_through_a_symlink_or_dot_dot() {
    let root = temp_dir();
    let base = root.path().canonicalize().unwrap();
    let (project, outside) = (base.join("project"), base.join("home"));
    std::fs::create_dir_all(project.join("docs")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(
        outside.join("credentials"),
        "aws_secret_access_key = SECRET\n",
    )
    .unwrap();
    std::fs::write(project.join("AGENTS.md"), "Use tabs.\n").unwrap();
    std::os::unix::fs::symlink(outside.join("credentials"), project.join("notes.md")).unwrap();
    std::os::unix::fs::symlink(&outside, project.join("docs/home")).unwrap();
    std::os::unix::fs::symlink(project.join("AGENTS.md"), project.join("alias.md")).unwrap();
    let files = hookchain_guards::AddPromptFiles {
        files: vec![
            "AGENTS.md".into(),
            "notes.md".into(),
            "docs/home/credentials".into(),
            "../home/credentials".into(),
            "alias.md".into(),
        ],
        project_dir: Some(project.display().to_string()),
        ..Default::default()
    };
    let text = files.context_in(Path::new("/")).unwrap();
    assert!(!text.contains("SECRET"), "{text}");
    assert!(text.contains("--- AGENTS.md ---\nUse tabs."), "{text}");
    assert!(text.contains("--- alias.md ---\nUse tabs."), "{text}");
    for name in ["notes.md", "docs/home/credentials", "../home/credentials"] {
        assert!(
            text.contains(&format!(
                "--- {name}: skipped, it resolves to {}, outside the project",
                outside.join("credentials").display()
            )),
            "{name}: {text}"
        );
    }
}

#[test]
fn add_prompt_files_skips_a_fifo_at_once() {
    let root = temp_dir();
    let project = root.path().canonicalize().unwrap();
    if !mkfifo(&project.join("pipe.md")) {
        println!("add_prompt_files_skips_a_fifo_at_once: skipped, no mkfifo");
        return;
    }
    let files = hookchain_guards::AddPromptFiles {
        files: vec!["pipe.md".into()],
        project_dir: Some(project.display().to_string()),
        ..Default::default()
    };
    let text = within_20s(move || files.context_in(Path::new("/")).unwrap());
    assert!(
        text.contains("--- pipe.md: skipped, it cannot be read (")
            && text.contains("it is a FIFO, not a regular file"),
        "{text}"
    );
}

/// A project (a git repository with one file) and a state directory for its checkpoints.
fn checkpointed() -> (tempfile::TempDir, PathBuf, GitCheckpoint) {
    let root = temp_dir();
    let base = root.path().canonicalize().unwrap();
    let project = base.join("project");
    std::fs::create_dir_all(&project).unwrap();
    git(&project, &["init", "-q"]);
    std::fs::write(project.join("notes.txt"), "first\n").unwrap();
    let guard = GitCheckpoint {
        project_dir: Some(project.display().to_string()),
        dir: Some(base.join("state").display().to_string()),
        timeout_ms: 10_000,
        ..GitCheckpoint::default()
    };
    (root, project, guard)
}

fn label() -> Label {
    Label {
        session: "s".into(),
        turn: 0,
        trigger: Trigger::TurnStart,
    }
}

#[test]
fn a_fifo_at_git_info_exclude_or_in_the_project_does_not_hang_a_snapshot() {
    let (_root, project, guard) = checkpointed();
    let exclude = project.join(".git/info/exclude");
    std::fs::remove_file(&exclude).ok();
    if !mkfifo(&exclude) || !mkfifo(&project.join("pipe")) {
        println!("a_fifo_at_git_info_exclude: skipped, no mkfifo");
        return;
    }
    let snapshot = within_20s(move || guard.snapshot(&project, &label())).unwrap();
    // `notes.txt`: the FIFO in the project is not taken.
    assert_eq!(snapshot.files, 1, "{snapshot:?}");
    assert!(
        snapshot
            .warnings
            .iter()
            .any(|w| w.contains("info/exclude is not honoured: it is a FIFO")),
        "{snapshot:?}"
    );
}

#[test]
fn a_symlink_at_git_info_exclude_is_not_followed_and_a_warning_says_so() {
    let (root, project, guard) = checkpointed();
    let secret = root.path().join("secret");
    std::fs::write(&secret, "PRIVATE-KEY-MATERIAL\n").unwrap();
    let exclude = project.join(".git/info/exclude");
    std::fs::remove_file(&exclude).ok();
    std::os::unix::fs::symlink(&secret, &exclude).unwrap();
    let snapshot = guard.snapshot(&project, &label()).unwrap();
    assert!(
        snapshot
            .warnings
            .iter()
            .any(|w| w.contains("info/exclude is not honoured: it is a symbolic link")),
        "{snapshot:?}"
    );
    // Nothing of the link's target was copied into the checkpoints' directory.
    let state = PathBuf::from(guard.dir.clone().unwrap());
    let mut stack = vec![state];
    let mut seen = 0;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            seen += 1;
            assert!(seen < 10_000, "too many files under the state directory");
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(text) = std::fs::read(&path) {
                let text = String::from_utf8_lossy(&text);
                assert!(!text.contains("PRIVATE-KEY-MATERIAL"), "{}", path.display());
            }
        }
    }
}

#[test]
fn a_shadow_dir_inside_the_projects_git_directory_is_refused_naming_the_setting() {
    let (_root, project, guard) = checkpointed();
    for dir in [project.join(".git"), project.join(".git/checkpoints")] {
        let guard = GitCheckpoint {
            dir: Some(dir.display().to_string()),
            ..guard.clone()
        };
        let error = guard.snapshot(&project, &label()).unwrap_err().to_string();
        assert!(
            error.contains("git-checkpoint's `dir`")
                && error.contains("is inside the project's git directory")
                && error.contains("set `dir` to a directory outside it"),
            "{error}"
        );
    }
    assert!(!project.join(".git/checkpoints").exists());
    // Through a symlink to the project's `.git` too.
    let link = project.parent().unwrap().join("to-git");
    std::os::unix::fs::symlink(project.join(".git"), &link).unwrap();
    let guard = GitCheckpoint {
        dir: Some(link.join("shadow").display().to_string()),
        ..guard
    };
    assert!(guard.snapshot(&project, &label()).is_err());
    assert!(!project.join(".git/shadow").exists());
}
