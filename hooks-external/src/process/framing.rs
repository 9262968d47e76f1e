//! The JSON-lines framing of a worker's conversation: a request as one line with its id, an
//! answer line read back into its id and decision, and a byte stream cut into capped lines.

use serde_json::Value;

/// `{"id":7,"payload":…}` and a newline.
pub(super) fn request_line(id: u64, payload: &[u8]) -> Vec<u8> {
    let mut line = Vec::with_capacity(payload.len() + 32);
    line.extend_from_slice(b"{\"id\":");
    line.extend_from_slice(id.to_string().as_bytes());
    line.extend_from_slice(b",\"payload\":");
    if payload.iter().all(u8::is_ascii_whitespace) {
        line.extend_from_slice(b"null");
    } else {
        line.extend(payload.iter().map(|&b| match b {
            b'\n' | b'\r' => b' ',
            b => b,
        }));
    }
    line.extend_from_slice(b"}\n");
    line
}

/// The id an answer line is for, and the decision's JSON (empty for a pass) — or, for an error
/// answer (`{"id":7,"error":"…"}`: those two keys, `error` a string), the worker's message.
pub(super) fn parse_answer(line: &[u8]) -> Result<(u64, Result<Vec<u8>, String>), String> {
    let value: Value = serde_json::from_slice(line).map_err(|e| format!("not JSON: {e}"))?;
    let Value::Object(mut fields) = value else {
        return Err("not a JSON object".to_owned());
    };
    let id = fields
        .remove("id")
        .and_then(|id| id.as_u64())
        .ok_or_else(|| "no unsigned integer `id`".to_owned())?;
    if fields.len() == 1
        && let Some(Value::String(error)) = fields.get("error")
    {
        return Ok((id, Err(error.clone())));
    }
    let output = match fields.remove("output") {
        Some(Value::Null) => return Ok((id, Ok(Vec::new()))),
        Some(Value::String(text)) => return Ok((id, Ok(text.into_bytes()))),
        Some(output) => output,
        None if fields.is_empty() => return Ok((id, Ok(Vec::new()))),
        None => Value::Object(fields),
    };
    let json = serde_json::to_vec(&output).map_err(|e| format!("cannot re-serialize: {e}"))?;
    Ok((id, Ok(json)))
}

/// A byte stream cut into lines, each kept up to a cap.
pub(super) struct Lines {
    line: Vec<u8>,
    cap: usize,
    /// The line being read went past the cap: the rest of it is thrown away.
    cut: bool,
}

impl Lines {
    pub(super) fn new(cap: usize) -> Lines {
        Lines {
            line: Vec::new(),
            cap,
            cut: false,
        }
    }

    /// Feeds `bytes`; `each(line, cut)` gets every line they complete (without its newline; `cut`
    /// when it went past the cap and holds its first `cap` bytes only).
    pub(super) fn feed(&mut self, mut bytes: &[u8], mut each: impl FnMut(&[u8], bool)) {
        while !bytes.is_empty() {
            let newline = bytes.iter().position(|&b| b == b'\n');
            let text = &bytes[..newline.unwrap_or(bytes.len())];
            let room = self.cap.saturating_sub(self.line.len());
            self.line.extend_from_slice(&text[..text.len().min(room)]);
            self.cut |= text.len() > room;
            match newline {
                Some(i) => {
                    each(&self.line, self.cut);
                    self.line.clear();
                    self.cut = false;
                    bytes = &bytes[i + 1..];
                }
                None => bytes = &[],
            }
        }
    }

    /// The stream ended: `each` gets what is left of a last line without a newline.
    pub(super) fn finish(&mut self, mut each: impl FnMut(&[u8], bool)) {
        if !self.line.is_empty() || self.cut {
            each(&self.line, self.cut);
        }
        self.line.clear();
        self.cut = false;
    }

    /// Whether the line being read went past the cap.
    pub(super) fn overflowing(&self) -> bool {
        self.cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_one_line() {
        assert_eq!(
            request_line(7, b"{\n  \"a\": \"x\\ny\"\r\n}\n"),
            b"{\"id\":7,\"payload\":{   \"a\": \"x\\ny\"  } }\n"
        );
        assert_eq!(request_line(1, b""), b"{\"id\":1,\"payload\":null}\n");
    }

    #[test]
    fn answers_in_both_forms() {
        let json = |bytes: Vec<u8>| serde_json::from_slice::<Value>(&bytes).unwrap();
        let (id, out) =
            parse_answer(br#"{"id":3,"output":{"decision":"block","reason":"r"}}"#).unwrap();
        assert_eq!(id, 3);
        assert_eq!(
            json(out.unwrap()),
            serde_json::json!({"decision":"block","reason":"r"})
        );
        let (id, out) = parse_answer(br#"{"decision":"block","id":4,"reason":"r"}"#).unwrap();
        assert_eq!(id, 4);
        assert_eq!(
            json(out.unwrap()),
            serde_json::json!({"decision":"block","reason":"r"})
        );
        assert_eq!(parse_answer(br#"{"id":5}"#).unwrap(), (5, Ok(vec![])));
        assert_eq!(
            parse_answer(br#"{"id":5,"output":null}"#).unwrap(),
            (5, Ok(vec![]))
        );
        assert_eq!(
            parse_answer(br#"{"id":6,"output":"plain text"}"#).unwrap(),
            (6, Ok(b"plain text".to_vec()))
        );
        assert!(parse_answer(b"hello").is_err());
        assert!(parse_answer(br#"{"id":-1}"#).is_err());
        assert!(parse_answer(br#"[1]"#).is_err());
    }

    #[test]
    fn an_error_answer_is_the_two_keys_only() {
        assert_eq!(
            parse_answer(br#"{"id":8,"error":"handler.py:3: ZeroDivisionError"}"#).unwrap(),
            (8, Err("handler.py:3: ZeroDivisionError".to_owned()))
        );
        // Beside a decision's fields, or not a string, `error` is the decision's.
        let (_, flat) = parse_answer(br#"{"id":9,"error":"x","decision":"block"}"#).unwrap();
        assert!(flat.is_ok());
        let (_, flat) = parse_answer(br#"{"id":9,"error":{"code":1}}"#).unwrap();
        assert!(flat.is_ok());
    }

    #[test]
    fn lines_are_capped() {
        let mut lines = Lines::new(5);
        let mut seen = Vec::new();
        let mut collect = |line: &[u8], cut: bool| seen.push((line.to_vec(), cut));
        lines.feed(b"ab\ncd", &mut collect);
        assert!(!lines.overflowing());
        lines.feed(b"efgh", &mut collect);
        assert!(lines.overflowing());
        lines.feed(b"\nij", &mut collect);
        assert!(!lines.overflowing());
        lines.finish(&mut collect);
        lines.finish(&mut collect);
        assert_eq!(
            seen,
            [
                (b"ab".to_vec(), false),
                (b"cdefg".to_vec(), true),
                (b"ij".to_vec(), false)
            ]
        );
    }
}
