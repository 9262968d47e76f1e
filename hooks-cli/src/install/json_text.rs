//! JSON read as text: a parse that keeps where every value, key and member sits in the file,
//! and the edits that insert or remove one member of an object or one item of an array while
//! leaving every other byte where it was.
//!
//! Rules it keeps:
//! - The parse accepts strict JSON plus `//` and `/* */` comments (Gemini CLI reads its
//!   settings with comments); comments and whitespace are never touched unless they sit inside
//!   the member or item being removed. A trailing comma, a duplicate root, text after the root
//!   value or a nesting deeper than [`MAX_DEPTH`] is an error with its line and column.
//! - An insertion goes after the container's last child (`,` + newline + the children's
//!   indentation), or fills an empty container (`{` newline child newline `}`); removing what
//!   was inserted gives back the exact bytes that were there before (the last child is removed
//!   from the end of the one before it; the sole child empties the container to `{}` / `[]`).
//!   An empty container's inside is not kept: `[ ]` or `{\n}` that gets a child and loses it
//!   again comes back as `[]` / `{}` (the form JSON writers give an empty one).
//!   A `//` comment after the last child stays on that child's line, after the new comma, and
//!   goes back where it was when the new child is removed.
//! - The indentation of new text is taken from the file: the line of the container's existing
//!   children, else the container's own line plus the file's unit (the indentation of the
//!   root's first member, two spaces when the file has none).

use std::fmt;
use std::ops::Range;

/// How deep objects and arrays may nest before the parse gives up.
pub(crate) const MAX_DEPTH: usize = 128;

/// A value, with the byte range it covers in the text.
#[derive(Debug)]
pub(crate) struct Node {
    pub(crate) span: Range<usize>,
    pub(crate) kind: Kind,
}

/// What a value is; objects and arrays keep their children in file order.
#[derive(Debug)]
pub(crate) enum Kind {
    Object(Vec<Member>),
    Array(Vec<Node>),
    String(String),
    /// A number, `true`, `false` or `null`.
    Other,
}

/// One `"key": value` of an object.
#[derive(Debug)]
pub(crate) struct Member {
    pub(crate) key: String,
    /// Where the key's opening quote is.
    pub(crate) start: usize,
    pub(crate) value: Node,
}

impl Node {
    /// The members of an object, else `None`.
    pub(crate) fn members(&self) -> Option<&[Member]> {
        match &self.kind {
            Kind::Object(members) => Some(members),
            _ => None,
        }
    }

    /// The items of an array, else `None`.
    pub(crate) fn items(&self) -> Option<&[Node]> {
        match &self.kind {
            Kind::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The member `key` of an object (the first, if the key repeats).
    pub(crate) fn get(&self, key: &str) -> Option<&Member> {
        self.members()?.iter().find(|m| m.key == key)
    }

    /// The text of a string value, else `None`.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::String(s) => Some(s),
            _ => None,
        }
    }
}

/// A text that is not JSON: where, and what was expected.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) message: String,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {} column {}: {}",
            self.line, self.column, self.message
        )
    }
}

/// Parses `text` (one JSON value, comments allowed) and keeps the spans.
pub(crate) fn parse(text: &str) -> Result<Node, SyntaxError> {
    let mut parser = Parser { text, pos: 0 };
    parser.skip_blank()?;
    let root = parser.value(0)?;
    parser.skip_blank()?;
    if parser.pos < text.len() {
        return Err(parser.error("text after the end of the JSON value"));
    }
    Ok(root)
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn error(&self, message: &str) -> SyntaxError {
        let before = &self.text[..self.pos.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        SyntaxError {
            line,
            column,
            message: message.to_string(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    /// Skips whitespace and comments.
    fn skip_blank(&mut self) -> Result<(), SyntaxError> {
        let bytes = self.text.as_bytes();
        while self.pos < bytes.len() {
            match bytes[self.pos] {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                b'/' if bytes.get(self.pos + 1) == Some(&b'/') => {
                    self.pos = self.text[self.pos..]
                        .find('\n')
                        .map_or(bytes.len(), |n| self.pos + n);
                }
                b'/' if bytes.get(self.pos + 1) == Some(&b'*') => {
                    match self.text[self.pos + 2..].find("*/") {
                        Some(n) => self.pos += n + 4,
                        None => return Err(self.error("a `/*` comment that is never closed")),
                    }
                }
                _ => break,
            }
        }
        Ok(())
    }

    fn expect(&mut self, byte: u8, what: &str) -> Result<(), SyntaxError> {
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected {what}")))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        if depth > MAX_DEPTH {
            return Err(self.error(&format!("nested deeper than {MAX_DEPTH} levels")));
        }
        let start = self.pos;
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => {
                let text = self.string()?;
                Ok(Node {
                    span: start..self.pos,
                    kind: Kind::String(text),
                })
            }
            Some(_) => {
                let bytes = self.text.as_bytes();
                while self.pos < bytes.len()
                    && (bytes[self.pos].is_ascii_alphanumeric()
                        || matches!(bytes[self.pos], b'+' | b'-' | b'.'))
                {
                    self.pos += 1;
                }
                let word = &self.text[start..self.pos];
                if word.is_empty() || serde_json::from_str::<serde_json::Value>(word).is_err() {
                    self.pos = start;
                    return Err(self.error("expected a JSON value"));
                }
                Ok(Node {
                    span: start..self.pos,
                    kind: Kind::Other,
                })
            }
            None => Err(self.error("the text ends where a JSON value was expected")),
        }
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        let start = self.pos;
        let bytes = self.text.as_bytes();
        self.pos += 1;
        while self.pos < bytes.len() {
            match bytes[self.pos] {
                b'\\' => self.pos += 2,
                b'"' => {
                    self.pos += 1;
                    return serde_json::from_str::<String>(&self.text[start..self.pos]).map_err(
                        |e| {
                            self.pos = start;
                            self.error(&format!("a string that is not valid JSON ({e})"))
                        },
                    );
                }
                _ => self.pos += 1,
            }
        }
        self.pos = start;
        Err(self.error("a string that is never closed"))
    }

    fn object(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        let start = self.pos;
        self.pos += 1;
        let mut members = Vec::new();
        self.skip_blank()?;
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Node {
                span: start..self.pos,
                kind: Kind::Object(members),
            });
        }
        loop {
            self.skip_blank()?;
            if self.peek() != Some(b'"') {
                let message = if self.peek() == Some(b'}') {
                    "a trailing comma before `}`"
                } else {
                    "expected a key in double quotes"
                };
                return Err(self.error(message));
            }
            let key_start = self.pos;
            let key = self.string()?;
            self.skip_blank()?;
            self.expect(b':', "`:` after the key")?;
            self.skip_blank()?;
            let value = self.value(depth + 1)?;
            members.push(Member {
                key,
                start: key_start,
                value,
            });
            self.skip_blank()?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Node {
                        span: start..self.pos,
                        kind: Kind::Object(members),
                    });
                }
                _ => return Err(self.error("expected `,` or `}`")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        let start = self.pos;
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_blank()?;
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Node {
                span: start..self.pos,
                kind: Kind::Array(items),
            });
        }
        loop {
            self.skip_blank()?;
            if self.peek() == Some(b']') {
                return Err(self.error("a trailing comma before `]`"));
            }
            items.push(self.value(depth + 1)?);
            self.skip_blank()?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Node {
                        span: start..self.pos,
                        kind: Kind::Array(items),
                    });
                }
                _ => return Err(self.error("expected `,` or `]`")),
            }
        }
    }
}

/// One replacement of a byte range of the text.
#[derive(Debug)]
pub(crate) struct Edit {
    pub(crate) range: Range<usize>,
    pub(crate) text: String,
}

impl Edit {
    /// `text` with the edit made.
    pub(crate) fn apply(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() + self.text.len());
        out.push_str(&text[..self.range.start]);
        out.push_str(&self.text);
        out.push_str(&text[self.range.end..]);
        out
    }
}

/// The whitespace at the start of the line that holds byte `pos`.
fn line_indent(text: &str, pos: usize) -> &str {
    let line_start = text[..pos].rfind('\n').map_or(0, |n| n + 1);
    let line = &text[line_start..];
    let width = line.len() - line.trim_start_matches([' ', '\t']).len();
    &line[..width]
}

/// Whether byte `pos` is the first non-blank of its line.
fn starts_line(text: &str, pos: usize) -> bool {
    let line_start = text[..pos].rfind('\n').map_or(0, |n| n + 1);
    text[line_start..pos].trim().is_empty()
}

/// The file's indentation unit: the indentation of the root's first member when it starts a
/// line, else two spaces.
pub(crate) fn indent_unit(text: &str, root: &Node) -> String {
    if let Some(first) = root.members().and_then(|m| m.first())
        && starts_line(text, first.start)
    {
        let indent = line_indent(text, first.start);
        if !indent.is_empty() {
            return indent.to_string();
        }
    }
    "  ".to_string()
}

/// The indentation of a new child of `container`, whose children start at `first_child`.
fn child_indent(text: &str, container: &Node, first_child: Option<usize>, unit: &str) -> String {
    match first_child {
        Some(pos) if starts_line(text, pos) => line_indent(text, pos).to_string(),
        _ => format!("{}{unit}", line_indent(text, container.span.start)),
    }
}

/// Puts `indent` after every newline of `value` (a value rendered at indentation zero).
fn indented(value: &str, indent: &str) -> String {
    value.replace('\n', &format!("\n{indent}"))
}

/// The edit that adds `"key": value` as the last member of `object` (`value` rendered with
/// `unit` at indentation zero).
pub(crate) fn insert_member(text: &str, object: &Node, key: &str, value: &str, unit: &str) -> Edit {
    let members = object.members().unwrap_or_default();
    let indent = child_indent(text, object, members.first().map(|m| m.start), unit);
    let key = serde_json::to_string(key).unwrap_or_default();
    let child = format!("{key}: {}", indented(value, &indent));
    insert_child(
        text,
        object,
        members.last().map(|m| m.value.span.end),
        &indent,
        &child,
    )
}

/// The edit that adds `value` as the last item of `array`.
pub(crate) fn append_item(text: &str, array: &Node, value: &str, unit: &str) -> Edit {
    let items = array.items().unwrap_or_default();
    let indent = child_indent(text, array, items.first().map(|n| n.span.start), unit);
    let child = indented(value, &indent);
    insert_child(
        text,
        array,
        items.last().map(|n| n.span.end),
        &indent,
        &child,
    )
}

fn insert_child(
    text: &str,
    container: &Node,
    last_end: Option<usize>,
    indent: &str,
    child: &str,
) -> Edit {
    match last_end {
        // A `//` comment after the last child stays on its line, after the new comma.
        Some(end) if trailing_line_comment(text, end).is_some() => {
            let comment_end = trailing_line_comment(text, end).unwrap_or(end);
            Edit {
                range: end..comment_end,
                text: format!(",{}\n{indent}{child}", &text[end..comment_end]),
            }
        }
        Some(end) => Edit {
            range: end..end,
            text: format!(",\n{indent}{child}"),
        },
        None => Edit {
            range: container.span.start + 1..container.span.end - 1,
            text: format!(
                "\n{indent}{child}\n{}",
                line_indent(text, container.span.start)
            ),
        },
    }
}

/// Where the line of byte `end` ends (before its `\r\n` or `\n`) when all that follows `end`
/// on it is a `//` comment.
fn trailing_line_comment(text: &str, end: usize) -> Option<usize> {
    let rest = &text[end..];
    let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
    let line = line.strip_suffix('\r').unwrap_or(line);
    line.trim_start_matches([' ', '\t'])
        .starts_with("//")
        .then_some(end + line.len())
}

/// The edit that removes the `index`-th child of `container` (an object or an array), with
/// the comma and the blank that joined it to its neighbours. A comment between the child
/// before and this one, on the line of the child before, stays.
pub(crate) fn remove_child(text: &str, container: &Node, index: usize) -> Edit {
    let spans: Vec<Range<usize>> = match &container.kind {
        Kind::Object(members) => members.iter().map(|m| m.start..m.value.span.end).collect(),
        Kind::Array(items) => items.iter().map(|n| n.span.clone()).collect(),
        _ => Vec::new(),
    };
    let range = if spans.len() <= 1 {
        container.span.start + 1..container.span.end - 1
    } else if index == 0 {
        spans[0].start..spans[1].start
    } else {
        let range = spans[index - 1].end..spans[index].end;
        let between = &text[spans[index - 1].end..spans[index].start];
        // `,` + ` // comment` + line end + indentation: the comment goes back where it was.
        if let Some(body) = between.strip_prefix(',')
            && let Some(newline) = body.find('\n')
            && body[newline + 1..].trim().is_empty()
            && body[..newline]
                .trim_start_matches([' ', '\t'])
                .starts_with("//")
        {
            let comment = &body[..newline];
            return Edit {
                range,
                text: comment.strip_suffix('\r').unwrap_or(comment).to_string(),
            };
        }
        range
    };
    Edit {
        range,
        text: String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_syntax_error_names_line_and_column() {
        let error = parse("{\n  \"a\": 1,\n  \"b\": tru\n}").unwrap_err();
        assert_eq!((error.line, error.column), (3, 8));
        let error = parse("{\n  \"a\": [1,]\n}").unwrap_err();
        assert_eq!(error.message, "a trailing comma before `]`");
        assert_eq!(error.line, 2);
    }

    #[test]
    fn comments_are_blank() {
        let root = parse("// settings\n{ /* a */ \"a\": 1 // b\n}").unwrap();
        assert_eq!(root.get("a").map(|m| m.key.as_str()), Some("a"));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let text = "[".repeat(MAX_DEPTH + 10);
        let error = parse(&text).unwrap_err();
        assert!(error.message.contains("nested deeper"), "{error}");
    }

    #[test]
    fn insert_then_remove_gives_back_the_same_bytes() {
        for original in [
            "{\n    \"a\": 1\n}\n",
            "{}",
            "{\"a\": [1, 2], \"b\": {}}",
            "{\n\t\"a\": {\n\t\t\"x\": 1 /* c */\n\t}\n}",
            "{\n  \"a\": 1 // one, or two\n}\n",
            "{\r\n  \"a\": 1 // one\r\n}\r\n",
        ] {
            let root = parse(original).unwrap();
            let unit = indent_unit(original, &root);
            let added =
                insert_member(original, &root, "hooks", "{\n\"k\": []\n}", &unit).apply(original);
            let root = parse(&added).unwrap();
            let index = root.members().unwrap().len() - 1;
            let back = remove_child(&added, &root, index).apply(&added);
            assert_eq!(back, original, "after adding: {added}");
        }
    }

    #[test]
    fn a_comment_after_the_last_member_stays_on_its_line() {
        let text = "{\n  \"a\": 1 // one\n}";
        let root = parse(text).unwrap();
        let added = insert_member(text, &root, "b", "2", "  ").apply(text);
        assert_eq!(added, "{\n  \"a\": 1, // one\n  \"b\": 2\n}");
    }

    #[test]
    fn a_new_member_takes_the_indentation_of_its_siblings() {
        let text = "{\n    \"a\": 1\n}";
        let root = parse(text).unwrap();
        let unit = indent_unit(text, &root);
        assert_eq!(unit, "    ");
        let added = insert_member(text, &root, "b", "[\n    \"x\"\n]", &unit).apply(text);
        assert_eq!(
            added,
            "{\n    \"a\": 1,\n    \"b\": [\n        \"x\"\n    ]\n}"
        );
    }

    /// A small deterministic generator (an LCG with a fixed seed): the same documents on
    /// every run.
    struct Gen(u64);

    impl Gen {
        fn next(&mut self, below: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 33) % below
        }

        fn blank(&mut self) -> &'static str {
            ["", " ", "\n  ", "\n\t", "  \n    "][self.next(5) as usize]
        }

        /// A JSON document in a random layout; `depth` bounds the nesting.
        fn value(&mut self, depth: u32, out: &mut String) {
            let pick = if depth == 0 {
                self.next(4)
            } else {
                self.next(6)
            };
            match pick {
                0 => out.push_str(["1", "-2.5e3", "0", "12.0"][self.next(4) as usize]),
                1 => out.push_str(["true", "false", "null"][self.next(3) as usize]),
                2 => out.push_str(
                    ["\"x\"", "\"a \\\"q\\\" b\"", "\"\\u00e9t\u{e9}\"", "\"\""]
                        [self.next(4) as usize],
                ),
                3 => out.push_str("\"//not a comment\""),
                4 => {
                    out.push('[');
                    let n = self.next(4);
                    for i in 0..n {
                        if i > 0 {
                            out.push(',');
                        }
                        out.push_str(self.blank());
                        self.value(depth - 1, out);
                    }
                    // An empty container comes back as `[]` (module docs): written so here.
                    if n > 0 {
                        out.push_str(self.blank());
                    }
                    out.push(']');
                }
                _ => {
                    out.push('{');
                    let n = self.next(4);
                    for i in 0..n {
                        if i > 0 {
                            out.push(',');
                        }
                        out.push_str(self.blank());
                        out.push_str(&format!("\"k{i}\":{}", self.blank()));
                        self.value(depth - 1, out);
                    }
                    if n > 0 {
                        out.push_str(self.blank());
                    }
                    out.push('}');
                }
            }
        }
    }

    /// The serde_json value of a parsed node.
    fn to_value(text: &str, node: &Node) -> serde_json::Value {
        match &node.kind {
            Kind::Object(members) => serde_json::Value::Object(
                members
                    .iter()
                    .map(|m| (m.key.clone(), to_value(text, &m.value)))
                    .collect(),
            ),
            Kind::Array(items) => {
                serde_json::Value::Array(items.iter().map(|n| to_value(text, n)).collect())
            }
            Kind::String(s) => serde_json::Value::String(s.clone()),
            Kind::Other => serde_json::from_str(&text[node.span.clone()]).unwrap(),
        }
    }

    #[test]
    fn the_parse_agrees_with_serde_json_and_edits_undo_exactly() {
        let mut generator = Gen(21);
        for _ in 0..400 {
            let mut body = String::new();
            generator.value(4, &mut body);
            let text = format!("{{\"root\": {body}}}");
            let expected: serde_json::Value = serde_json::from_str(&text).unwrap();
            let root = parse(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
            assert_eq!(to_value(&text, &root), expected, "{text}");

            // Every cut of the text is an error for both, or for neither.
            let cut = generator.next(text.len() as u64) as usize;
            if text.is_char_boundary(cut) {
                let part = &text[..cut];
                assert_eq!(
                    parse(part).is_err(),
                    serde_json::from_str::<serde_json::Value>(part).is_err(),
                    "{part}"
                );
            }

            // Adding a member to the root and an item to the array of `root`, then removing
            // them, gives back the text.
            let unit = indent_unit(&text, &root);
            let added =
                insert_member(&text, &root, "hooks", "{\n  \"E\": []\n}", &unit).apply(&text);
            let reparsed = parse(&added).unwrap_or_else(|e| panic!("{e}: {added}"));
            let last = reparsed.members().unwrap().len() - 1;
            assert_eq!(remove_child(&added, &reparsed, last).apply(&added), text);
            if let Some(array) = root
                .get("root")
                .map(|m| &m.value)
                .filter(|v| v.items().is_some())
            {
                let added = append_item(&text, array, "{\n  \"x\": 1\n}", &unit).apply(&text);
                let reparsed = parse(&added).unwrap_or_else(|e| panic!("{e}: {added}"));
                let array = &reparsed.get("root").unwrap().value;
                let last = array.items().unwrap().len() - 1;
                assert_eq!(
                    remove_child(&added, array, last).apply(&added),
                    text,
                    "{added}"
                );
            }
        }
    }
}
