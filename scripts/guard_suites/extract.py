#!/usr/bin/env python3
"""Reads other projects' test suites for the jobs of two built-in guards and writes their cases
as JSON lines, one case a line:

    {"suite": "dcg", "source": "tests/corpus/true_positives/rm_destructive.toml:7",
     "guard": "destructive-commands", "input": "rm -rf /", "expect": "block", "note": "..."}

`guard` is `destructive-commands` (the input is a shell command line) or `secrets` (the input is
text a tool could return). `expect` is the suite's own expectation: `block` (for secrets: block
or mask) or `allow` (leave it alone). `note` says where in the suite the case sits (a category,
a test's name, a rule id), so that `scope.toml` can name groups of cases.

Each suite's directory is given at run time (a checkout of that project), any subset:

    python3 scripts/guard_suites/extract.py --dcg DIR --karanb192 DIR --docker-agent DIR \\
        --detect-secrets DIR --gitleaks DIR [--disler DIR] > cases.jsonl

What is read, and the rules kept:

- Only what a suite states: a case is written with the expectation its own file gives (an
  `expected` field, a `BLOCK:` prefix, the assertion the test makes on that literal). A case
  whose expectation depends on a setting other than the suite's default, or is not a
  block/allow decision (a `WARN:` line, an "unknown" label), is not written.
- Literals only: a case built by code is written when the code is a plain string operation
  (concatenation, `format`, a documented templating helper); a case made from random data (gitleaks'
  `secrets.NewSecret`) is counted and left out.
- Duplicates within a suite (same guard, input and expectation) are written once, at their first
  source. The same input with both expectations is kept twice and reported.

A summary per suite (cases written, duplicates, cases not written and why) goes to stderr.
Python 3.11 or later, standard library only.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import textwrap
import tomllib
from collections import Counter, defaultdict
from pathlib import Path

DESTRUCTIVE = "destructive-commands"
SECRETS = "secrets"


class Suite:
    """The cases of one suite, and the counts of what was not written."""

    def __init__(self, name: str, root: Path):
        self.name = name
        self.root = root
        self.cases: list[dict] = []
        self.skipped: Counter[str] = Counter()

    def add(self, path: Path, line: int, guard: str, text: str, expect: str, note: str = ""):
        assert expect in ("block", "allow"), expect
        case = {
            "suite": self.name,
            "source": f"{path.relative_to(self.root).as_posix()}:{line}",
            "guard": guard,
            "input": text,
            "expect": expect,
        }
        if note:
            case["note"] = note
        self.cases.append(case)

    def skip(self, why: str, count: int = 1):
        self.skipped[why] += count


# --------------------------------------------------------------------------------------------
# dcg (Dicklesworthstone/destructive_command_guard)
# --------------------------------------------------------------------------------------------

DCG_DECISION = {"deny": "block", "allow": "allow"}


def dcg(root: Path) -> Suite:
    suite = Suite("dcg", root)
    corpus = root / "tests" / "corpus"
    for path in sorted(corpus.rglob("*.toml")):
        dcg_corpus_file(suite, path)
    commands = root / "tests" / "e2e" / "fixtures" / "commands"
    for path in sorted(commands.glob("*.txt")):
        dcg_fixture_file(suite, path)
    tests = root / "tests"
    rust_files = sorted(
        p
        for p in tests.glob("*.rs")
        if re.match(r"(repro_|regression_|security_regressions|git_bypass|heredoc_pack_gap)", p.name)
        and p.name != "regression_corpus.rs"
    )
    for path in rust_files:
        dcg_rust_tests(suite, path)
    return suite


def dcg_corpus_file(suite: Suite, path: Path):
    """`[[case]]` tables: `command` with `expected` (the regression corpus) or
    `expected_decision` (the canonical corpus); `hook_json` inputs are not commands."""
    text = path.read_text(encoding="utf-8")
    data = tomllib.loads(text)
    lines = text.splitlines()
    # The n-th `[[case]]` table of the parsed file is the n-th uncommented `[[case]]` header.
    headers = [i for i, l in enumerate(lines) if l.strip() == "[[case]]"]
    category = path.relative_to(suite.root / "tests" / "corpus").with_suffix("").as_posix()
    for index, case in enumerate(data.get("case", [])):
        header = headers[index]
        line = header + 1
        for j in range(header, min(header + 12, len(lines))):
            if lines[j].lstrip().startswith("command"):
                line = j + 1
                break
        if case.get("input_kind", "command") != "command" or "command" not in case:
            suite.skip("dcg: a raw hook payload, not a command line")
            continue
        decision = case.get("expected", case.get("expected_decision"))
        if decision not in DCG_DECISION:
            suite.skip(f"dcg: expectation `{decision}` is not block or allow")
            continue
        note = category
        if case.get("description"):
            note += f": {case['description']}"
        elif case.get("id"):
            note += f": {case['id']}"
        suite.add(path, line, DESTRUCTIVE, case["command"], DCG_DECISION[decision], note)


def dcg_fixture_file(suite: Suite, path: Path):
    """One command a line; `#` comments. `dangerous.txt` and `safe.txt` hold bare commands
    (block and allow); the others prefix each with `BLOCK:`, `ALLOW:` or `WARN:`.
    `heredocs.txt` writes a newline as `\\n` (its header says so). In `edge_cases.txt` a here-document
    opened on a prefixed line runs to its delimiter line, as the file lays it out."""
    lines = path.read_text(encoding="utf-8").splitlines()
    name = path.stem
    i = 0
    while i < len(lines):
        raw = lines[i]
        number = i + 1
        i += 1
        if raw.startswith("#") or not raw.strip() and not raw.startswith(("BLOCK:", "ALLOW:")):
            continue
        match = re.match(r"^(BLOCK|ALLOW|WARN):(.*)$", raw)
        if match:
            verdict, command = match.group(1), match.group(2)
        elif name in ("dangerous", "safe"):
            verdict, command = ("BLOCK" if name == "dangerous" else "ALLOW"), raw
        else:
            suite.skip(f"dcg: a line of {path.name} with no BLOCK/ALLOW prefix")
            continue
        if name == "heredocs":
            command = unescape_fixture(command)
        elif name == "edge_cases":
            heredoc = re.search(r"<<-?\s*['\"]?(\w+)['\"]?\s*$", command)
            if heredoc:
                delimiter = heredoc.group(1)
                body = []
                while i < len(lines):
                    body.append(lines[i])
                    i += 1
                    if lines[i - 1].strip() == delimiter:
                        break
                command = "\n".join([command] + body)
        if verdict == "WARN":
            suite.skip("dcg: a WARN line (neither block nor allow)")
            continue
        suite.add(path, number, DESTRUCTIVE, command, verdict.lower(), f"e2e/{name}")


def unescape(body: str, simple: dict, longer=None, unknown: str = "raise") -> str:
    """`body` with its backslash escapes read: `simple` maps the character after a backslash to
    what it stands for; `longer(body, i)`, when given, reads a longer escape at `i` (the
    backslash) and returns what it stands for and its length, or `None`; any other escape keeps
    its backslash (`unknown="keep"`), drops it (`"drop"`) or is an error (`"raise"`)."""
    out = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\" or i + 1 == len(body):
            out.append(c)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in simple:
            out.append(simple[nxt])
            i += 2
            continue
        read = longer(body, i) if longer else None
        if read is not None:
            out.append(read[0])
            i += read[1]
        elif unknown == "keep":
            out.append(c)
            i += 1
        elif unknown == "drop":
            out.append(nxt)
            i += 2
        else:
            raise ValueError(f"unknown escape \\{nxt} in {body[:60]!r}")
    return "".join(out)


def unescape_fixture(text: str) -> str:
    """`\\n`, `\\t` and `\\\\` of dcg's one-line fixtures; any other backslash stays."""
    return unescape(text, {"n": "\n", "t": "\t", "\\": "\\"}, unknown="keep")


RUST_STRING = re.compile(r'r(#*)"(.*?)"\1|"((?:[^"\\]|\\.)*)"', re.S)


def rust_escape(body: str, i: int):
    """A line continuation (the newline and the next line's indent are dropped), `\\x41` or
    `\\u{41}` at `i`."""
    nxt = body[i + 1]
    if nxt == "\n":
        j = i + 2
        while j < len(body) and body[j] in " \t\n\r":
            j += 1
        return "", j - i
    if nxt == "x":
        return chr(int(body[i + 2 : i + 4], 16)), 4
    if nxt == "u":
        end = body.index("}", i)
        return chr(int(body[i + 3 : end], 16)), end + 1 - i
    return None


def rust_unescape(body: str) -> str:
    simple = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}
    return unescape(body, simple, rust_escape)


def rust_literal(match: re.Match) -> str:
    if match.group(2) is not None:
        return match.group(2)
    return rust_unescape(match.group(3))


# The calls whose first string argument is a command a test evaluates, and what a test asserts
# on the decision. A literal's expectation is the first assertion after it in its test.
DCG_EVAL_CALLS = re.compile(r"\b(evaluate_command|check_blocked|run_hook|evaluate)\(\s*$")
DCG_ASSERT = re.compile(
    r"(?P<helper>\bcheck_blocked\()|assert!\(\s*(?:(?P<deny>\w+\.is_denied\(\)|evaluate\(|\w+\.contains\(\"deny\"\)"
    r"|\w+\.decision\s*!=\s*EvaluationDecision::Allow)|(?P<allow>\w+\.is_allowed\(\)))"
)


def blank_rust_comments(source: str) -> str:
    """`source` with its `//` and `/* */` comments turned into spaces (newlines kept), so that a
    command quoted in a comment is not read as a case; string literals are left as they are."""
    out = list(source)
    i = 0
    n = len(source)
    while i < n:
        raw = re.match(r'r(#*)"', source[i : i + 260]) if source[i] == "r" and (i == 0 or not (source[i - 1].isalnum() or source[i - 1] == "_")) else None
        if raw:
            close = '"' + raw.group(1)
            end = source.find(close, i + len(raw.group()))
            i = (end + len(close)) if end >= 0 else n
        elif source[i] == '"':
            i += 1
            while i < n and source[i] != '"':
                i += 2 if source[i] == "\\" else 1
            i += 1
        elif source.startswith("//", i):
            while i < n and source[i] != "\n":
                out[i] = " "
                i += 1
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            for j in range(i, end):
                if out[j] != "\n":
                    out[j] = " "
            i = end
        elif source[i] == "'" and re.match(r"'(?:[^'\\]|\\.)'", source[i : i + 4]):
            i += len(re.match(r"'(?:[^'\\]|\\.)'", source[i : i + 4]).group())
        else:
            i += 1
    return "".join(out)


def dcg_rust_tests(suite: Suite, path: Path):
    """The decisions a regression test asserts: a command literal (`let cmd = "…"`, the first
    argument of `evaluate_command`/`check_blocked`/`run_hook`/`evaluate`, the command of
    `assert_blocks_with_pattern`, the items of a `vec!` of commands) and the first assertion
    after it (`is_denied()`, `is_allowed()`, `check_blocked`, `contains("deny")`). Tests of the
    tokenizer, the span classifier or the heredoc extractor assert no decision and are not
    read. Comments are blanked first: a command quoted in a comment is no case."""
    source = blank_rust_comments(path.read_text(encoding="utf-8"))
    starts = [m.start() for m in re.finditer(r"#\[test\]", source)]
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(source)
        body = source[start:end]
        name = re.search(r"fn\s+(\w+)", body)
        test = name.group(1) if name else "?"
        decides = re.search(
            r"evaluate_command|check_blocked|run_hook|evaluate\(|assert_blocks_with_pattern", body
        )
        if not decides:
            suite.skip("dcg: a test of an internal step (no decision asserted)")
            continue
        for match in RUST_STRING.finditer(body):
            before = body[: match.start()]
            tail = before[-80:]
            is_command = (
                re.search(r"let\s+(?:cmd\w*|command\w*|bypass_cmd)\s*=\s*$", tail)
                or DCG_EVAL_CALLS.search(tail)
                or re.search(r"assert_blocks_with_pattern\(\s*&\w+,\s*$", tail)
                or in_commands_vec(before)
            )
            if not is_command:
                continue
            text = rust_literal(match)
            verdict = DCG_ASSERT.search(body, match.end())
            if re.search(r"assert_blocks_with_pattern\(\s*&\w+,\s*$", tail) or re.search(
                r"check_blocked\(\s*$", tail
            ):
                expect = "block"
            elif verdict is None:
                suite.skip("dcg: a command literal with no decision asserted after it")
                continue
            else:
                expect = "allow" if verdict.group("allow") else "block"
            line = suite_line(source, start + match.start())
            suite.add(path, line, DESTRUCTIVE, text, expect, f"{path.stem}::{test}")


def in_commands_vec(before: str) -> bool:
    """Whether the text before a literal is inside an open `let …commands = vec![`."""
    opened = before.rfind("vec![")
    if opened < 0 or "]" in before[opened:]:
        return False
    return re.search(r"let\s+\w*commands\w*\s*=\s*$", before[:opened]) is not None


def suite_line(source: str, offset: int) -> int:
    return source.count("\n", 0, offset) + 1


# --------------------------------------------------------------------------------------------
# karanb192/claude-code-hooks
# --------------------------------------------------------------------------------------------

JS_STRING = r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\""


def js_unescape(literal: str) -> str:
    """The text of a JavaScript string literal (quotes included)."""
    return unescape(literal[1:-1], {"n": "\n", "t": "\t", "r": "\r", "0": "\0"}, unknown="drop")


def karanb192(root: Path) -> Suite:
    """The unit tests of two plugins: block-dangerous-commands (`shouldBlock`, `shouldAllow`,
    the `safeCommands` list) and protect-secrets' shell commands (`bashBlocked`,
    `bashAllowed`, the `safeCmds` list). Both run at the plugins' default level, `high`: a case
    tested at another level is not written. protect-secrets' file-path cases (`fileBlocked`,
    `fileAllowed`: a Read/Edit/Write path) are not shell commands and are not written."""
    suite = Suite("karanb192", root)
    plugins = root / "plugins"
    files = [
        plugins / "block-dangerous-commands" / "tests" / "block-dangerous-commands.test.js",
        plugins / "protect-secrets" / "tests" / "protect-secrets.test.js",
    ]
    call = re.compile(
        rf"\b(shouldBlock|shouldAllow|bashBlocked|bashAllowed|fileBlocked|fileAllowed)\(\s*"
        rf"(?P<cmd>{JS_STRING})(?P<rest>[^)]*)\)"
    )
    for path in files:
        if not path.exists():
            print(f"karanb192: {path} is missing", file=sys.stderr)
            continue
        plugin = path.parent.parent.name
        lines = path.read_text(encoding="utf-8").splitlines()
        in_list = False
        for number, line in enumerate(lines, 1):
            if re.search(r"const\s+(safeCommands|safeCmds)\s*=\s*\[", line):
                in_list = True
            if in_list:
                for literal in re.findall(JS_STRING, line.split("=", 1)[-1]):
                    suite.add(path, number, DESTRUCTIVE, js_unescape(literal), "allow",
                              f"{plugin}: safe commands")
                if "];" in line:
                    in_list = False
                continue
            for m in call.finditer(line):
                fn = m.group(1)
                if fn.startswith("file"):
                    suite.skip("karanb192: a file-tool path, not a shell command")
                    continue
                args = re.findall(JS_STRING, m.group("rest"))
                levels = [js_unescape(a) for a in args if js_unescape(a) in ("critical", "high", "strict")]
                level = levels[0] if levels else None
                if level not in (None, "high"):
                    suite.skip(f"karanb192: a case tested at level `{level}`, not the default")
                    continue
                title = re.search(r"it\((" + JS_STRING + ")", line)
                note = f"{plugin}: {js_unescape(title.group(1))}" if title else plugin
                expect = "block" if fn in ("shouldBlock", "bashBlocked") else "allow"
                suite.add(path, number, DESTRUCTIVE, js_unescape(m.group("cmd")), expect, note)
    return suite


# --------------------------------------------------------------------------------------------
# disler/claude-code-hooks-mastery
# --------------------------------------------------------------------------------------------


def disler(root: Path) -> Suite:
    """disler's pre_tool_use hook has no tests: its code states regular expressions (every
    `rm` with `-r` and `-f` in any order, any recursive `rm` near `/`, `~`, `*`, `.`) and no
    command with an expected decision. Nothing is written; the summary says so."""
    suite = Suite("disler", root)
    hook = root / ".claude" / "hooks" / "pre_tool_use.py"
    if hook.exists():
        suite.skip("disler: the hook's checks are regular expressions, not cases (no test file)")
    else:
        print(f"disler: {hook} is missing", file=sys.stderr)
    return suite


# --------------------------------------------------------------------------------------------
# docker-agent (docker/docker-agent): the safer_shell builtin and the pkg/safety classifier
# --------------------------------------------------------------------------------------------

GO_RAW = r"`[^`]*`"
GO_STR = r'"(?:[^"\\\n]|\\.)*"'


def docker_agent(root: Path) -> Suite:
    """The classifier's test tables. A command it labels destructive (any blast radius: low,
    medium or high) is `block`; one it labels safe is `allow`; a command it labels unknown, or
    of which a test only says "not safe", has no expectation and is not written. The
    `Label*`/`CommandArg`/pattern-helper tests carry no command decision."""
    suite = Suite("docker-agent", root)
    files = {
        "pkg/hooks/builtins/safer_shell_test.go": {
            "TestSaferShell_MatchesDestructivePatterns": "struct-radius",
            "TestSaferShell_SafeCommandsProduceSafeRadius": "allow",
            "TestSaferShell_CompoundShellRadius": "struct-radius",
            "TestSaferShell_AcceptsCommandAliasKey": "block",
        },
        "pkg/safety/safety_test.go": {
            "TestClassifyCommand_DestructivePatterns": "struct-radius",
            "TestClassifyCommand_SafePatterns": "allow",
            "TestClassifyCommand_CompoundShellIsNeverSafe": "not-safe",
            "TestClassifyCommand_WorstBlastRadiusWins": "block",
            "TestLabelToolCall_ShellCommandAliasKey": "block",
            "TestLabelToolCall_ShellUsesClassifier": "allow",
            "TestLabelMetadata": "block",
        },
        "pkg/safety/history_patterns_test.go": {
            "TestClassifyCommand_HistoryReadPatterns": "allow",
            "TestClassifyCommand_HistoryReadEscapeHatches": "not-safe",
            "TestClassifyCommand_HistoryDestructivePatterns": "block",
        },
        "pkg/safety/shell_syntax_test.go": {
            "TestClassifyCommand_ShellSubstitutionIsNeverSafe": "not-safe",
            "TestContainsShellMetacharacter_LiteralParentheses": "allow",
        },
    }
    radius_to_expect = {"high": "block", "medium": "block", "low": "block", "safe": "allow"}
    for rel, tests in files.items():
        path = root / rel
        if not path.exists():
            print(f"docker-agent: {path} is missing", file=sys.stderr)
            continue
        source = path.read_text(encoding="utf-8")
        for fn, kind in tests.items():
            m = re.search(rf"func {fn}\(", source)
            if not m:
                print(f"docker-agent: {rel} has no {fn}", file=sys.stderr)
                continue
            end = source.find("\n}\n", m.start())
            body_start = m.start()
            body = source[body_start:end]
            if kind == "not-safe":
                # Only a destructive label checked after the loop is an expectation.
                after = re.search(
                    rf"ClassifyCommand\(({GO_STR}|{GO_RAW})\)\s*\n\s*assert\.Equal\(t, ClassDestructive",
                    body,
                )
                count = len(re.findall(rf"^\s*({GO_STR}|{GO_RAW}),\s*$", body, re.M))
                suite.skip("docker-agent: \"not safe\" says no block/allow decision", count)
                if after:
                    line = suite_line(source, body_start + after.start(1))
                    suite.add(path, line, DESTRUCTIVE, go_unquote(after.group(1)), "block", fn)
                continue
            if kind == "struct-radius":
                for row in re.finditer(
                    rf"\{{\s*(?:({GO_STR}),\s*)?({GO_STR}|{GO_RAW}),\s*\"(\w+)\"", body
                ):
                    command = go_unquote(row.group(2))
                    radius = row.group(3)
                    line = suite_line(source, body_start + row.start(2))
                    if radius not in radius_to_expect:
                        suite.skip(f"docker-agent: blast radius `{radius}` (no decision)")
                        continue
                    suite.add(path, line, DESTRUCTIVE, command, radius_to_expect[radius],
                              f"{fn}: radius {radius}")
                continue
            if kind == "block" and fn == "TestClassifyCommand_HistoryDestructivePatterns":
                for row in re.finditer(rf"\{{({GO_STR}|{GO_RAW}),\s*\"(\w+)\",\s*\"([\w-]+)\"\}}", body):
                    line = suite_line(source, body_start + row.start(1))
                    suite.add(path, line, DESTRUCTIVE, go_unquote(row.group(1)), "block",
                              f"{fn}: radius {row.group(2)}, {row.group(3)}")
                continue
            if kind == "allow" and re.search(r"\[\]string\{", body):
                listed = body[body.index("[]string{") : body.index("}", body.index("[]string{"))]
                list_offset = body_start + body.index("[]string{")
                for lit in re.finditer(rf"^\s*({GO_STR}|{GO_RAW}),\s*$", listed, re.M):
                    line = suite_line(source, list_offset + lit.start(1))
                    suite.add(path, line, DESTRUCTIVE, go_unquote(lit.group(1)), "allow", fn)
                continue
            # A single call: the command literal of its ClassifyCommand/LabelToolCall/saferShell.
            single = re.search(
                rf"(?:ClassifyCommand\(|\"(?:cmd|command)\":\s*)({GO_STR}|{GO_RAW})", body
            )
            if single:
                line = suite_line(source, body_start + single.start(1))
                suite.add(path, line, DESTRUCTIVE, go_unquote(single.group(1)), kind, fn)
    return suite


def go_escape(body: str, i: int):
    """`\\x41`, `\\u0041`, `\\U00000041` or an octal `\\101` at `i`."""
    nxt = body[i + 1]
    width = {"x": 2, "u": 4, "U": 8}.get(nxt)
    if width:
        return chr(int(body[i + 2 : i + 2 + width], 16)), 2 + width
    if nxt in "01234567":
        return chr(int(body[i + 1 : i + 4], 8)), 4
    return None


def go_unquote(literal: str) -> str:
    """The text of a Go string literal: raw (backquotes) or interpreted."""
    if literal.startswith("`"):
        return literal[1:-1].replace("\r", "")
    simple = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "a": "\a",
              "b": "\b", "f": "\f", "v": "\v"}
    return unescape(literal[1:-1], simple, go_escape)


# --------------------------------------------------------------------------------------------
# Yelp/detect-secrets: the plugins' tests
# --------------------------------------------------------------------------------------------


class NotLiteral(Exception):
    """A test value built by code this reader does not evaluate."""


def py_eval(node: ast.AST, names: dict):
    """The value of a test table's expression: literals, `+`, `*`, `%`, slices,
    `str.format`, `textwrap.dedent` and module-level constants."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List)):
        return [py_eval(e, names) for e in node.elts]
    if isinstance(node, ast.Name):
        if node.id in names:
            return names[node.id]
        raise NotLiteral(node.id)
    if isinstance(node, ast.BinOp):
        left, right = py_eval(node.left, names), py_eval(node.right, names)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Mult):
            return left * right
        if isinstance(node.op, ast.Mod):
            return left % right
        raise NotLiteral(type(node.op).__name__)
    if isinstance(node, ast.Subscript):
        value = py_eval(node.value, names)
        if isinstance(node.slice, ast.Slice):
            s = node.slice
            return value[
                py_eval(s.lower, names) if s.lower else None : py_eval(s.upper, names) if s.upper else None
            ]
        return value[py_eval(node.slice, names)]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -py_eval(node.operand, names)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        attr = node.func.attr
        if attr == "format":
            base = py_eval(node.func.value, names)
            args = [py_eval(a, names) for a in node.args]
            kwargs = {k.arg: py_eval(k.value, names) for k in node.keywords}
            return base.format(*args, **kwargs)
        if attr == "dedent" and isinstance(node.func.value, ast.Name) and node.func.value.id == "textwrap":
            return textwrap.dedent(py_eval(node.args[0], names))
    raise NotLiteral(ast.dump(node)[:60])


TEXT_PARAMS = ("payload", "line", "file_content")


def detect_secrets(root: Path) -> Suite:
    """Each plugin test parametrized over a text and `should_flag` (one case per row), or over a
    text alone with an assertion that it is found (`assert output`, `len(...) == 1`: every row
    a positive). Tests of verification, of helpers (`get_secret_access_keys`, `find_account`)
    and the generic keyword and high-entropy plugins, whose cases are produced by helper
    functions and class-level tables, are not written; the summary counts them."""
    suite = Suite("detect-secrets", root)
    for path in sorted((root / "tests" / "plugins").glob("*_test.py")):
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        names = {}
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                # A module-level constant the tables use (`EXAMPLE_SECRET = '…'`); one built by
                # other code stays unknown, and a row naming it is counted as built by code.
                try:
                    names[stmt.targets[0].id] = py_eval(stmt.value, names)
                except (NotLiteral, TypeError, ValueError, KeyError, IndexError):
                    pass
        plugin = path.stem.removesuffix("_test")
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef):
                continue
            for deco in fn.decorator_list:
                if not (isinstance(deco, ast.Call) and getattr(deco.func, "attr", "") == "parametrize"):
                    continue
                params = [p.strip() for p in py_eval(deco.args[0], names).split(",")]
                rows_node = deco.args[1]
                body_src = ast.get_source_segment(source, fn) or ""
                text_index = next((i for i, p in enumerate(params) if p in TEXT_PARAMS), None)
                flag_index = params.index("should_flag") if "should_flag" in params else None
                if text_index is None:
                    continue
                positive_only = flag_index is None and re.search(
                    r"assert (output|logic\.analyze_line)|== 1\b|assert len\(list\(secrets\)\) == 1",
                    body_src,
                )
                if flag_index is None and not positive_only:
                    continue
                if not isinstance(rows_node, (ast.List, ast.Tuple)):
                    suite.skip(f"detect-secrets: {plugin}: a table built by a helper")
                    continue
                for row in rows_node.elts:
                    try:
                        value = py_eval(row, names)
                    except NotLiteral:
                        suite.skip(f"detect-secrets: {plugin}: a row built by code")
                        continue
                    if len(params) == 1:
                        value = [value]
                    text = value[text_index]
                    if flag_index is None:
                        expect = "block"
                    else:
                        expect = "block" if value[flag_index] else "allow"
                    suite.add(path, row.lineno, SECRETS, text, expect, f"{plugin}::{fn.name}")
        if plugin in ("keyword", "high_entropy_strings"):
            suite.skip(f"detect-secrets: the {plugin} plugin's tables (built by helpers)")
    return suite


# --------------------------------------------------------------------------------------------
# gitleaks: the tps and fps of cmd/generate/config/rules/*.go
# --------------------------------------------------------------------------------------------

GO_TOKEN = re.compile(
    r"(?P<ws>\s+)|(?P<comment>//[^\n]*|/\*.*?\*/)|(?P<raw>`[^`]*`)|(?P<str>\"(?:[^\"\\\n]|\\.)*\")"
    r"|(?P<num>\d+)|(?P<ident>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)|(?P<op>:=|\.\.\.|[-+*/{}()\[\],=:;.<>!&|])",
    re.S,
)


def go_tokens(source: str):
    """(kind, text, offset) of Go source, comments and blanks dropped."""
    out = []
    pos = 0
    while pos < len(source):
        m = GO_TOKEN.match(source, pos)
        if not m:
            out.append(("op", source[pos], pos))
            pos += 1
            continue
        kind = m.lastgroup
        if kind not in ("ws", "comment"):
            out.append((kind, m.group(), pos))
        pos = m.end()
    return out


# What evaluating a Go expression this reader does not model raises.
UNREADABLE = (NotLiteral, IndexError, ValueError, TypeError)


class Generated(Exception):
    """A case made from random data (`secrets.NewSecret`)."""


SAMPLE_TEMPLATES = [
    # utils.GenerateSampleSecrets' templates ({i}: the identifier, {I}: it in capitals,
    # {s}: the secret), as the helper lists them in cmd/generate/config/utils/generate.go.
    '{i}Token="{s}"',
    '{i}Token = "{s}"',
    "{i}Token={s}",
    "{i}Token = {s}",
    '{\n    "{i}_token": "{s}"\n}',
    '{"config.ini": "{I}_TOKEN={s}\\nBACKUP_ENABLED=true"}',
    "<{i}Token>\n    {s}\n</{i}Token>",
    "{i}_token: {s}",
    "{i}_token: '{s}'",
    '{i}_token: "{s}"',
    'string {i}Token = "{s}";',
    'var {i}Token string = "{s}"',
    '{i}Token := "{s}"',
    "{i}Token := `{s}`",
    'String {i}Token = "{s}";',
    'var {i}Token = "{s}"',
    '${i}Token .= "{s}"',
    "{i}Token = '{s}'",
    '{i}Token = "{s}"',
    'System.setProperty("{I}_TOKEN", "{s}")',
    '  "{i}Token" => "{s}"',
    '{i}_TOKEN = "{s}"',
    '{i}_TOKEN := "{s}"',
    '{i}_TOKEN ::= "{s}"',
    '{i}_TOKEN :::= "{s}"',
    '{i}_TOKEN ?= "{s}"',
]


def sample_secrets(identifier: str, secret: str) -> list[str]:
    def fill(template: str) -> str:
        # One pass, as Go's strings.Replacer does: a `{s}` inside the secret is not replaced.
        return re.sub(r"\{[iIs]\}", lambda m: {"{i}": identifier, "{I}": identifier.upper(), "{s}": secret}[m.group()], template)

    return [fill(t) for t in SAMPLE_TEMPLATES]


class GoReader:
    """Evaluates the expressions of a rule's `tps`/`fps`: string literals, `+`, the rule
    file's local string variables, `utils.GenerateSampleSecret(id, s)` (`{id}_api_token =
    "{s}"`), `utils.GenerateSampleSecrets(id, s)` (one case per template) and
    `strings.Repeat`. Anything with `secrets.NewSecret` is random: `Generated`."""

    def __init__(self, tokens, source):
        self.t = tokens
        self.source = source
        self.i = 0
        self.vars: dict[str, object] = {}

    def peek(self, k=0):
        return self.t[self.i + k] if self.i + k < len(self.t) else ("eof", "", len(self.source))

    def take(self):
        tok = self.peek()
        self.i += 1
        return tok

    def expect(self, text):
        tok = self.take()
        if tok[1] != text:
            raise NotLiteral(f"expected {text!r}, found {tok[1]!r}")

    def expr(self):
        value = self.operand()
        while self.peek()[1] == "+":
            self.take()
            right = self.operand()
            value = self.concat(value, right)
        return value

    @staticmethod
    def concat(a, b):
        if isinstance(a, Generated) or isinstance(b, Generated):
            return Generated()
        if isinstance(a, str) and isinstance(b, str):
            return a + b
        raise NotLiteral("+ on a non-string")

    def args(self):
        self.expect("(")
        out = []
        while self.peek()[1] != ")":
            out.append(self.expr())
            if self.peek()[1] == ",":
                self.take()
        self.expect(")")
        return out

    def operand(self):
        kind, text, _ = self.take()
        if kind == "str":
            return go_unquote(text)
        if kind == "raw":
            return go_unquote(text)
        if kind == "num":
            return int(text)
        if kind == "ident":
            if self.peek()[1] == "(":
                args = self.args()
                return self.call(text, args)
            if text in self.vars:
                return self.vars[text]
            raise NotLiteral(f"unknown name {text}")
        if text == "(":
            value = self.expr()
            self.expect(")")
            return value
        raise NotLiteral(f"unexpected {text!r}")

    def call(self, name, args):
        if any(isinstance(a, Generated) for a in args) or name == "secrets.NewSecret":
            return Generated()
        if name == "utils.GenerateSampleSecret":
            return f'{args[0]}_api_token = "{args[1]}"'
        if name == "utils.GenerateSampleSecrets":
            return sample_secrets(args[0], args[1])
        if name == "strings.Repeat":
            return args[0] * args[1]
        if name.startswith("utils.") and all(isinstance(a, str) for a in args):
            # utils.AlphaNumeric("32") and the like: a regular expression for NewSecret.
            return Generated()
        if name == "newPlausibleSecret":
            # generic.go's helper: NewSecret until the result has enough entropy.
            return Generated()
        raise NotLiteral(f"call {name}")


def gitleaks(root: Path) -> Suite:
    """Per rule function: `tps := []string{…}` / `tps := utils.GenerateSampleSecrets(…)` /
    `tps = append(tps, …)` are `block`, the same for `fps` are `allow`; `map[string]string`
    tables (`ValidateWithPaths`) give their file contents. Local string variables of the
    function are followed. The note names the rule."""
    suite = Suite("gitleaks", root)
    rules_dir = root / "cmd" / "generate" / "config" / "rules"
    for path in sorted(rules_dir.glob("*.go")):
        if path.name.endswith("_test.go"):
            continue
        source = path.read_text(encoding="utf-8")
        funcs = [m.start() for m in re.finditer(r"^func ", source, re.M)] + [len(source)]
        for a, b in zip(funcs, funcs[1:]):
            gitleaks_rule(suite, path, source, a, b)
    return suite


def gitleaks_rule(suite: Suite, path: Path, source: str, start: int, end: int):
    body = source[start:end]
    rule = re.search(r'RuleID:\s*"([^"]+)"', body)
    rule_id = rule.group(1) if rule else "?"
    tokens = [(k, t, o + start) for k, t, o in go_tokens(body)]
    reader = GoReader(tokens, source)
    while reader.i < len(tokens):
        kind, text, _ = reader.peek()
        nxt = reader.peek(1)[1]
        if kind == "ident" and text in ("tps", "fps") and nxt in (":=", "="):
            expect = "block" if text == "tps" else "allow"
            reader.take()
            reader.take()
            gitleaks_values(suite, reader, expect, rule_id, path, source)
            continue
        if kind == "ident" and nxt in (":=", "=") and text != "r":
            # A local variable (`x := …`, or `x = …` in a `var (…)` block): kept when its
            # value is a string expression, or random (`Generated`).
            reader.take()
            reader.take()
            begin = reader.i
            try:
                reader.vars[text] = reader.expr()
            except UNREADABLE:
                reader.i = begin
            continue
        reader.take()


def gitleaks_values(suite, reader, expect, rule_id, path, source):
    """The values after `tps :=` / `tps =`: a composite literal, an `append(…)`, or one
    expression (a call such as `utils.GenerateSampleSecrets(…)`)."""
    note = f"rule {rule_id}"
    which = "tp" if expect == "block" else "fp"

    def emit(value, at):
        if isinstance(value, Generated):
            suite.skip(f"gitleaks: a {which} made from random data")
        elif isinstance(value, list):
            for v in value:
                emit(v, at)
        elif isinstance(value, str):
            suite.add(path, suite_line(source, at), SECRETS, value, expect, note)
        else:
            suite.skip(f"gitleaks: a {which} built by code this reader does not evaluate")

    def element(in_list: bool):
        begin = reader.i
        at = reader.peek()[2]
        try:
            if reader.peek()[1] == "[" and reader.peek(1)[1] == "]":
                value = composite()
            elif reader.peek()[1] == "append":
                value = appended()
            else:
                value = reader.expr()
            if reader.peek()[1] == "...":
                reader.take()
        except UNREADABLE:
            suite.skip(f"gitleaks: a {which} built by code this reader does not evaluate")
            reader.i = begin
            if in_list:
                skip_element(reader)
            else:
                reader.take()
            return
        if isinstance(value, list) and value and all(isinstance(v, tuple) for v in value):
            for v, v_at in value:
                emit(v, v_at)
        else:
            emit(value, at)

    def listed(out: list):
        """One element of a list, appended to `out` with its offset; skipped, and counted, when
        it is built by code this reader does not evaluate."""
        at = reader.peek()[2]
        begin = reader.i
        try:
            out.append((reader.expr(), at))
        except UNREADABLE:
            suite.skip(f"gitleaks: a {which} built by code this reader does not evaluate")
            reader.i = begin
            skip_element(reader)

    def composite():
        """`[]string{a, b, …}`: the values with their offsets."""
        reader.take(), reader.take(), reader.take()  # [ ] string
        reader.expect("{")
        out = []
        while reader.peek()[1] != "}":
            listed(out)
            if reader.peek()[1] == ",":
                reader.take()
        reader.take()
        return out

    def appended():
        """`append(base, a, b…)`: the elements after `base` when `base` is the list itself,
        all of them otherwise."""
        reader.take()
        reader.expect("(")
        out = []
        first = True
        while reader.peek()[1] != ")":
            if reader.peek()[1] == ",":
                reader.take()
                continue
            if first and reader.peek()[1] in ("tps", "fps") and reader.peek(1)[1] in (",", ")"):
                reader.take()
                first = False
                continue
            first = False
            if reader.peek()[1] == "[" and reader.peek(1)[1] == "]":
                out.extend(composite())
            else:
                listed(out)
            if reader.peek()[1] == "...":
                reader.take()
        reader.take()
        return out

    kind, text, _ = reader.peek()
    if text == "map":
        map_values(suite, reader, expect, note, path, source)
        return
    element(in_list=False)


def map_values(suite, reader, expect, note, path, source):
    """`map[string]string{path: content, …}` (`ValidateWithPaths`): each content."""
    while reader.peek()[1] != "{":
        reader.take()
    reader.take()
    while reader.peek()[1] != "}":
        begin = reader.i
        try:
            key = reader.expr()
            reader.expect(":")
            at = reader.peek()[2]
            value = reader.expr()
        except UNREADABLE:
            suite.skip("gitleaks: a case built by code this reader does not evaluate")
            reader.i = begin
            skip_element(reader)
            value = None
        if value == "":
            suite.skip("gitleaks: a path-only case (no content)")
        elif isinstance(value, Generated):
            suite.skip("gitleaks: a case made from random data")
        elif isinstance(value, str):
            suite.add(path, suite_line(source, at), SECRETS, value, expect, f"{note} (file {key})")
        if reader.peek()[1] == ",":
            reader.take()
    reader.take()


def skip_element(reader):
    """Skips one list element: to the next `,` or closing bracket at its own nesting level."""
    depth = 0
    while reader.i < len(reader.t):
        text = reader.peek()[1]
        if text in ("(", "[", "{"):
            depth += 1
        elif text in (")", "]", "}"):
            if depth == 0:
                return
            depth -= 1
        elif text == "," and depth == 0:
            return
        reader.take()


# --------------------------------------------------------------------------------------------


def dedupe(suite: Suite) -> tuple[list[dict], int, list[str]]:
    """The cases once each, at their first source; and the inputs the suite gives both
    expectations. For secrets such an input is a negative of one rule or plugin ("not this
    vendor's key") that another flags: it is a secret all the same, so only its `block` cases
    are kept. For shell commands both are kept (two hooks of one suite with different jobs)."""
    expectations = defaultdict(set)
    for case in suite.cases:
        expectations[(case["guard"], case["input"])].add(case["expect"])
    conflicts = [text for (guard, text), e in expectations.items() if len(e) > 1]
    seen = set()
    kept = []
    duplicates = 0
    for case in suite.cases:
        key = (case["guard"], case["input"], case["expect"])
        if key in seen:
            duplicates += 1
            continue
        if case["guard"] == SECRETS and case["expect"] == "allow" and len(expectations[key[:2]]) > 1:
            suite.skip("a negative of one rule that another rule of the suite flags")
            continue
        seen.add(key)
        kept.append(case)
    return kept, duplicates, conflicts


READERS = {
    "dcg": dcg,
    "karanb192": karanb192,
    "disler": disler,
    "docker-agent": docker_agent,
    "detect-secrets": detect_secrets,
    "gitleaks": gitleaks,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name in READERS:
        parser.add_argument(f"--{name}", metavar="DIR", type=Path, help=f"a checkout of {name}")
    parser.add_argument("--out", type=Path, help="write the cases here (default: stdout)")
    args = parser.parse_args()
    chosen = [(name, getattr(args, name.replace("-", "_"))) for name in READERS]
    chosen = [(n, d) for n, d in chosen if d is not None]
    if not chosen:
        parser.error("name at least one suite directory (--dcg DIR, --gitleaks DIR, ...)")
    out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
    for name, directory in chosen:
        if not directory.is_dir():
            parser.error(f"--{name} {directory}: not a directory")
        suite = READERS[name](directory)
        cases, duplicates, conflicts = dedupe(suite)
        for case in cases:
            out.write(json.dumps(case, ensure_ascii=False) + "\n")
        by = Counter((c["guard"], c["expect"]) for c in cases)
        counts = ", ".join(f"{g} {e} {n}" for (g, e), n in sorted(by.items()))
        print(f"{name}: {len(cases)} cases ({counts or 'none'}); {duplicates} duplicates", file=sys.stderr)
        for why, n in sorted(suite.skipped.items()):
            print(f"  not written: {n} × {why}", file=sys.stderr)
        for text in conflicts:
            print(f"  both expectations: {text[:80]!r}", file=sys.stderr)
    if args.out:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
