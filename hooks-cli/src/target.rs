//! A hook's target — its command line, worker or URL — on one line, for tables and messages.
//!
//! The rule it keeps: a path is never cut at its end. A line too long for a table has its
//! paths shortened from their start (`…/hooks/check.sh`), so the script a hook runs can still
//! be read, however deep the directory it lives in; only what is not a path is cut at its end.

/// The widest a target is shown before it is shortened.
const MAX: usize = 60;

/// A hook's target on one line, for tables and messages: a multi-line shell script (docker-agent
/// and Claude Code configs hold whole scripts) is shown by its first line that is not blank or a
/// comment. A line longer than 60 characters has its paths shortened, the longest first, to
/// their last components (`/home/me/work/project/.claude/hooks/check.sh` as
/// `…/hooks/check.sh`, at the least the file name); in a line still too long, what is not a path
/// is cut after 60 characters, and the paths after the cut are kept (`run --a --b … …/check.sh`).
/// A trailing ` …` says that lines or the end of the line were left out.
pub(crate) fn one_line(target: &str) -> String {
    let mut lines = target.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines
        .clone()
        .find(|l| !l.starts_with('#'))
        .or_else(|| lines.next())
        .unwrap_or("");
    let (mut shown, cut) = fit(first, MAX);
    if cut || target.trim() != first {
        shown.push_str(" …");
    }
    shown
}

/// `line` in about `max` characters, and whether its end was left out: its paths shortened as
/// much as it takes, then, if it is still too long, what is not a path cut after `max`
/// characters; a path is never cut or left out.
fn fit(line: &str, max: usize) -> (String, bool) {
    let mut excess = width(line).saturating_sub(max);
    if excess == 0 {
        return (line.to_owned(), false);
    }
    let mut words: Vec<String> = line.split(' ').map(str::to_owned).collect();
    let mut paths: Vec<usize> = (0..words.len()).filter(|&i| is_path(&words[i])).collect();
    paths.sort_by_key(|&i| std::cmp::Reverse(width(&words[i])));
    for i in paths {
        if excess == 0 {
            break;
        }
        let short = shorten(&words[i], excess);
        excess = excess.saturating_sub(width(&words[i]) - width(&short));
        words[i] = short;
    }
    let shortened = words.join(" ");
    if excess == 0 {
        return (shortened, false);
    }
    // Still too long: what is not a path is cut after `max` characters; the paths after the
    // cut are kept, each run of words left out before them shown as `…`.
    let mut shown = String::new();
    let mut cut = false;
    let mut left_out = false;
    for word in &words {
        let at = width(&shown) + usize::from(!shown.is_empty());
        let whole = is_path(word) || (!cut && at + width(word) <= max);
        let part: String = if whole {
            word.clone()
        } else if !cut && at < max {
            word.chars().take(max - at).collect()
        } else {
            String::new()
        };
        cut |= !whole;
        if !whole && part.is_empty() {
            left_out = true;
            continue;
        }
        if left_out {
            shown.push_str(" …");
        }
        if !shown.is_empty() {
            shown.push(' ');
        }
        shown.push_str(&part);
        left_out = !whole;
    }
    (shown, left_out)
}

/// Whether `word` is a path (`./hooks/x.sh`, `/usr/bin/python3`, `$DIR/x.sh`,
/// `--config=/etc/x.yaml`); a URL is not: its host matters most.
fn is_path(word: &str) -> bool {
    word.contains('/') && !word.contains("://")
}

/// `path` at least `by` characters shorter if it can be: its leading directories replaced by
/// `…`, keeping what comes before its first `/` (`~`, `.`, `$DIR`, `--config=`) and as many of
/// its last components as fit; at the least its last component.
fn shorten(path: &str, by: usize) -> String {
    let Some((head, rest)) = path.split_once('/') else {
        return path.to_owned();
    };
    let components: Vec<&str> = rest.split('/').collect();
    let elided = |keep: usize| {
        let tail = components[components.len() - keep..].join("/");
        if head.is_empty() {
            format!("…/{tail}")
        } else {
            format!("{head}/…/{tail}")
        }
    };
    // A directory (`/a/b/`) keeps its name.
    let least = if components.last() == Some(&"") { 2 } else { 1 };
    let target = width(path).saturating_sub(by);
    let shortest = elided(least.min(components.len()));
    let best = (least..components.len())
        .rev()
        .map(elided)
        .find(|short| width(short) <= target)
        .unwrap_or(shortest);
    if width(&best) < width(path) {
        best
    } else {
        path.to_owned()
    }
}

fn width(text: &str) -> usize {
    text.chars().count()
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

    /// A script deep in the file system is shown by the end of its path — the file name and
    /// as many directories above it as fit — never by a path cut at its end.
    #[test]
    fn a_long_path_keeps_its_end() {
        let deep = format!("/tmp{}/project/.claude/hooks/check.sh", "/deep".repeat(20));
        assert_eq!(
            one_line(&deep),
            "…/deep/deep/deep/deep/deep/project/.claude/hooks/check.sh"
        );
        // What comes before the path's first `/` is kept, and the arguments too.
        let python = format!(
            "python3 $CLAUDE_PROJECT_DIR{}/guard.py --strict",
            "/deep".repeat(12)
        );
        assert_eq!(
            one_line(&python),
            "python3 $CLAUDE_PROJECT_DIR/…/deep/deep/guard.py --strict"
        );
        // A file name longer than the column is shown whole.
        let name = format!("/srv/hooks/{}.sh", "n".repeat(70));
        assert_eq!(one_line(&name), format!("…/{}.sh", "n".repeat(70)));
        // A path shorter than the column is left alone, a multi-line script still marked.
        assert_eq!(
            one_line(
                "/usr/local/bin/check.sh --fast
exit 0
"
            ),
            "/usr/local/bin/check.sh --fast …"
        );
    }

    /// What is still too long once its paths are short is cut at its end — but not inside a
    /// path; a URL is not a path (its host matters most) and is cut like any other word.
    #[test]
    fn a_line_too_long_is_cut_after_its_paths() {
        let flags = format!("{}/check.sh{}", "/deep".repeat(10), " --flag".repeat(12));
        let shown = one_line(&flags);
        assert!(shown.starts_with("…/check.sh --flag --flag"), "{shown}");
        assert!(shown.ends_with(" …"), "{shown}");
        assert!(shown.chars().count() <= 62, "{shown}");

        let late = format!("echo {} {}/check.sh", "x".repeat(50), "/deep".repeat(10));
        assert_eq!(
            one_line(&late),
            format!("echo {} …/check.sh", "x".repeat(50))
        );

        let after = format!(
            "run{} {}/guard.sh",
            " --flag".repeat(12),
            "/deep".repeat(10)
        );
        let shown = one_line(&after);
        assert!(shown.starts_with("run --flag --flag"), "{shown}");
        assert!(shown.ends_with(" … …/guard.sh"), "{shown}");

        let url = format!("https://hooks.example.com/{}", "p/".repeat(30));
        assert_eq!(one_line(&url), format!("{} …", &url[..60]));
    }
}
