//! What a command runs as a program: a script operand, a shell's options and `-c` string, a
//! program read from standard input, an interpreter's options and script.
use super::*;

impl Walker<'_> {
    /// A script operand of the command at `at`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn script(
        &mut self,
        at: usize,
        path: &Word,
        span: &Range<usize>,
        line_var: bool,
        args: &[(Word, Range<usize>, bool)],
        sourced: bool,
        scope: &Scope,
    ) {
        match path {
            Word::Dynamic(d) => {
                let why = format!("the script is computed when the line runs ({})", d.why);
                self.dynamic(d.span.clone(), why);
            }
            Word::Static(p) if line_var => {
                let _ = p;
                self.dynamic(
                    span.clone(),
                    "the script is named by a variable the line sets",
                );
            }
            Word::Static(p) if !p.starts_with('/') && scope.dir.is_none() => {
                self.dynamic(
                    span.clone(),
                    "a relative script, from a directory an earlier `cd` makes unknown",
                );
            }
            Word::Static(p) if is_device(scope.dir.as_deref(), p) => {
                self.dynamic(
                    span.clone(),
                    "a script read from a descriptor or a device, which holds what the line \
                     puts there",
                );
            }
            Word::Static(_) => {}
        }
        self.out.commands[at].scripts.push(Script {
            path: path.clone(),
            args: args.iter().map(|(w, _, _)| w.clone()).collect(),
            sourced,
        });
    }

    /// A shell run as a program: its options, then `-c STRING`, a script, or standard input.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn shell_run(
        &mut self,
        at: usize,
        shell: Shell,
        rest: &[(Word, Range<usize>, bool)],
        span: Range<usize>,
        scope: &mut Scope,
        child: &mut Scope,
        stdin: &Stdin,
    ) {
        let mut i = 0;
        let mut command_mode = false;
        let mut stdin_mode = false;
        while i < rest.len() {
            let Some(word) = rest[i].0.as_static() else {
                let why = if command_mode {
                    "the line given to the shell is computed when it runs"
                } else {
                    "a shell's option computed when the line runs"
                };
                self.unread(rest[i].1.clone(), why);
                return;
            };
            if word == "--" || word == "-" {
                i += 1;
                break;
            }
            if let Some(long) = word.strip_prefix("--") {
                if matches!(long, "rcfile" | "init-file") {
                    // Sourced when the shell is interactive (`-i`).
                    if let Some((path, s, line_var)) = rest.get(i + 1) {
                        self.script(at, path, s, *line_var, &[], true, scope);
                    }
                    i += 2;
                } else {
                    i += 1;
                }
                continue;
            }
            let Some(flags) = word.strip_prefix('-').or_else(|| word.strip_prefix('+')) else {
                break;
            };
            i += 1;
            for flag in flags.chars() {
                match flag {
                    'c' => command_mode = true,
                    's' => stdin_mode = true,
                    'o' | 'O' => i += 1,
                    _ => {}
                }
            }
        }
        if command_mode {
            match rest.get(i) {
                Some((Word::Static(text), s, line_var)) => {
                    if *line_var {
                        self.dynamic(
                            s.clone(),
                            "the line given to the shell is a variable the line sets",
                        );
                    }
                    let text = text.clone();
                    let s = s.clone();
                    // `$0`, `$1`, … of the nested line are the operands after it (known when
                    // each is).
                    let mut inner = child.clone();
                    inner.positional = match &rest[i + 1..] {
                        [] => None,
                        operands => operands
                            .iter()
                            .map(|(w, _, _)| w.as_static().map(str::to_owned))
                            .collect(),
                    };
                    // Where the shell starts: after the wrappers' `cd` (`env -C DIR`).
                    inner.dir = scope.dir.clone();
                    self.nested(&text, shell, &mut inner, s);
                }
                Some((Word::Dynamic(d), _, _)) => {
                    let why = format!(
                        "the line given to the shell is computed when it runs ({})",
                        d.why
                    );
                    self.unread(d.span.clone(), why);
                }
                None => {}
            }
            return;
        }
        if !stdin_mode && let Some((path, s, line_var)) = rest.get(i) {
            self.script(at, path, s, *line_var, &rest[i + 1..], false, scope);
            return;
        }
        self.stdin_program(at, Some(shell), stdin, span, scope);
    }

    /// A shell or interpreter with no script operand: it runs what its standard input holds.
    pub(super) fn stdin_program(
        &mut self,
        at: usize,
        shell: Option<Shell>,
        stdin: &Stdin,
        span: Range<usize>,
        scope: &mut Scope,
    ) {
        let text = match stdin {
            Stdin::Text(Word::Static(text)) => text.clone(),
            Stdin::Pipe {
                text: Some(text), ..
            } => text.clone(),
            Stdin::Text(Word::Dynamic(d)) => {
                let why = format!("runs code computed when the line runs ({})", d.why);
                self.unread(d.span.clone(), why);
                return;
            }
            Stdin::File(file) => {
                let file = file.clone();
                self.script(at, &file, &span, false, &[], false, scope);
                return;
            }
            Stdin::Pipe { .. } => {
                self.unread(span, "runs the code it reads from a pipe");
                return;
            }
            Stdin::Inherited => {
                self.unread(span, "runs the code it reads from its standard input");
                return;
            }
        };
        match shell {
            Some(shell) => {
                let mut inner = scope.child();
                self.nested(&text, shell, &mut inner, span);
            }
            None => self.out.commands[at].code = Some(Word::Static(text)),
        }
    }

    /// An interpreter: its options, then its script operand, inline code, or standard input.
    pub(super) fn interpret(
        &mut self,
        at: usize,
        interp: &table::Interpreter,
        rest: &[(Word, Range<usize>, bool)],
        span: Range<usize>,
        scope: &mut Scope,
        stdin: &Stdin,
    ) {
        let mut i = 0;
        let mut inline = false;
        let mut subcommand = interp.run_subcommand;
        while i < rest.len() {
            let Some(word) = rest[i].0.as_static() else {
                break;
            };
            if word == "--" {
                i += 1;
                break;
            }
            if word == "-" && !inline {
                self.stdin_program(at, None, stdin, span, scope);
                return;
            }
            if subcommand && word == "run" {
                subcommand = false;
                i += 1;
                continue;
            }
            if !word.starts_with('-') {
                break;
            }
            subcommand = false;
            let long = word.starts_with("--");
            // `--opt=value`, or a short option with its cluster (`-Bm mod`, `-Mmod`, `-le CODE`):
            // each flag of a cluster in turn, a valued one taking the rest of the word or the
            // next word.
            let flags: Vec<(String, &str)> = if long {
                let option = word.split_once('=').map_or(word, |(o, _)| o);
                vec![(option.to_owned(), "")]
            } else {
                word[1..]
                    .char_indices()
                    .map(|(k, c)| (format!("-{c}"), &word[1 + k + c.len_utf8()..]))
                    .collect()
            };
            let mut step = 1;
            for (option, attached) in flags {
                if interp.script_options.contains(&option.as_str()) {
                    let inline_value = long && word.contains('=');
                    let value = if inline_value {
                        word.split_once('=').map(|(_, v)| v).unwrap_or("")
                    } else {
                        attached
                    };
                    let script = if value.is_empty() && !inline_value {
                        step = 2;
                        rest.get(i + 1).cloned()
                    } else {
                        Some((Word::Static(value.to_owned()), rest[i].1.clone(), rest[i].2))
                    };
                    if let Some((path, s, line_var)) = script {
                        self.script(at, &path, &s, line_var, &[], false, scope);
                    }
                    inline = true;
                    break;
                }
                if interp.attached.contains(&option.as_str()) {
                    break;
                }
                if interp.elsewhere.contains(&option.as_str()) {
                    self.dynamic(
                        rest[i].1.clone(),
                        "runs code found outside the line (a module)",
                    );
                    if !interp.options_after_inline {
                        // `python3 -m mod ARGS`: what follows is the module's.
                        return;
                    }
                    // Read on (`perl -MFile::Path -e CODE`): the option's value is skipped.
                    let inline_value = long && word.contains('=');
                    if attached.is_empty() && !inline_value {
                        step = 2;
                    }
                    break;
                }
                if interp.inline.contains(&option.as_str()) {
                    let inline_value = long && word.contains('=');
                    let code = if inline_value {
                        Some(Word::Static(
                            word.split_once('=').map_or("", |(_, v)| v).to_owned(),
                        ))
                    } else if attached.is_empty() {
                        step = 2;
                        rest.get(i + 1).map(|(w, _, _)| w.clone())
                    } else {
                        Some(Word::Static(attached.to_owned()))
                    };
                    let command = &mut self.out.commands[at];
                    // Several `-e` are one program, a line each (perl, ruby, node's last).
                    command.code = match (command.code.take(), code) {
                        (Some(Word::Static(a)), Some(Word::Static(b))) => {
                            Some(Word::Static(format!("{a}\n{b}")))
                        }
                        (Some(Word::Dynamic(d)), _) | (_, Some(Word::Dynamic(d))) => {
                            Some(Word::Dynamic(d))
                        }
                        (a, b) => b.or(a),
                    };
                    if !interp.options_after_inline {
                        return;
                    }
                    inline = true;
                    break;
                }
                if interp.valued.contains(&option.as_str()) {
                    if attached.is_empty() && !(long && word.contains('=')) {
                        step = 2;
                    }
                    break;
                }
            }
            i += step;
        }
        if inline || interp.code_operand {
            return;
        }
        match rest.get(i) {
            Some((path, s, line_var)) => {
                self.script(at, path, s, *line_var, &rest[i + 1..], false, scope);
            }
            None => self.stdin_program(at, None, stdin, span, scope),
        }
    }
}
