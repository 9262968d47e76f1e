//! The change to a file as lines removed and added, in the manner of a unified diff: a
//! `@@ -OLD +NEW @@` heading (first line numbers, 1-based) over each run of changed lines,
//! `-` before a line removed and `+` before a line added; unchanged lines are not shown.
//!
//! The lines common to both ends are set aside first; what is left is matched by a longest
//! common subsequence when it is small enough ([`MAX_CELLS`]), else shown as all removed and
//! all added, so a huge file never costs more than that bound.

use std::fmt::Write as _;

/// The largest table (old lines × new lines between the common ends) matched line by line.
const MAX_CELLS: usize = 4_000_000;

/// The lines of `old` and `new` that differ, as described in the module docs.
pub(crate) fn lines(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let a_mid = &a[prefix..a.len() - suffix];
    let b_mid = &b[prefix..b.len() - suffix];
    let ops = if a_mid.len().saturating_mul(b_mid.len()) <= MAX_CELLS {
        matched(a_mid, b_mid)
    } else {
        let mut ops = vec![Op::Removed; a_mid.len()];
        ops.extend(vec![Op::Added; b_mid.len()]);
        ops
    };
    let mut out = String::new();
    let (mut i, mut j) = (0usize, 0usize);
    let mut in_run = false;
    for op in ops {
        match op {
            Op::Same => {
                i += 1;
                j += 1;
                in_run = false;
            }
            Op::Removed | Op::Added => {
                if !in_run {
                    let _ = writeln!(out, "@@ -{} +{} @@", prefix + i + 1, prefix + j + 1);
                    in_run = true;
                }
                if op == Op::Removed {
                    let _ = writeln!(out, "-{}", a_mid[i]);
                    i += 1;
                } else {
                    let _ = writeln!(out, "+{}", b_mid[j]);
                    j += 1;
                }
            }
        }
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Same,
    Removed,
    Added,
}

/// The edit script of a longest common subsequence of `a` and `b`.
fn matched(a: &[&str], b: &[&str]) -> Vec<Op> {
    let width = b.len() + 1;
    let mut table = vec![0u32; (a.len() + 1) * width];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            table[i * width + j] = if a[i] == b[j] {
                table[(i + 1) * width + j + 1] + 1
            } else {
                table[(i + 1) * width + j].max(table[i * width + j + 1])
            };
        }
    }
    let mut ops = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push(Op::Same);
            i += 1;
            j += 1;
        } else if i < a.len()
            && (j == b.len() || table[(i + 1) * width + j] >= table[i * width + j + 1])
        {
            ops.push(Op::Removed);
            i += 1;
        } else {
            ops.push(Op::Added);
            j += 1;
        }
    }
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_changed_lines_are_shown_with_their_numbers() {
        let old = "{\n  \"a\": 1\n}\n";
        let new = "{\n  \"a\": 1,\n  \"b\": 2\n}\n";
        assert_eq!(
            lines(old, new),
            "@@ -2 +2 @@\n-  \"a\": 1\n+  \"a\": 1,\n+  \"b\": 2\n"
        );
        assert_eq!(lines(old, old), "");
    }
}
