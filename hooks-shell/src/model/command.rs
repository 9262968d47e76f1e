//! Simple commands: the program after its wrappers, builtins that change what runs (`cd`,
//! `source`, `eval`, `trap`, `alias`), and `find -exec`.
use super::*;
use crate::Part;

impl Walker<'_> {
    pub(super) fn command<'t>(
        &mut self,
        node: Node<'t>,
        scope: &mut Scope,
        stdin: &Stdin,
        mut redirects: Vec<Node<'t>>,
    ) {
        let span = self.span(node);
        // Words the grammar skipped after this command (taken before its own words are read,
        // whose substitutions read commands of their own).
        let dropped = std::mem::take(&mut self.dropped);
        let mut env: Vec<(String, Option<String>)> = Vec::new();
        let mut words: Vec<(Word, Range<usize>, bool)> = Vec::new();
        let children = fields(node);
        for (field, child) in children {
            match (field, child.kind()) {
                (_, "variable_assignment") => {
                    if let Some(name) = child.child_by_field_name("name") {
                        self.subscript(name, scope);
                        let name = self.text(name).to_owned();
                        let span = self.span(child);
                        self.setting(&name, span);
                        let value = match child.child_by_field_name("value") {
                            Some(v) => self.assignment_value(v, scope),
                            None => Some(String::new()),
                        };
                        env.push((name, value));
                    }
                }
                (_, kind) if kind.ends_with("redirect") => redirects.push(child),
                (Some("name"), _) => {
                    let inner = child.named_child(0).unwrap_or(child);
                    let span = self.span(child);
                    for w in self.words(inner, scope) {
                        words.push((w.word, span.clone(), w.line_var));
                    }
                }
                _ => {
                    let span = self.span(child);
                    for w in self.words(child, scope) {
                        words.push((w.word, span.clone(), w.line_var));
                    }
                }
            }
        }
        for word in dropped {
            words.push((Word::Static(word), span.clone(), false));
        }
        // The grammar hangs the words after a redirection's target on the redirection
        // (`git >/dev/null reset --hard`): they are the command's.
        // Not past text the grammar could not parse (`cat <<EOF > f; rm x`: `rm x` is no word
        // of `cat`'s; it is listed as unread).
        for redirect in &redirects {
            let mut cursor = redirect.walk();
            let error_at = redirect
                .children(&mut cursor)
                .find(|n| n.is_error())
                .map_or(usize::MAX, |n| n.start_byte());
            let extra: Vec<Node> = redirect
                .children_by_field_name("destination", &mut cursor)
                .skip(1)
                .filter(|n| n.start_byte() < error_at)
                .collect();
            for node in extra {
                let at = self.span(node);
                for w in self.words(node, scope) {
                    words.push((w.word, at.clone(), w.line_var));
                }
            }
        }
        let first = self.out.redirects.len();
        let input = self.redirections(&redirects, scope, stdin);
        let mine = first..self.out.redirects.len();
        if words.is_empty() {
            // Assignments alone set shell variables.
            for (name, value) in env {
                scope.assign(&name, value, true);
            }
            return;
        }
        let mut child = scope.child();
        for (name, value) in env {
            child.assign(&name, value, true);
            if let Some(Var::Known { exported, .. } | Var::Unknown { exported }) =
                child.vars.get_mut(&name)
            {
                *exported = true;
            }
        }
        let outer = std::mem::replace(&mut self.redirecting, mine);
        self.run(&words, span, scope, &mut child, &input, Vec::new());
        self.redirecting = outer;
    }

    /// A simple command of `words` (the program first): records it and what it runs.
    pub(super) fn run(
        &mut self,
        words: &[(Word, Range<usize>, bool)],
        span: Range<usize>,
        scope: &mut Scope,
        child: &mut Scope,
        stdin: &Stdin,
        wrappers: Vec<String>,
    ) {
        let Some(((program, program_span, program_line_var), rest)) = words.split_first() else {
            return;
        };
        let args: Vec<Word> = rest.iter().map(|(w, _, _)| w.clone()).collect();
        let mut command = Command {
            program: program.clone(),
            args: args.clone(),
            dir: scope.dir.clone(),
            shell: self.shell,
            wrappers: wrappers.clone(),
            scripts: Vec::new(),
            conditional: scope.conditional,
            input: stdin.clone(),
            redirects: self.redirecting.clone(),
            code: None,
            span: span.clone(),
        };
        let name = match program {
            Word::Dynamic(d) => {
                let why = format!("the program is computed when the line runs ({})", d.why);
                self.dynamic(d.span.clone(), why);
                self.out.commands.push(command);
                return;
            }
            Word::Static(name) => name.clone(),
        };
        if *program_line_var {
            // Read on all the same, for a guard: `C='rm -rf /'; $C` runs `rm`.
            self.dynamic(
                program_span.clone(),
                "the program is named by a variable the line sets",
            );
        }
        if name.contains('/') && !name.starts_with('/') && scope.dir.is_none() {
            self.dynamic(
                program_span.clone(),
                "a relative program, from a directory an earlier `cd` makes unknown",
            );
        }
        if name.contains('/') && is_device(scope.dir.as_deref(), &name) {
            self.dynamic(
                program_span.clone(),
                "a program run from a descriptor or a device, which holds what the line puts \
                 there",
            );
        }
        let at = self.out.commands.len();
        self.out.commands.push(command.clone());
        if scope.functions.contains(&name) {
            return;
        }
        let statics: Vec<Option<&str>> = rest.iter().map(|(w, _, _)| w.as_static()).collect();
        let base = crate::base_name(&name).to_owned();

        // Programs that give a shell a string of their own options: the line is read, and
        // stays dynamic (which shell runs it is the user's `SHELL` or login shell, and `su`
        // and `runuser` start a login's files).
        let string_option = match base.as_str() {
            "su" | "runuser" => option_value(rest, SU_VALUED, &["-c", "--command"]),
            "script" => option_value(rest, SCRIPT_VALUED, &["-c", "--command"]),
            // `flock [OPTION…] FILE -c COMMAND`.
            "flock" => after_options(rest, FLOCK_VALUED)
                .filter(|&k| {
                    rest.get(k + 1)
                        .is_some_and(|(w, _, _)| matches!(w.as_static(), Some("-c" | "--command")))
                })
                .and_then(|k| rest.get(k + 2))
                .map(|(w, s, _)| (w.clone(), s.clone(), false))
                // `-c` elsewhere is refused by flock; read as the string it would be.
                .or_else(|| option_value(rest, FLOCK_VALUED, &["-c", "--command"])),
            _ => None,
        };
        if let Some(found) = string_option {
            self.dynamic(
                span.clone(),
                format!("`{base} -c` runs a string given to a shell"),
            );
            match found {
                (Word::Static(text), s, _) => {
                    let mut inner = child.clone();
                    inner.dir = scope.dir.clone();
                    self.nested(&text, Shell::Posix, &mut inner, s);
                }
                (Word::Dynamic(d), _, _) => {
                    let why = format!("the line given to `{base} -c` is computed ({})", d.why);
                    self.unread(d.span, why);
                }
            }
            return;
        }
        if base == "runuser" && option_value(rest, SU_VALUED, &["-u", "--user"]).is_some() {
            // `runuser -u USER [--] CMD ARGS` runs CMD itself.
            if let Some(k) = after_options(rest, SU_VALUED) {
                let mut inner = scope.clone();
                let mut wrapped = wrappers;
                wrapped.push(base);
                self.run(&rest[k..], span, &mut inner, child, stdin, wrapped);
            }
            return;
        }

        if let Some(wrapper) = table::wrapper(&name)
            && (!is_builtin(self.shell, &name)
                || matches!(name.as_str(), "command" | "exec" | "time" | "builtin"))
        {
            if base == "coproc"
                && statics
                    .iter()
                    .take(2)
                    .any(|w| w.is_none_or(|w| w == "{" || w.starts_with('(')))
            {
                self.dynamic(
                    span,
                    "`coproc` of a compound command, which the grammar does not read",
                );
                return;
            }
            let mut i = 0;
            // `env -C DIR`: `Some(None)` when the directory is computed when the line runs.
            let mut chdir: Option<Option<String>> = None;
            while i < rest.len() {
                let Some(word) = statics[i] else { break };
                if word == "--" {
                    i += 1;
                    break;
                }
                if wrapper.runs_nothing.contains(&word) {
                    return;
                }
                if wrapper.assignments && !word.starts_with('-') && word.contains('=') {
                    let (k, v) = word.split_once('=').unwrap_or((word, ""));
                    self.setting(k, rest[i].1.clone());
                    child.assign(k, Some(v.to_owned()), true);
                    if let Some(Var::Known { exported, .. }) = child.vars.get_mut(k) {
                        *exported = true;
                    }
                    i += 1;
                    continue;
                }
                if base == "env" && word == "-" {
                    // `env -` is `env -i`.
                    child.vars.clear();
                    i += 1;
                    continue;
                }
                if !word.starts_with('-') || word == "-" {
                    break;
                }
                if base == "env" && word.starts_with("--split-string") {
                    let value = match word.strip_prefix("--split-string=") {
                        Some(v) => Some((Word::Static(v.to_owned()), rest[i].1.clone())),
                        None => rest.get(i + 1).map(|(w, s, _)| (w.clone(), s.clone())),
                    };
                    self.split_string(value, rest[i].1.clone(), child);
                    return;
                }
                if base == "env" && word == "--ignore-environment" {
                    child.vars.clear();
                }
                if base == "env" && word.starts_with("--chdir=") {
                    chdir = Some(word.strip_prefix("--chdir=").map(str::to_owned));
                    i += 1;
                    continue;
                }
                if word.starts_with("--") {
                    i += if wrapper.valued.contains(&word) { 2 } else { 1 };
                    if base == "env" && word == "--chdir" {
                        chdir = Some(statics.get(i - 1).copied().flatten().map(str::to_owned));
                    }
                    continue;
                }
                // Short options, alone or clustered (`-n5`, `-la NAME`, `-iCsub`): a valued
                // one takes the rest of the word, or the next word when it ends the word.
                let flags = &word[1..];
                let mut step = 1;
                for (k, flag) in flags.char_indices() {
                    let attached = &flags[k + flag.len_utf8()..];
                    if base == "env" && flag == 'S' {
                        let value = if attached.is_empty() {
                            rest.get(i + 1).map(|(w, s, _)| (w.clone(), s.clone()))
                        } else {
                            Some((Word::Static(attached.to_owned()), rest[i].1.clone()))
                        };
                        self.split_string(value, rest[i].1.clone(), child);
                        return;
                    }
                    if base == "env" && flag == 'i' {
                        child.vars.clear();
                    }
                    if wrapper.valued.contains(&format!("-{flag}").as_str()) {
                        let value = if attached.is_empty() {
                            step = 2;
                            statics.get(i + 1).copied().flatten().map(str::to_owned)
                        } else {
                            Some(attached.to_owned())
                        };
                        if base == "env" && flag == 'C' {
                            chdir = Some(value);
                        }
                        break;
                    }
                }
                i += step;
            }
            i += wrapper.operands;
            if i >= rest.len() {
                return;
            }
            let mut inner_scope = scope.clone();
            match chdir {
                Some(Some(d)) => inner_scope.dir = inner_scope.dir.map(|x| x.join(d)),
                Some(None) => inner_scope.dir = None,
                None => {}
            }
            if base == "pkexec" && !statics[..i].contains(&Some("--keep-cwd")) {
                // It runs the command from the target user's home, which the line does not say.
                inner_scope.dir = None;
                self.dynamic(
                    span.clone(),
                    "`pkexec` runs its command from the target user's home directory",
                );
            }
            let mut wrapped = wrappers;
            wrapped.push(base.clone());
            if base == "xargs" {
                inner_scope.conditional = true;
                // xargs adds the words it reads to the command: a shell's `-c` string or
                // script, an interpreter's script, come from its input.
                let next = statics.get(i).copied().flatten().unwrap_or("");
                if Shell::of_program(next).is_some() || table::interpreter(next).is_some() {
                    self.unread(
                        span,
                        format!(
                            "`xargs {next}` runs code or a script xargs reads when the line runs"
                        ),
                    );
                    return;
                }
                self.xargs(
                    &rest[..i],
                    &rest[i..],
                    span,
                    &mut inner_scope,
                    child,
                    stdin,
                    wrapped,
                );
                return;
            }
            self.run(&rest[i..], span, &mut inner_scope, child, stdin, wrapped);
            return;
        }

        match name.as_str() {
            "popd" => scope.dir = None,
            // `shift` and `set -- …` move the positional parameters.
            "shift" => scope.positional = None,
            "set"
                if rest.iter().any(|(w, _, _)| {
                    w.as_static()
                        .is_none_or(|w| !w.starts_with(['-', '+']) || w == "--" || w == "-")
                }) =>
            {
                scope.positional = None;
            }
            "pushd" if self.shell == Shell::Posix => {
                // A builtin of bash only: `sh` may or may not move.
                scope.dir = None;
            }
            "cd" | "pushd" => {
                let options: Vec<&str> = rest
                    .iter()
                    .map_while(|(w, _, _)| {
                        w.as_static().filter(|s| s.starts_with('-') && *s != "-")
                    })
                    .collect();
                let operands: Vec<&(Word, Range<usize>, bool)> =
                    rest.iter().skip(options.len()).collect();
                let before = scope.dir.clone();
                // `-L`, `-P` and `-e` only: `cd -@` enters a file's attributes, `pushd -n`
                // does not move.
                let known = options
                    .iter()
                    .all(|o| o == &"--" || o[1..].chars().all(|c| matches!(c, 'L' | 'P' | 'e')));
                let stays = name == "pushd" && options.iter().any(|o| o[1..].contains('n'));
                scope.dir = match operands.first() {
                    _ if stays => scope.dir.clone(),
                    _ if !known => None,
                    None if name == "pushd" => None,
                    None => match scope.vars.get("HOME") {
                        Some(Var::Known { value, .. }) => Some(PathBuf::from(value)),
                        _ => None,
                    },
                    Some((Word::Static(d), _, _)) if d == "-" => None,
                    Some((Word::Static(d), _, _))
                        if name == "pushd" && (d.starts_with('+') || d.starts_with('-')) =>
                    {
                        None
                    }
                    Some((Word::Static(d), _, _)) => {
                        let plain = d.starts_with('/')
                            || d.starts_with("./")
                            || d.starts_with("../")
                            || d == "."
                            || d == "..";
                        let cdpath = match scope.vars.get("CDPATH") {
                            Some(Var::Known { value, .. }) => !value.is_empty(),
                            Some(Var::Unset) => false,
                            Some(Var::Unknown { .. }) => true,
                            None => !self.complete,
                        };
                        if !plain && cdpath {
                            None
                        } else {
                            // Through `..` the shell's directory depends on links: its `cd`
                            // is logical (`cd link/..` is where `link` is), `cd -P` and a
                            // hook started in a linked directory are physical.
                            let climbs = std::path::Path::new(d)
                                .components()
                                .any(|c| c == std::path::Component::ParentDir);
                            if climbs {
                                None
                            } else {
                                scope.dir.as_ref().map(|dir| dir.join(d))
                            }
                        }
                    }
                    Some((Word::Dynamic(_), _, _)) => None,
                };
                // `cd` sets `OLDPWD` and `PWD`, which `cd "$OLDPWD"` and `"$PWD"/x.sh` read.
                if scope.dir != before {
                    let text = |d: &Option<PathBuf>| d.as_ref().map(|d| d.display().to_string());
                    scope.assign("OLDPWD", text(&before), false);
                    scope.assign("PWD", text(&scope.dir), false);
                }
            }
            // `source` under `sh` too: macOS's `/bin/sh` is bash, where it sources; dash has
            // no `source`, so there it only may run.
            "source" | "." => {
                if !is_builtin(self.shell, &name) {
                    self.out.commands[at].conditional = true;
                }
                if let Some((path, path_span, line_var)) = rest.first() {
                    // dash's `.` takes one operand: the script sees the shell's own `$@`.
                    let args = if self.shell == Shell::Posix {
                        &[][..]
                    } else {
                        &rest[1..]
                    };
                    self.script(at, path, path_span, *line_var, args, true, scope);
                }
            }
            "read" | "mapfile" | "readarray" | "getopts" | "let" | "export" | "declare"
            | "typeset" | "local" | "readonly" => {
                // Builtins that set the variables they name (here when a wrapper runs them:
                // `command export PATH=.`; written plainly they are declarations).
                for (word, s, _) in rest {
                    if let Some(word) = word.as_static() {
                        let var = word.split_once('=').map_or(word, |(n, _)| n);
                        self.setting(var, s.clone());
                    }
                }
            }
            "printf" => {
                let named = rest.windows(2).find_map(|pair| {
                    (pair[0].0.as_static() == Some("-v")).then(|| pair[1].clone())
                });
                if let Some((Word::Static(var), s, _)) = named {
                    self.setting(&var, s);
                }
            }
            "alias"
                if rest
                    .iter()
                    .any(|(w, _, _)| w.as_static().is_none_or(|w| w.contains('='))) =>
            {
                self.dynamic(
                    span,
                    "`alias`, which changes what a later word of the line runs",
                );
            }
            "hash" if rest.iter().any(|(w, _, _)| w.as_static() != Some("-r")) => {
                self.dynamic(span, "`hash`, which can tie a name to any file");
            }
            "enable"
                if rest
                    .iter()
                    .any(|(w, _, _)| w.as_static().is_none_or(|w| w.starts_with("-f"))) =>
            {
                self.dynamic(
                    span,
                    "`enable -f`, which loads a builtin from a shared object",
                );
            }
            "eval" => {
                // Its arguments joined by blanks are a line run in this shell: read, and
                // dynamic all the same (what runs is text the line builds, not a line a reader
                // approves as written).
                let words: Option<Vec<&str>> = statics.iter().copied().collect();
                match words {
                    Some(words) if !words.is_empty() => {
                        let text = words.join(" ");
                        self.dynamic(span.clone(), "`eval` runs its arguments as a new line");
                        self.nested(&text, self.shell, scope, span);
                    }
                    Some(_) => {}
                    None => {
                        self.unread(
                            span,
                            "`eval` runs its arguments, computed when the line runs",
                        );
                    }
                }
            }
            "trap" => {
                // `trap [--] ACTION SIGNAL…`: the action runs at the signal (or on exit).
                let operands: Vec<&(Word, Range<usize>, bool)> = rest
                    .iter()
                    .skip_while(|(w, _, _)| w.as_static() == Some("--"))
                    .collect();
                match operands.first() {
                    Some((Word::Static(action), s, _)) if operands.len() > 1 && action != "-" => {
                        let mut copy = scope.branch();
                        self.nested(&action.clone(), self.shell, &mut copy, s.clone());
                    }
                    Some((Word::Dynamic(_), s, _)) if operands.len() > 1 => {
                        self.unread(s.clone(), "`trap`'s action is computed when the line runs");
                    }
                    _ => {}
                }
            }
            "shopt"
                if rest
                    .iter()
                    .any(|(w, _, _)| w.as_static().is_none_or(|w| w == "cdable_vars")) =>
            {
                self.dynamic(
                    span,
                    "`cdable_vars`, which makes `cd NAME` go where a variable says",
                );
            }
            _ if base == "tmux" && !rest.is_empty() => {
                self.tmux(rest, span, scope, child, stdin, wrappers);
            }
            _ if base == "watch" && !rest.is_empty() => {
                self.dynamic(span.clone(), "`watch` runs its arguments as a line of `sh`");
                self.watch(rest, span, scope, child, stdin, wrappers);
            }
            _ if base == "chroot" && !rest.is_empty() => {
                self.dynamic(
                    span.clone(),
                    "`chroot` runs its command inside another root",
                );
                // `chroot [OPTION] NEWROOT [COMMAND [ARG]…]`: the command is read, from a
                // directory not known (the new root's `/`).
                if let Some(k) = after_options(rest, &["--userspec", "--groups"])
                    && k + 1 < rest.len()
                {
                    let mut inner = scope.clone();
                    inner.dir = None;
                    let mut wrapped = wrappers;
                    wrapped.push(base);
                    self.run(&rest[k + 1..], span, &mut inner, child, stdin, wrapped);
                }
            }
            _ if matches!(
                base.as_str(),
                "fish" | "csh" | "tcsh" | "nu" | "pwsh" | "xonsh" | "elvish"
            ) =>
            {
                self.dynamic(span, format!("`{base}` is not a shell this model reads"));
            }
            _ if base == "find" => self.find(rest, span, scope, child, stdin, &wrappers),
            _ if Shell::of_program(&name).is_some() => {
                let shell = Shell::of_program(&name).unwrap_or(Shell::Posix);
                self.shell_run(at, shell, rest, span, scope, child, stdin);
            }
            _ => {
                if let Some(interp) = table::interpreter(&name) {
                    self.interpret(at, &interp, rest, span.clone(), scope, stdin);
                    // node and its kin resolve a script named without its extension (`node ./x`
                    // runs `x.js`, or `x/index.js`): the file is not the one named.
                    let resolves =
                        matches!(base.as_str(), "node" | "nodejs" | "tsx" | "ts-node" | "bun");
                    let bare = self.out.commands[at].scripts.iter().any(|s| {
                        s.path.as_static().is_some_and(|p| {
                            !std::path::Path::new(p)
                                .file_name()
                                .is_some_and(|f| f.to_string_lossy().contains('.'))
                        })
                    });
                    if resolves && bare {
                        self.dynamic(
                            span,
                            format!("`{base}` resolves a script named without its extension"),
                        );
                    }
                }
            }
        }
        let _ = &mut command;
    }

    /// `find … -exec CMD … ;`: the command runs once for each start point, `{}` standing for
    /// the paths found under it (which start with it: see [`fed`]).
    pub(super) fn find(
        &mut self,
        rest: &[(Word, Range<usize>, bool)],
        span: Range<usize>,
        scope: &mut Scope,
        child: &mut Scope,
        stdin: &Stdin,
        wrappers: &[String],
    ) {
        let starts = find_starts(rest.iter().map(|(w, _, _)| w));
        let mut i = 0;
        while i < rest.len() {
            let exec = rest[i]
                .0
                .as_static()
                .filter(|w| matches!(*w, "-exec" | "-execdir" | "-ok" | "-okdir"));
            let Some(exec) = exec else {
                i += 1;
                continue;
            };
            let start = i + 1;
            let mut end = start;
            while end < rest.len()
                && !rest[end]
                    .0
                    .as_static()
                    .is_some_and(|w| w == ";" || w == "+")
            {
                end += 1;
            }
            if start < end && rest[start].0.as_static().is_none_or(|w| w.contains("{}")) {
                self.unread(
                    rest[start].1.clone(),
                    "`find -exec` runs the files it finds",
                );
            } else if start < end {
                for root in &starts {
                    let words: Vec<(Word, Range<usize>, bool)> = rest[start..end]
                        .iter()
                        .map(|(w, s, v)| (replaced(w, "{}", &fed(root, &span)), s.clone(), *v))
                        .collect();
                    let mut branch = scope.branch();
                    if exec.ends_with("dir") {
                        // Run in the directory of each file found.
                        branch.dir = None;
                    }
                    let mut wrapped = wrappers.to_vec();
                    wrapped.push("find".into());
                    self.run(&words, span.clone(), &mut branch, child, stdin, wrapped);
                }
            }
            i = end + 1;
        }
    }

    /// `xargs OPTIONS COMMAND…`: the command runs with the words xargs reads from its input
    /// added (or, with `-I R`, put in place of `R`): the words themselves when the input is
    /// known text, paths under its start points when `find` writes it, a value not known
    /// otherwise.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn xargs(
        &mut self,
        options: &[(Word, Range<usize>, bool)],
        command: &[(Word, Range<usize>, bool)],
        span: Range<usize>,
        scope: &mut Scope,
        child: &mut Scope,
        stdin: &Stdin,
        wrappers: Vec<String>,
    ) {
        let read = XargsOptions::read(options);
        let words: Option<Vec<String>> = match stdin {
            _ if read.from_file || !read.plain => None,
            Stdin::Pipe {
                text: Some(text), ..
            }
            | Stdin::Text(Word::Static(text)) => {
                xargs_words(text, read.null, read.delimiter, read.replace.is_some())
            }
            _ => None,
        };
        let fed_words: Vec<Word> = match (&words, stdin) {
            (Some(words), _) => words
                .iter()
                .map(|w| match read.batches {
                    false => Word::Static(w.clone()),
                    true => Word::Dynamic(Dynamic {
                        span: span.clone(),
                        why: "a word xargs reads, run in batches it decides".into(),
                        parts: vec![Part::Text(w.clone())],
                    }),
                })
                .collect(),
            (None, Stdin::Pipe { from, .. }) if !read.from_file => {
                let find = self.out.commands[from.clone()]
                    .iter()
                    .find(|c| c.program.as_static().map(crate::base_name) == Some("find"));
                match find {
                    Some(find) => find_starts(find.args.iter())
                        .iter()
                        .map(|root| fed(root, &span))
                        .collect(),
                    None => vec![read_word(&span)],
                }
            }
            (None, _) => vec![read_word(&span)],
        };
        match read.replace {
            None => {
                let mut all = command.to_vec();
                all.extend(fed_words.into_iter().map(|w| (w, span.clone(), false)));
                self.run(&all, span, scope, child, stdin, wrappers);
            }
            Some(token) => {
                for item in fed_words.iter().take(MAX_FED) {
                    let all: Vec<(Word, Range<usize>, bool)> = command
                        .iter()
                        .map(|(w, s, v)| (replaced(w, &token, item), s.clone(), *v))
                        .collect();
                    let mut branch = scope.branch();
                    self.run(
                        &all,
                        span.clone(),
                        &mut branch,
                        child,
                        stdin,
                        wrappers.clone(),
                    );
                }
            }
        }
    }

    /// `env -S STRING`: the string is split into the command and its arguments (read as a
    /// line of `sh`, whose quoting it shares; it stays dynamic, its escapes being `env`'s).
    pub(super) fn split_string(
        &mut self,
        value: Option<(Word, Range<usize>)>,
        span: Range<usize>,
        child: &mut Scope,
    ) {
        self.dynamic(span, "`env -S` splits a string into a command");
        match value {
            Some((Word::Static(text), s)) => {
                let mut inner = child.clone();
                self.nested(&text, Shell::Posix, &mut inner, s);
            }
            Some((Word::Dynamic(d), _)) => {
                self.unread(
                    d.span,
                    "`env -S` splits a string computed when the line runs",
                );
            }
            None => {}
        }
    }

    /// `watch [OPTION…] COMMAND…`: the words joined by blanks are a line of `sh -c` (with
    /// `-x`, the command itself), run again and again.
    pub(super) fn watch(
        &mut self,
        rest: &[(Word, Range<usize>, bool)],
        span: Range<usize>,
        scope: &mut Scope,
        child: &mut Scope,
        stdin: &Stdin,
        wrappers: Vec<String>,
    ) {
        const VALUED: &[&str] = &["-n", "--interval", "-q", "--equexit"];
        let Some(k) = after_options(rest, VALUED) else {
            return;
        };
        let exec = rest[..k].iter().any(|(w, _, _)| {
            w.as_static().is_some_and(|w| {
                w == "--exec" || (w.starts_with('-') && !w.starts_with("--") && w.contains('x'))
            })
        });
        let mut branch = scope.branch();
        if exec {
            let mut wrapped = wrappers;
            wrapped.push("watch".into());
            self.run(&rest[k..], span, &mut branch, child, stdin, wrapped);
            return;
        }
        let words: Option<Vec<&str>> = rest[k..].iter().map(|(w, _, _)| w.as_static()).collect();
        match words {
            Some(words) => {
                let text = words.join(" ");
                let mut inner = branch.child();
                self.nested(&text, Shell::Posix, &mut inner, span);
            }
            None => {
                self.unread(span, "`watch` runs a line computed when the line runs");
            }
        }
    }

    /// `tmux [OPTIONS] new-session|new-window|split-window|respawn-pane … [COMMAND]`: the
    /// command runs in a pane, from the directory of `-c` (else, but for a new session, the
    /// session's, not known) — one word is a line of `sh`, several a program and its arguments.
    /// `tmux -c LINE` runs the line. Dynamic: what runs is the tmux server's.
    pub(super) fn tmux(
        &mut self,
        rest: &[(Word, Range<usize>, bool)],
        span: Range<usize>,
        scope: &mut Scope,
        child: &mut Scope,
        stdin: &Stdin,
        wrappers: Vec<String>,
    ) {
        const GLOBAL: &[&str] = &["-L", "-S", "-f", "-T", "-c"];
        const NEW: &[&str] = &[
            "-c", "-e", "-F", "-f", "-n", "-s", "-t", "-x", "-y", "-l", "-p",
        ];
        let mut branch = scope.branch();
        let computed = |words: &[(Word, Range<usize>, bool)]| {
            words.iter().any(|(w, _, _)| w.as_static().is_none())
        };
        let k = after_options(rest, GLOBAL);
        // `tmux -c LINE`: the line, run by the user's shell.
        let global = &rest[..k.unwrap_or(rest.len())];
        if let Some(at) = global
            .iter()
            .position(|(w, _, _)| w.as_static() == Some("-c"))
        {
            match global.get(at + 1) {
                Some((Word::Static(line), s, _)) => {
                    self.dynamic(span.clone(), "`tmux -c` runs its line in the user's shell");
                    let mut inner = branch.child();
                    self.nested(&line.clone(), Shell::Posix, &mut inner, s.clone());
                }
                _ => {
                    self.unread(span, "`tmux -c` runs a line computed when the line runs");
                }
            }
            return;
        }
        let Some(k) = k else {
            if computed(rest) {
                self.unread(span, "`tmux` with options computed when the line runs");
            }
            return;
        };
        let sub = rest[k].0.as_static().unwrap_or("");
        if !matches!(
            sub,
            "new-session"
                | "new"
                | "new-window"
                | "neww"
                | "split-window"
                | "splitw"
                | "respawn-pane"
                | "respawnp"
                | "respawn-window"
                | "respawnw"
        ) {
            return;
        }
        let options = &rest[k + 1..];
        let Some(at) = after_options(options, NEW) else {
            if computed(options) {
                self.unread(span, "`tmux` with options computed when the line runs");
            }
            return;
        };
        let words = &options[at..];
        self.dynamic(
            span.clone(),
            format!("`tmux {sub}` runs its command in a pane"),
        );
        let dir = options[..at]
            .iter()
            .position(|(w, _, _)| w.as_static() == Some("-c"))
            .map(|p| options.get(p + 1).and_then(|(w, _, _)| w.as_static()));
        branch.dir = match dir {
            Some(Some(d)) => branch.dir.as_ref().map(|x| x.join(d)),
            Some(None) => None,
            None if matches!(sub, "new-session" | "new") => branch.dir.clone(),
            None => None,
        };
        match words {
            [(Word::Static(line), s, _)] => {
                let mut inner = branch.child();
                self.nested(&line.clone(), Shell::Posix, &mut inner, s.clone());
            }
            [(Word::Dynamic(_), s, _)] => {
                self.unread(s.clone(), "`tmux` runs a line computed when the line runs");
            }
            _ => {
                let mut wrapped = wrappers;
                wrapped.push("tmux".into());
                self.run(words, span, &mut branch, child, stdin, wrapped);
            }
        }
    }
}

/// `su`'s and `runuser`'s options that take a value.
const SU_VALUED: &[&str] = &[
    "-c",
    "--command",
    "--session-command",
    "-g",
    "--group",
    "-G",
    "--supp-group",
    "-s",
    "--shell",
    "-w",
    "--whitelist-environment",
    "-u",
    "--user",
];

/// `script`'s options that take a value.
const SCRIPT_VALUED: &[&str] = &[
    "-c",
    "--command",
    "-E",
    "--echo",
    "-I",
    "--log-in",
    "-O",
    "--log-out",
    "-B",
    "--log-io",
    "-T",
    "--log-timing",
    "-m",
    "--logging-format",
    "-o",
    "--output-limit",
];

/// `flock`'s options that take a value.
const FLOCK_VALUED: &[&str] = &["-w", "--wait", "--timeout", "-E", "--conflict-exit-code"];

/// `true` when `flag` (`-c`, `--command`) is one of `names`.
fn named(names: &[&str], flag: &str) -> bool {
    names.contains(&flag)
}

/// The value of the first of the options `target` among `rest` (options anywhere, as GNU
/// getopt reads them, up to `--`): `-c VALUE`, `-cVALUE`, `-lc VALUE`, `--command VALUE`,
/// `--command=VALUE`. `valued` are the options that take a value, which is never taken for an
/// option. A value computed when the line runs is returned as it is.
fn option_value(
    rest: &[(Word, Range<usize>, bool)],
    valued: &[&str],
    target: &[&str],
) -> Option<(Word, Range<usize>, bool)> {
    let mut i = 0;
    while i < rest.len() {
        let (word, span, line_var) = &rest[i];
        let Some(text) = word.as_static() else {
            i += 1;
            continue;
        };
        if text == "--" {
            return None;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (format!("--{n}"), Some(v)),
                None => (text.to_owned(), None),
            };
            if named(target, &name) {
                return match value {
                    Some(v) => Some((Word::Static(v.to_owned()), span.clone(), *line_var)),
                    None => rest.get(i + 1).cloned(),
                };
            }
            i += if value.is_none() && named(valued, &name) {
                2
            } else {
                1
            };
            continue;
        }
        let Some(flags) = text.strip_prefix('-').filter(|f| !f.is_empty()) else {
            i += 1;
            continue;
        };
        let mut step = 1;
        for (k, flag) in flags.char_indices() {
            let option = format!("-{flag}");
            let attached = &flags[k + flag.len_utf8()..];
            if named(target, &option) {
                return if attached.is_empty() {
                    rest.get(i + 1).cloned()
                } else {
                    Some((Word::Static(attached.to_owned()), span.clone(), *line_var))
                };
            }
            if named(valued, &option) {
                if attached.is_empty() {
                    step = 2;
                }
                break;
            }
        }
        i += step;
    }
    None
}

/// The index of the first operand of `rest`, its options (those of `valued` with their value)
/// and a `--` skipped; `None` when there is none, or an option is computed when the line runs.
fn after_options(rest: &[(Word, Range<usize>, bool)], valued: &[&str]) -> Option<usize> {
    let mut i = 0;
    while i < rest.len() {
        let text = rest[i].0.as_static()?;
        if text == "--" {
            return (i + 1 < rest.len()).then_some(i + 1);
        }
        if !text.starts_with('-') || text == "-" {
            return Some(i);
        }
        let takes_next = if text.starts_with("--") {
            !text.contains('=') && named(valued, text)
        } else {
            // The last valued flag of a cluster takes the next word when it ends the word.
            let flags = &text[1..];
            flags
                .char_indices()
                .find(|(_, f)| named(valued, &format!("-{f}")))
                .is_some_and(|(k, f)| k + f.len_utf8() == flags.len())
        };
        i += if takes_next { 2 } else { 1 };
    }
    None
}

/// How many runs of a command `xargs -I` makes this model follow.
const MAX_FED: usize = 64;

/// What `xargs`'s options say of how it reads its input.
#[derive(Default)]
struct XargsOptions {
    /// `-I R`, `-i`, `--replace`: the words replace `R` instead of being added.
    replace: Option<String>,
    /// `-0`: the words end at NULs.
    null: bool,
    /// `-d C`: the words end at `C`.
    delimiter: Option<char>,
    /// `-n`, `-L`, `-s`, `-x`: the words are given in batches.
    batches: bool,
    /// `-a FILE`: the words come from a file.
    from_file: bool,
    /// No option this model does not follow (`-E`, a `-d` it does not read, an option
    /// computed when the line runs).
    plain: bool,
}

impl XargsOptions {
    fn read(options: &[(Word, Range<usize>, bool)]) -> XargsOptions {
        let mut read = XargsOptions {
            plain: true,
            ..XargsOptions::default()
        };
        let mut k = 0;
        while k < options.len() {
            let Some(word) = options[k].0.as_static() else {
                read.plain = false;
                k += 1;
                continue;
            };
            let next = options.get(k + 1).and_then(|(w, _, _)| w.as_static());
            let (name, attached) = match word.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n, Some(v)),
                _ if word.starts_with("--") || word.len() <= 2 => (word, None),
                _ => (&word[..2], Some(&word[2..])),
            };
            // Short options with a required value take the next word when none is attached.
            let required = matches!(
                name,
                "-I" | "-a"
                    | "-d"
                    | "-n"
                    | "-L"
                    | "-s"
                    | "-E"
                    | "-P"
                    | "--arg-file"
                    | "--delimiter"
                    | "--max-args"
                    | "--max-lines"
                    | "--max-chars"
                    | "--max-procs"
            );
            let value = match attached {
                Some(v) => Some(v.to_owned()),
                None if required => {
                    k += 1;
                    next.map(str::to_owned)
                }
                None => None,
            };
            match name {
                "-I" | "--replace" | "-i" => read.replace = value.or(Some("{}".into())),
                "-0" | "--null" => read.null = true,
                "-a" | "--arg-file" => read.from_file = true,
                "-d" | "--delimiter" => {
                    read.delimiter = match value.as_deref() {
                        Some("\\n") => Some('\n'),
                        Some(d) if d.chars().count() == 1 => d.chars().next(),
                        _ => {
                            read.plain = false;
                            None
                        }
                    }
                }
                "-n" | "-L" | "-l" | "-s" | "-x" | "--max-args" | "--max-lines" | "--max-chars"
                | "--exit" => read.batches = true,
                "-E" | "-e" | "--eof" => read.plain = false,
                _ => {}
            }
            k += 1;
        }
        read
    }
}

/// The start points of `find ARGS`: the operands before its expression, after its options
/// `-H`, `-L`, `-P`, `-D LIST`, `-O LEVEL`; `.` when there are none.
fn find_starts<'w>(args: impl Iterator<Item = &'w Word>) -> Vec<Word> {
    let mut starts = Vec::new();
    let mut args = args.peekable();
    while let Some(w) = args.peek() {
        match w.as_static() {
            Some("-H" | "-L" | "-P") => {
                args.next();
            }
            Some("-D") => {
                args.next();
                args.next();
            }
            Some(o) if o.starts_with("-O") => {
                args.next();
            }
            _ => break,
        }
    }
    for w in args {
        if w.as_static()
            .is_some_and(|t| t.starts_with('-') || matches!(t, "(" | "!" | ")" | ","))
        {
            break;
        }
        starts.push(w.clone());
    }
    if starts.is_empty() {
        starts.push(Word::Static(".".into()));
    }
    starts
}

/// A path `find` hands over, found under `root`: `root` itself, or a path under it.
fn fed(root: &Word, at: &Range<usize>) -> Word {
    let (span, mut parts) = match root {
        Word::Static(s) => (at.clone(), vec![Part::Text(s.clone())]),
        Word::Dynamic(d) => (d.span.clone(), d.parts.clone()),
    };
    parts.push(Part::Unknown {
        name: None,
        split: false,
    });
    Word::Dynamic(Dynamic {
        span,
        why: "a path found when the line runs".into(),
        parts,
    })
}

/// The word standing for the words xargs reads, when they are not known.
fn read_word(span: &Range<usize>) -> Word {
    Word::Dynamic(Dynamic {
        span: span.clone(),
        why: "the words xargs reads when the line runs".into(),
        parts: vec![Part::Unknown {
            name: None,
            split: true,
        }],
    })
}

/// `word` with each `token` in it replaced by `by`.
fn replaced(word: &Word, token: &str, by: &Word) -> Word {
    let Word::Static(text) = word else {
        return word.clone();
    };
    if !text.contains(token) {
        return word.clone();
    }
    let d = match by {
        Word::Static(by) => return Word::Static(text.replace(token, by)),
        Word::Dynamic(d) => d,
    };
    fn push_text(parts: &mut Vec<Part>, t: &str) {
        if t.is_empty() {
            return;
        }
        match parts.last_mut() {
            Some(Part::Text(last)) => last.push_str(t),
            _ => parts.push(Part::Text(t.to_owned())),
        }
    }
    let mut parts: Vec<Part> = Vec::new();
    let mut pieces = text.split(token).peekable();
    while let Some(piece) = pieces.next() {
        push_text(&mut parts, piece);
        if pieces.peek().is_some() {
            for part in &d.parts {
                match part {
                    Part::Text(t) => push_text(&mut parts, t),
                    other => parts.push(other.clone()),
                }
            }
        }
    }
    Word::Dynamic(Dynamic {
        span: d.span.clone(),
        why: d.why.clone(),
        parts,
    })
}

/// The words xargs reads from `text`: split at blanks and newlines, with its quotes and
/// backslashes (or at NULs with `-0`, at `delimiter` with `-d`, or one per line with `-I`);
/// `None` for text xargs refuses (an unmatched quote).
fn xargs_words(
    text: &str,
    null: bool,
    delimiter: Option<char>,
    lines: bool,
) -> Option<Vec<String>> {
    if null || delimiter.is_some() {
        let d = if null { '\0' } else { delimiter? };
        let mut words: Vec<String> = text.split(d).map(str::to_owned).collect();
        if words.last().is_some_and(String::is_empty) {
            words.pop();
        }
        return Some(words);
    }
    let mut words = Vec::new();
    let mut word = String::new();
    let mut started = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                started = true;
                loop {
                    match chars.next()? {
                        '\n' => return None,
                        q if q == c => break,
                        other => word.push(other),
                    }
                }
            }
            '\\' => {
                started = true;
                word.push(chars.next()?);
            }
            '\n' => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            ' ' | '\t' if !lines => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            ' ' | '\t' if !started => {}
            other => {
                started = true;
                word.push(other);
            }
        }
    }
    if started {
        words.push(word);
    }
    Some(words)
}
