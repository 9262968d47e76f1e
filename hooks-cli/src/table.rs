//! Plain-text tables: rows under headers, each column as wide as its widest cell.

use std::fmt::Write as _;

/// Rows under headers, columns padded to their widest cell (the last one is not padded); the
/// columns in `right` (numbers) are aligned right.
pub(crate) fn table(headers: &[&str], rows: &[Vec<String>], right: &[usize]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut text = String::new();
    let header: Vec<String> = headers.iter().map(|h| (*h).to_owned()).collect();
    for row in std::iter::once(&header).chain(rows) {
        let mut line = String::new();
        for (i, (cell, width)) in row.iter().zip(&widths).enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            if right.contains(&i) {
                let _ = write!(line, "{cell:>width$}");
            } else if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                let _ = write!(line, "{cell:<width$}");
            }
        }
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_pad_all_but_the_last_column() {
        let text = table(
            &["a", "bb", "c"],
            &[vec!["xxx".into(), "y".into(), "z".into()]],
            &[1],
        );
        assert_eq!(text, "a    bb  c\nxxx   y  z\n");
    }
}
