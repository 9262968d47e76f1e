//! Statements: lists, pipelines, subshells, branches and loops, redirections and
//! here-documents, assignments and declarations.
use super::*;

/// The most words of a `for` loop read one by one (past it, the variable is not known).
const MAX_ITEMS: usize = 16;

impl Walker<'_> {
    pub(super) fn statement_in(&mut self, node: Node, scope: &mut Scope, stdin: &Stdin) {
        match node.kind() {
            "program" | "compound_statement" => self.sequence(node, scope),
            "comment" | "heredoc_body" | "heredoc_start" | "heredoc_end" => {}
            "subshell" => {
                let mut copy = scope.clone();
                self.sequence(node, &mut copy);
            }
            "list" => self.list(node, scope, stdin, Vec::new()),
            "pipeline" => self.pipeline(node, scope, stdin, Vec::new()),
            "negated_command" => {
                let mut cursor = node.walk();
                let parts: Vec<Node> = node.named_children(&mut cursor).collect();
                for part in parts {
                    self.statement(part, scope, stdin);
                }
            }
            "redirected_statement" => self.redirected(node, scope, stdin),
            "command" => self.command(node, scope, stdin, Vec::new()),
            "variable_assignment" => self.assignment(node, scope, false),
            "variable_assignments" => {
                let mut cursor = node.walk();
                let parts: Vec<Node> = node.named_children(&mut cursor).collect();
                for part in parts {
                    self.assignment(part, scope, false);
                }
            }
            "declaration_command" => self.declaration(node, scope, stdin),
            "unset_command" => {
                let mut cursor = node.walk();
                let parts: Vec<Node> = node.named_children(&mut cursor).collect();
                for part in parts {
                    if matches!(part.kind(), "variable_name" | "word") {
                        let name = self.text(part).to_owned();
                        if !name.starts_with('-') {
                            let span = self.span(part);
                            self.setting(&name, span);
                            scope.vars.insert(name, Var::Unset);
                        }
                    }
                }
            }
            "if_statement" | "while_statement" | "until_statement" => {
                let parts = fields(node);
                let mut arm = scope.branch();
                for (field, part) in parts {
                    if field == Some("condition") {
                        // The condition runs first (a loop's at least once): the branch starts
                        // where it left off (`if cd sub; then ./x.sh; fi` runs `sub/x.sh`).
                        self.statement(part, scope, stdin);
                        arm = scope.branch();
                    } else if matches!(part.kind(), "elif_clause" | "else_clause") {
                        let mut other = scope.branch();
                        self.sequence(part, &mut other);
                        scope.merge(other);
                    } else if part.kind() == "do_group" {
                        self.sequence(part, &mut arm);
                    } else {
                        self.statement(part, &mut arm, stdin);
                    }
                }
                scope.merge(arm);
            }
            "for_statement" | "select_statement" => self.for_loop(node, scope, stdin),
            "case_statement" => {
                let parts = fields(node);
                for (field, part) in parts {
                    if field == Some("value") {
                        self.word(part, scope);
                    } else if part.kind() == "case_item" {
                        let mut arm = scope.branch();
                        let items = fields(part);
                        for (f, item) in items {
                            if f != Some("value") {
                                self.statement(item, &mut arm, stdin);
                            }
                        }
                        scope.merge(arm);
                    }
                }
            }
            "function_definition" => self.function_definition(node, scope, stdin),
            "do_group" => {
                let mut copy = scope.branch();
                self.sequence(node, &mut copy);
                scope.merge(copy);
            }
            "test_command" => {
                let mut copy = scope.branch();
                self.test_words(node, &mut copy);
                scope.merge(copy);
            }
            "c_style_for_statement" | "arithmetic_expansion" => {
                let mut copy = scope.branch();
                self.substitutions(node, &mut copy);
                if node.kind() == "c_style_for_statement"
                    && let Some(body) = node.child_by_field_name("body")
                {
                    self.statement(body, &mut copy, stdin);
                }
                scope.merge(copy);
            }
            "ERROR" => {
                let span = self.span(node);
                self.unread(span, "the line does not parse here");
                let mut copy = scope.branch();
                self.sequence(node, &mut copy);
                scope.merge(copy);
            }
            kind if !node.is_named() => {
                let _ = kind;
            }
            kind if kind.ends_with("redirect") => {
                // A redirection alone: `$(< file)` (bash reads the file), `> file` (truncates).
                self.redirections(&[node], scope, stdin);
            }
            kind => {
                let span = self.span(node);
                self.unread(span, format!("`{kind}` is not read by this model"));
                let mut copy = scope.branch();
                self.substitutions(node, &mut copy);
                scope.merge(copy);
            }
        }
        if node.is_missing() {
            let span = self.span(node);
            self.unread(span, "the line is incomplete here");
        }
    }

    /// `NAME() BODY [REDIRECTIONS]`: the body is read where it is defined, as a branch (it runs
    /// at each call). Apart from [`statement_in`](Self::statement_in), whose frame each level
    /// of nesting costs.
    #[inline(never)]
    fn function_definition(&mut self, node: Node, scope: &mut Scope, stdin: &Stdin) {
        if let Some(name) = node.child_by_field_name("name") {
            let name = self.text(name).to_owned();
            scope.functions.push(name);
        }
        if let Some(body) = node.child_by_field_name("body") {
            let mut copy = scope.branch();
            // A function's `$1`, … are the words of each call, not the line's.
            copy.positional = None;
            // A redirection on the definition applies at each call (`f() { …; } >
            // .env`).
            let redirects: Vec<Node> = {
                let mut c = node.walk();
                node.named_children(&mut c)
                    .filter(|n| n.kind().ends_with("_redirect"))
                    .collect()
            };
            let input = self.redirections(&redirects, &mut copy, stdin);
            self.statement(body, &mut copy, &input);
            scope.merge(copy);
        }
    }

    /// `for NAME in WORDS; do …; done` (and `select`): the body runs with each known word in
    /// turn (a bounded few), else with the variable not known; after it the variable is not
    /// known. Apart from [`statement_in`](Self::statement_in), whose frame each level of
    /// nesting costs.
    #[inline(never)]
    fn for_loop(&mut self, node: Node, scope: &mut Scope, stdin: &Stdin) {
        let parts = fields(node);
        let mut variable = None;
        // The words it loops over, while each is known (`None` once one is not, or
        // without `in`: `"$@"`).
        let mut items: Option<Vec<String>> = (node.kind() == "for_statement").then(Vec::new);
        let mut has_values = false;
        for (field, part) in &parts {
            match *field {
                Some("variable") => {
                    let name = self.text(*part).to_owned();
                    let span = self.span(*part);
                    self.setting(&name, span);
                    variable = Some(name);
                }
                Some("value") => {
                    has_values = true;
                    let values = self.words(*part, scope);
                    for value in values.into_iter().filter(|v| !v.vanished) {
                        match (value.word, &mut items) {
                            (Word::Static(s), Some(items)) if !value.line_var => items.push(s),
                            _ => items = None,
                        }
                    }
                }
                _ => {}
            }
        }
        let items = items.filter(|i| has_values && i.len() <= MAX_ITEMS);
        // Each known word in turn (a bounded few), else the variable not known.
        let runs: Vec<Option<String>> = match items {
            Some(items) => items.into_iter().map(Some).collect(),
            None => vec![None],
        };
        let mut after = scope.clone();
        for item in runs {
            let mut body = scope.branch();
            if let Some(name) = &variable {
                body.assign(name, item, true);
            }
            for (field, part) in &parts {
                match *field {
                    Some("variable" | "value") => {}
                    _ if part.kind() == "do_group" => self.sequence(*part, &mut body),
                    _ => self.statement(*part, &mut body, stdin),
                }
            }
            after.merge(body);
        }
        if let Some(name) = &variable {
            after.assign(name, None, true);
        }
        *scope = after;
    }

    /// The words of a `[[ … ]]` or `(( … ))`, read as words (`[[ 'a[$(x)]' -eq 0 ]]` runs
    /// `x` when bash evaluates the operand as arithmetic), with their substitutions.
    pub(super) fn test_words(&mut self, node: Node, scope: &mut Scope) {
        if !self.enter(node) {
            return;
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            match child.kind() {
                "word"
                | "string"
                | "raw_string"
                | "ansi_c_string"
                | "translated_string"
                | "concatenation"
                | "simple_expansion"
                | "expansion"
                | "command_substitution"
                | "process_substitution"
                | "number" => {
                    self.word(child, scope);
                }
                "regex" | "extglob_pattern" | "test_operator" | "variable_name" => {}
                "ERROR" => {
                    let span = self.span(child);
                    self.unread(span, "the line does not parse here");
                }
                _ => self.test_words(child, scope),
            }
        }
        self.leave();
    }

    /// Walks the command substitutions found anywhere under `node`.
    pub(crate) fn substitutions(&mut self, node: Node, scope: &mut Scope) {
        if self.enter(node) {
            self.substitutions_in(node, scope);
            self.leave();
        }
    }

    pub(super) fn substitutions_in(&mut self, node: Node, scope: &mut Scope) {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            match child.kind() {
                "command_substitution" | "process_substitution" => {
                    if child.kind() == "process_substitution" && self.shell == Shell::Posix {
                        let span = self.span(child);
                        self.dynamic(span, "`<(…)`, which a POSIX sh does not read");
                    }
                    let mut copy = scope.clone();
                    self.sequence(child, &mut copy);
                }
                "ERROR" => {
                    let span = self.span(child);
                    self.unread(span, "the line does not parse here");
                }
                _ => self.substitutions(child, scope),
            }
        }
    }

    pub(super) fn redirected(&mut self, node: Node, scope: &mut Scope, stdin: &Stdin) {
        let body = node.child_by_field_name("body");
        // Text between the command and its first redirection that the grammar skipped without
        // an error (`python3 - <<EOF` loses its `-`): plain words are the command's; anything
        // else is not read.
        if let Some(b) = body {
            let next = {
                let mut c = node.walk();
                node.children(&mut c)
                    .find(|n| n.start_byte() >= b.end_byte())
            };
            if let Some(next) = next {
                let gap = self.src.get(b.end_byte()..next.start_byte()).unwrap_or("");
                let plain = |w: &str| {
                    w.chars().all(|c| {
                        c.is_ascii_alphanumeric()
                            || matches!(c, '-' | '_' | '.' | '/' | '=' | ':' | ',')
                    })
                };
                let words: Vec<&str> = gap.split_whitespace().collect();
                if !words.is_empty() {
                    if b.kind() == "command" && words.iter().all(|w| plain(w)) {
                        self.dropped = words.into_iter().map(str::to_owned).collect();
                    } else {
                        let span = self.span(node);
                        self.unread(span, "text the grammar skips");
                    }
                }
            }
        }
        let mut redirects = Vec::new();
        let mut after = Vec::new();
        // Redirections written after a here-document's delimiter (`cat <<EOF > f`), which the
        // grammar hangs inside it: the command's, after the here-document.
        let mut hung = Vec::new();
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            if Some(child) == body {
                continue;
            }
            if child.kind().ends_with("redirect") {
                redirects.push(child);
                // What a here-document's line continues with (`cat <<EOF | sh`) sits inside it.
                let mut c = child.walk();
                for part in child.named_children(&mut c) {
                    if child.kind() == "heredoc_redirect" && part.kind().ends_with("_redirect") {
                        hung.push(part);
                        if part.has_error() {
                            // `cat <<EOF > f; rm x`: the grammar reads `; rm x` as more
                            // targets of `> f`.
                            let span = self.span(part);
                            let why = "text after a here-document's delimiter that the grammar \
                                       does not parse";
                            self.unread(span, why);
                        }
                    } else if child.kind() == "heredoc_redirect"
                        && matches!(
                            part.kind(),
                            "pipeline"
                                | "list"
                                | "command"
                                | "redirected_statement"
                                | "subshell"
                                | "compound_statement"
                        )
                    {
                        after.push(part);
                    }
                }
            }
        }
        redirects.extend(hung);
        let first = self.out.commands.len();
        let mut copy;
        let scope_for_body: &mut Scope = if after.is_empty() {
            scope
        } else {
            copy = scope.clone();
            &mut copy
        };
        match body {
            Some(b) if b.kind() == "pipeline" && !redirects.is_empty() => {
                // `a | b > f`: the redirection is `b`'s, wherever the grammar hangs it.
                self.pipeline(b, scope_for_body, stdin, redirects);
            }
            Some(b) if b.kind() == "list" => {
                // The grammar hangs `a && b > f`'s redirection on the list; the shell on `b`.
                self.list(b, scope_for_body, stdin, redirects);
            }
            Some(b) if b.kind() == "command" => {
                self.command(b, scope_for_body, stdin, redirects);
            }
            Some(b) => {
                let input = self.redirections(&redirects, scope_for_body, stdin);
                self.statement(b, scope_for_body, &input);
            }
            None => {
                self.redirections(&redirects, scope_for_body, stdin);
            }
        }
        for part in after {
            if part.kind() == "pipeline" {
                let mut c = part.walk();
                let cmds: Vec<Node> = part.named_children(&mut c).collect();
                let mut feed = self.pipe_from(first);
                for cmd in cmds {
                    let mut copy = scope.clone();
                    let next = self.out.commands.len();
                    self.statement(cmd, &mut copy, &feed);
                    feed = self.pipe_from(next);
                }
            } else {
                let mut branch = scope.branch();
                self.statement(part, &mut branch, &Stdin::Inherited);
                scope.merge(branch);
            }
        }
    }

    /// `a | b | c`: each part in a copy of the scope, each after the first reading a pipe;
    /// `tail` are redirections of the last part.
    pub(super) fn pipeline<'t>(
        &mut self,
        node: Node<'t>,
        scope: &mut Scope,
        stdin: &Stdin,
        tail: Vec<Node<'t>>,
    ) {
        let mut cursor = node.walk();
        let parts: Vec<Node> = node.named_children(&mut cursor).collect();
        // The grammar reads `a && b > f | c` as `(a && b > f) | c`; the shell reads
        // `a && (b > f | c)`. A list is never a bare part of a pipeline in the shell's grammar,
        // so its presence here is that misreading.
        let misread = parts.iter().any(|p| {
            p.kind() == "list"
                || (p.kind() == "redirected_statement"
                    && p.child_by_field_name("body")
                        .is_some_and(|b| b.kind() == "list"))
        });
        if misread {
            let span = self.span(node);
            self.dynamic(
                span,
                "a pipeline after `&&` or `||` with a redirection inside, which the grammar \
                 groups differently from the shell",
            );
        }
        let last = parts.len().saturating_sub(1);
        let mut tail = Some(tail);
        let mut feed = stdin.clone();
        for (i, part) in parts.iter().enumerate() {
            let mut copy = scope.clone();
            let input = feed;
            let first = self.out.commands.len();
            let redirects = if i == last {
                tail.take().unwrap_or_default()
            } else {
                Vec::new()
            };
            match part.kind() {
                _ if redirects.is_empty() => self.statement(*part, &mut copy, &input),
                "command" => self.command(*part, &mut copy, &input, redirects),
                _ => {
                    let input = self.redirections(&redirects, &mut copy, &input);
                    self.statement(*part, &mut copy, &input);
                }
            }
            feed = self.pipe_from(first);
        }
    }

    /// The input of the part of a pipeline after the commands from `first` on.
    pub(super) fn pipe_from(&self, first: usize) -> Stdin {
        let from = first..self.out.commands.len();
        let text = self.output(from.clone());
        Stdin::Pipe { from, text }
    }

    /// What the commands `from` write, when the model knows it: `echo` and `printf` of static
    /// words, `cat` of a text it is given.
    fn output(&self, from: Range<usize>) -> Option<String> {
        let [command] = &self.out.commands[from] else {
            return None;
        };
        if !command.wrappers.is_empty() {
            return None;
        }
        let args: Vec<&str> = command
            .args
            .iter()
            .map(Word::as_static)
            .collect::<Option<_>>()?;
        match command.program.as_static()? {
            "echo" => echo(command.shell, &args),
            "printf" => printf(&args),
            "cat" if args.iter().all(|a| *a == "-") => match &command.input {
                Input::Text(Word::Static(text)) => Some(text.clone()),
                Input::Pipe { text, .. } => text.clone(),
                _ => None,
            },
            _ => None,
        }
    }

    /// `a && b`, `a || b` (nested to the left: `(a && b) || c`): the first part runs, the
    /// others are branches. A run of `&&` is one branch, each part seeing what the parts
    /// before it did (`cd x && rm -rf *` runs `rm` in `x` if it runs at all); a part after
    /// `||` sees what any part before it may have done. `tail` are redirections of the last
    /// command.
    pub(super) fn list<'t>(
        &mut self,
        node: Node<'t>,
        scope: &mut Scope,
        stdin: &Stdin,
        tail: Vec<Node<'t>>,
    ) {
        // The operands, left to right, each with the operator before it.
        let mut parts: Vec<(Node<'t>, bool)> = Vec::new();
        let mut at = node;
        let mut levels = 0;
        loop {
            let mut cursor = at.walk();
            let children: Vec<Node<'t>> = at.children(&mut cursor).collect();
            let and = children
                .iter()
                .any(|c| !c.is_named() && self.text(*c) == "&&");
            let named: Vec<Node<'t>> = children.into_iter().filter(|c| c.is_named()).collect();
            let [left, right] = named.as_slice() else {
                parts.extend(named.iter().rev().map(|n| (*n, false)));
                break;
            };
            parts.push((*right, and));
            levels += 1;
            if left.kind() == "list" && levels < 64 {
                at = *left;
            } else {
                parts.push((*left, false));
                break;
            }
        }
        parts.reverse();
        let Some(((first, _), rest)) = parts.split_first() else {
            return;
        };
        self.statement(*first, scope, stdin);
        let mut chain: Option<Scope> = None;
        let last = rest.len().saturating_sub(1);
        let mut tail = Some(tail);
        for (i, (part, and)) in rest.iter().enumerate() {
            let mut branch = match (and, chain.take()) {
                (true, Some(chain)) => chain,
                (_, previous) => {
                    if let Some(previous) = previous {
                        scope.merge(previous);
                    }
                    scope.branch()
                }
            };
            let tail = if i == last {
                tail.take().unwrap_or_default()
            } else {
                Vec::new()
            };
            match part.kind() {
                _ if tail.is_empty() => self.statement(*part, &mut branch, stdin),
                "command" => self.command(*part, &mut branch, stdin, tail),
                _ => {
                    let input = self.redirections(&tail, &mut branch, stdin);
                    self.statement(*part, &mut branch, &input);
                }
            }
            if *and {
                chain = Some(branch);
            } else {
                scope.merge(branch);
            }
        }
        if let Some(chain) = chain {
            scope.merge(chain);
        }
    }

    /// Records `redirects`, and says where standard input then comes from.
    pub(super) fn redirections(
        &mut self,
        redirects: &[Node],
        scope: &mut Scope,
        stdin: &Stdin,
    ) -> Stdin {
        let mut input = stdin.clone();
        for node in redirects {
            let span = self.span(*node);
            let (kind, target) = match node.kind() {
                "file_redirect" => {
                    let op = {
                        let mut c = node.walk();
                        node.children(&mut c)
                            .find(|n| !n.is_named())
                            .map(|n| self.text(n).to_owned())
                            .unwrap_or_default()
                    };
                    let dest = node.child_by_field_name("destination");
                    let target = match dest {
                        Some(d) => self.word(d, scope).word,
                        None => Word::Static(String::new()),
                    };
                    let duplicate = matches!(op.as_str(), ">&" | "<&" | ">&-" | "<&-")
                        && target
                            .as_static()
                            .is_some_and(|t| t == "-" || t.chars().all(|c| c.is_ascii_digit()));
                    let kind = match op.as_str() {
                        _ if duplicate => RedirectKind::Duplicate,
                        ">&-" | "<&-" => RedirectKind::Duplicate,
                        "<" => RedirectKind::Read,
                        "<&" => RedirectKind::Read,
                        ">>" | "&>>" => RedirectKind::Append,
                        "<>" => RedirectKind::ReadWrite,
                        _ => RedirectKind::Write,
                    };
                    if self.shell == Shell::Posix && op.starts_with("&>") {
                        self.dynamic(
                            span.clone(),
                            "`&>`, which a POSIX sh reads as `&` (run in the background) then `>`",
                        );
                    }
                    let fd = node
                        .child_by_field_name("descriptor")
                        .map(|d| self.text(d).to_owned());
                    if kind == RedirectKind::Read && fd.as_deref().is_none_or(|fd| fd == "0") {
                        input = Stdin::File(target.clone());
                    }
                    (kind, target)
                }
                "heredoc_redirect" => {
                    let target = self.heredoc(*node, scope);
                    input = Stdin::Text(target.clone());
                    (RedirectKind::HereDocument, target)
                }
                "herestring_redirect" if self.shell == Shell::Posix => {
                    let d = self.unread(span.clone(), "`<<<`, which a POSIX sh does not read");
                    input = Stdin::Text(Word::Dynamic(d.clone()));
                    (RedirectKind::HereString, Word::Dynamic(d))
                }
                "herestring_redirect" => {
                    let mut c = node.walk();
                    let value = node.named_children(&mut c).last();
                    let target = match value {
                        Some(v) => self.word(v, scope).word,
                        None => Word::Static(String::new()),
                    };
                    let target = match target {
                        Word::Static(s) => Word::Static(format!("{s}\n")),
                        d => d,
                    };
                    input = Stdin::Text(target.clone());
                    (RedirectKind::HereString, target)
                }
                other => {
                    let d =
                        self.dynamic(span.clone(), format!("`{other}` is not read by this model"));
                    (RedirectKind::Write, Word::Dynamic(d))
                }
            };
            self.out.redirects.push(Redirect {
                kind,
                target,
                dir: scope.dir.clone(),
                span,
            });
        }
        input
    }

    /// A here-document's body: static when its delimiter is quoted or it holds no expansion.
    pub(super) fn heredoc(&mut self, node: Node, scope: &mut Scope) -> Word {
        let mut c = node.walk();
        let parts: Vec<Node> = node.named_children(&mut c).collect();
        let quoted = parts
            .iter()
            .find(|p| p.kind() == "heredoc_start")
            .is_some_and(|s| self.text(*s).contains(['\'', '"', '\\']));
        let Some(body) = parts.iter().find(|p| p.kind() == "heredoc_body") else {
            return Word::Static(String::new());
        };
        let text = self.text(*body).to_owned();
        if quoted || !text.contains(['$', '`', '\\']) {
            return Word::Static(text);
        }
        let mut copy = scope.clone();
        self.substitutions(*body, &mut copy);
        let span = self.span(*body);
        Word::Dynamic(Dynamic {
            span,
            why: "a here-document with expansions, expanded when the line runs".into(),
            parts: vec![crate::Part::Unknown {
                name: None,
                split: false,
            }],
        })
    }

    pub(super) fn assignment(&mut self, node: Node, scope: &mut Scope, export: bool) {
        let Some(name) = node.child_by_field_name("name") else {
            return;
        };
        self.subscript(name, scope);
        let name = self.text(name).to_owned();
        let span = self.span(node);
        self.setting(&name, span);
        let value = match node.child_by_field_name("value") {
            Some(v) => self.assignment_value(v, scope),
            None => Some(String::new()),
        };
        scope.assign(&name, value, true);
        if export
            && let Some(Var::Known { exported, .. } | Var::Unknown { exported }) =
                scope.vars.get_mut(&name)
        {
            *exported = true;
        }
    }

    /// The index of an assigned array element (`a[$(x)]=1`), when `name` is one: expanded
    /// like a word, its substitutions walked (bash runs them, then evaluates the index as
    /// arithmetic).
    pub(super) fn subscript(&mut self, name: Node, scope: &mut Scope) {
        if name.kind() == "subscript"
            && let Some(index) = name.child_by_field_name("index")
        {
            self.word(index, scope);
        }
    }

    /// An assignment's value: expanded like a word, but never split nor globbed.
    pub(super) fn assignment_value(&mut self, node: Node, scope: &mut Scope) -> Option<String> {
        let value = self.word_in(node, scope, true);
        match value.word {
            Word::Static(s) => Some(s),
            Word::Dynamic(_) => None,
        }
    }

    /// `export`, `declare`, `local`, `readonly`, `typeset`: the variables they set, and the
    /// builtin itself as a command (`export -p` prints the environment).
    pub(super) fn declaration(&mut self, node: Node, scope: &mut Scope, stdin: &Stdin) {
        let keyword = node
            .child(0)
            .map(|k| self.text(k).to_owned())
            .unwrap_or_default();
        let export = keyword == "export";
        let mut cursor = node.walk();
        let parts: Vec<Node> = node.named_children(&mut cursor).collect();
        let mut args = Vec::new();
        for part in parts {
            match part.kind() {
                "variable_assignment" => {
                    self.assignment(part, scope, export);
                    args.push(Word::Static(self.text(part).to_owned()));
                }
                "variable_name" if !export => {
                    // `declare PATH`, `local PATH`: declared, and unset in a function.
                    let name = self.text(part).to_owned();
                    let span = self.span(part);
                    self.setting(&name, span);
                    args.push(Word::Static(name));
                }
                "variable_name" => {
                    let name = self.text(part).to_owned();
                    if let Some(Var::Known { exported, .. } | Var::Unknown { exported }) =
                        scope.vars.get_mut(&name)
                    {
                        *exported = true;
                    }
                    args.push(Word::Static(name));
                }
                _ => {
                    let value = self.word(part, scope);
                    args.push(value.word);
                }
            }
        }
        self.out.commands.push(Command {
            program: Word::Static(keyword),
            args,
            dir: scope.dir.clone(),
            shell: self.shell,
            wrappers: Vec::new(),
            scripts: Vec::new(),
            conditional: scope.conditional,
            input: stdin.clone(),
            redirects: self.redirecting.clone(),
            code: None,
            span: self.span(node),
        });
    }
}

/// What `echo ARGS` writes under `shell`: bash's `echo` reads `-n`, `-e`, `-E` and writes
/// backslashes as they are unless `-e`; dash's reads `-n` and always decodes backslashes.
/// `None` where a backslash would be decoded.
fn echo(shell: Shell, args: &[&str]) -> Option<String> {
    let mut newline = true;
    let mut decode = shell == Shell::Posix;
    let mut rest = args;
    while let Some((first, tail)) = rest.split_first() {
        let flags = first.strip_prefix('-').filter(|f| !f.is_empty());
        let known = match shell {
            Shell::Bash => flags.is_some_and(|f| f.chars().all(|c| matches!(c, 'n' | 'e' | 'E'))),
            Shell::Posix => flags == Some("n"),
        };
        if !known {
            break;
        }
        for c in flags.unwrap_or("").chars() {
            match c {
                'n' => newline = false,
                'e' => decode = true,
                _ => decode = shell == Shell::Posix,
            }
        }
        rest = tail;
    }
    let text = rest.join(" ");
    if decode && text.contains('\\') {
        return None;
    }
    Some(if newline { format!("{text}\n") } else { text })
}

/// What `printf FORMAT ARGS` writes, for a format of text, `%s`, `%%` and the escapes `\n`,
/// `\t`, `\\`; `None` for anything else.
fn printf(args: &[&str]) -> Option<String> {
    let args = match args.first() {
        Some(&"--") => &args[1..],
        _ => args,
    };
    let (format, mut values) = args.split_first()?;
    if format.starts_with('-') {
        return None;
    }
    let mut out = String::new();
    // The format is used again while values are left, as printf does (bounded by them).
    loop {
        let mut used = 0;
        let mut chars = format.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next()? {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    '\\' => out.push('\\'),
                    _ => return None,
                },
                '%' => match chars.next()? {
                    '%' => out.push('%'),
                    's' => {
                        if let Some((value, tail)) = values.split_first() {
                            out.push_str(value);
                            values = tail;
                        }
                        used += 1;
                    }
                    _ => return None,
                },
                c => out.push(c),
            }
        }
        if values.is_empty() || used == 0 {
            return Some(out);
        }
    }
}
