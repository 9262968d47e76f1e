//! A hook's target — its command line, worker or URL — on one line, for tables and messages.

/// A hook's target on one line, for tables and messages: a multi-line shell script (docker-agent
/// and Claude Code configs hold whole scripts) is shown by its first line that is not blank or a
/// comment, cut at 60 characters, with `…` when anything was left out.
pub(crate) fn one_line(target: &str) -> String {
    const MAX: usize = 60;
    let mut lines = target.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines
        .clone()
        .find(|l| !l.starts_with('#'))
        .or_else(|| lines.next())
        .unwrap_or("");
    let cut = first.chars().count() > MAX;
    let mut shown: String = first.chars().take(MAX).collect();
    if cut || target.trim() != first {
        shown.push_str(" …");
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docker-agent's and Claude Code's configs hold whole scripts as commands: a listing shows
    /// one line of each, never the script (which broke the table into dozens of lines).
    #[test]
    fn a_multi_line_script_is_shown_on_one_line() {
        assert_eq!(
            one_line("./hooks/guard.sh --strict"),
            "./hooks/guard.sh --strict"
        );
        assert_eq!(
            one_line("# Read the input\nINPUT=$(cat)\necho \"$INPUT\" | jq .\n"),
            "INPUT=$(cat) …"
        );
        assert_eq!(one_line("# only a comment"), "# only a comment");
        let long = "x".repeat(100);
        assert_eq!(one_line(&long), format!("{} …", "x".repeat(60)));
    }
}
