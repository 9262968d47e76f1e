//! Simple commands: the program after its wrappers, builtins that change what runs (`cd`,
//! `source`, `eval`, `trap`, `alias`), and `find -exec`.
use super::*;

impl Walker<'_> {
    pub(super) fn command<'t>(
        &mut self,
        node: Node<'t>,
        scope: &mut Scope,
        stdin: &Stdin,
        mut redirects: Vec<Node<'t>>,
    ) {
        let span = self.span(node);
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
        let input = self.redirections(&redirects, scope, stdin);
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
        self.run(&words, span, scope, &mut child, &input, Vec::new());
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
            self.dynamic(
                program_span.clone(),
                "the program is named by a variable the line sets",
            );
            self.out.commands.push(command);
            return;
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
            if base == "flock"
                && statics.iter().any(|w| {
                    w.is_none_or(|w| matches!(w, "-c" | "--command") || w.starts_with("--command="))
                })
            {
                self.dynamic(span, "`flock -c` runs a string given to a shell");
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
                    self.dynamic(rest[i].1.clone(), "`env -S` splits a string into a command");
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
                        self.dynamic(rest[i].1.clone(), "`env -S` splits a string into a command");
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
            if base == "xargs" {
                inner_scope.conditional = true;
                // xargs adds the words it reads to the command: a shell's `-c` string or
                // script, an interpreter's script, come from its input.
                let next = statics.get(i).copied().flatten().unwrap_or("");
                if Shell::of_program(next).is_some() || table::interpreter(next).is_some() {
                    self.dynamic(
                        span,
                        format!(
                            "`xargs {next}` runs code or a script xargs reads when the line runs"
                        ),
                    );
                    return;
                }
            }
            let mut wrapped = wrappers;
            wrapped.push(base);
            self.run(&rest[i..], span, &mut inner_scope, child, stdin, wrapped);
            return;
        }

        match name.as_str() {
            "popd" => scope.dir = None,
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
                if !rest.is_empty() {
                    self.dynamic(span, "`eval` runs its arguments as a new line");
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
                        self.dynamic(s.clone(), "`trap`'s action is computed when the line runs");
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
            "watch" if !rest.is_empty() => {
                self.dynamic(span, "`watch` runs its arguments as a line of `sh`");
            }
            "script" | "su" | "runuser"
                if rest.iter().any(|(w, _, _)| {
                    w.as_static().is_none_or(|w| {
                        w == "-c"
                            || w.starts_with("--command")
                            || (w.starts_with('-') && !w.starts_with("--") && w.contains('c'))
                    })
                }) =>
            {
                self.dynamic(span, format!("`{base} -c` runs a string given to a shell"));
            }
            "chroot" if !rest.is_empty() => {
                self.dynamic(span, "`chroot` runs its command inside another root");
            }
            "fish" | "csh" | "tcsh" | "nu" | "pwsh" | "xonsh" | "elvish" => {
                self.dynamic(span, format!("`{base}` is not a shell this model reads"));
            }
            "find" => self.find(rest, span, scope, child, stdin, &wrappers),
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

    /// `find … -exec CMD … ;`: the command runs, with arguments found at run time.
    pub(super) fn find(
        &mut self,
        rest: &[(Word, Range<usize>, bool)],
        span: Range<usize>,
        scope: &mut Scope,
        child: &mut Scope,
        stdin: &Stdin,
        wrappers: &[String],
    ) {
        let mut i = 0;
        while i < rest.len() {
            let exec = rest[i]
                .0
                .as_static()
                .is_some_and(|w| matches!(w, "-exec" | "-execdir" | "-ok" | "-okdir"));
            if !exec {
                i += 1;
                continue;
            }
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
            if rest[start..end]
                .iter()
                .any(|(w, _, _)| w.as_static().is_none_or(|w| w.contains("{}")))
            {
                self.dynamic(
                    rest[start].1.clone(),
                    "`find -exec` runs the files it finds",
                );
            } else if start < end {
                let mut branch = scope.branch();
                let mut wrapped = wrappers.to_vec();
                wrapped.push("find".into());
                self.run(
                    &rest[start..end],
                    span.clone(),
                    &mut branch,
                    child,
                    stdin,
                    wrapped,
                );
            }
            i = end + 1;
        }
    }
}
