//! The change to a file as lines removed and added, in the manner of a unified diff: a
//! `@@ -OLD +NEW @@` heading (first line numbers, 1-based) over each run of changed lines,
//! `-` before a line removed and `+` before a line added; unchanged lines are not shown.
//!
//! The lines common to both ends are set aside first; what is left is matched by a shortest
//! edit script (Myers) when at most [`MAX_CHANGES`] lines differ, else shown as all removed
//! and all added, so a huge change never costs more than that bound.

use std::fmt::Write as _;

/// The most lines removed and added that are matched line by line (the walk keeps about
/// MAX_CHANGES² numbers: 8 MB at this bound).
const MAX_CHANGES: isize = 1_000;

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
    let ops = matched(a_mid, b_mid).unwrap_or_else(|| {
        let mut ops = vec![Op::Removed; a_mid.len()];
        ops.extend(vec![Op::Added; b_mid.len()]);
        ops
    });
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

/// A shortest edit script of `a` into `b` (Myers' O(ND) walk, keeping per round only the
/// diagonals it reached), or `None` when more than [`MAX_CHANGES`] lines differ.
fn matched(a: &[&str], b: &[&str]) -> Option<Vec<Op>> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let limit = (n + m).min(MAX_CHANGES);
    if (n - m).abs() > limit {
        return None;
    }
    // `v[k + offset]`: the furthest x reached on diagonal k = x - y.
    let offset = limit + 1;
    let mut v = vec![0isize; 2 * offset as usize + 1];
    // Per round d, the diagonals -d..=d as they were when the round ended.
    let mut rounds: Vec<Vec<isize>> = Vec::new();
    for d in 0..=limit {
        for k in (-d..=d).step_by(2) {
            let down =
                k == -d || (k != d && v[(k - 1 + offset) as usize] < v[(k + 1 + offset) as usize]);
            let mut x = if down {
                v[(k + 1 + offset) as usize]
            } else {
                v[(k - 1 + offset) as usize] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[(k + offset) as usize] = x;
        }
        rounds.push(v[(offset - d) as usize..=(offset + d) as usize].to_vec());
        let end = v[(n - m + offset) as usize];
        if (n - m).abs() <= d && (n - m - d) % 2 == 0 && end >= n {
            return Some(backtrack(&rounds, n, m));
        }
    }
    None
}

/// The script of the walk `rounds` recorded, from (n, m) back to the start.
fn backtrack(rounds: &[Vec<isize>], n: isize, m: isize) -> Vec<Op> {
    let at = |d: isize, k: isize| rounds[d as usize][(k + d) as usize];
    let mut ops = Vec::new();
    let (mut x, mut y) = (n, m);
    for d in (1..rounds.len() as isize).rev() {
        let k = x - y;
        let down = k == -d || (k != d && at(d - 1, k - 1) < at(d - 1, k + 1));
        let prev_k = if down { k + 1 } else { k - 1 };
        let prev_x = at(d - 1, prev_k);
        let prev_y = prev_x - prev_k;
        while x > prev_x && y > prev_y {
            ops.push(Op::Same);
            x -= 1;
            y -= 1;
        }
        ops.push(if down { Op::Added } else { Op::Removed });
        x = prev_x;
        y = prev_y;
    }
    while x > 0 && y > 0 {
        ops.push(Op::Same);
        x -= 1;
        y -= 1;
    }
    ops.reverse();
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

    #[test]
    fn changes_far_apart_in_a_long_file_show_as_themselves() {
        let old: String = (0..5000).map(|i| format!("line {i}\n")).collect();
        let new = old
            .replace("line 10\n", "line 10\nadded a\n")
            .replace("line 4000\n", "")
            .replace("line 4990\n", "changed\n");
        assert_eq!(
            lines(&old, &new),
            "@@ -12 +12 @@\n+added a\n@@ -4001 +4002 @@\n-line 4000\n@@ -4991 +4991 @@\n\
             -line 4990\n+changed\n"
        );
    }

    #[test]
    fn more_changes_than_the_bound_show_as_all_removed_and_added() {
        let new: String = (0..(MAX_CHANGES + 5)).map(|i| format!("{i}\n")).collect();
        let out = lines("x\n", &new);
        assert!(out.starts_with("@@ -1 +1 @@\n-x\n+0\n"), "{}", &out[..40]);
        assert_eq!(out.lines().count(), MAX_CHANGES as usize + 7);
    }

    #[test]
    fn every_script_turns_old_into_new() {
        let docs = ["", "a", "a\nb\nc", "b\nc\na", "a\nx\nc\ny", "c\nb\na\nb"];
        for old in docs {
            for new in docs {
                let a: Vec<&str> = old.lines().collect();
                let b: Vec<&str> = new.lines().collect();
                let ops = matched(&a, &b).unwrap();
                let (mut i, mut j, mut out) = (0, 0, Vec::new());
                for op in ops {
                    match op {
                        Op::Same => {
                            assert_eq!(a[i], b[j]);
                            out.push(a[i]);
                            i += 1;
                            j += 1;
                        }
                        Op::Removed => i += 1,
                        Op::Added => {
                            out.push(b[j]);
                            j += 1;
                        }
                    }
                }
                assert_eq!((i, out), (a.len(), b), "{old:?} -> {new:?}");
            }
        }
    }
}
