//! A small unified diff, shown after an edit so the model (and the user) can
//! check what changed.
//!
//! Lines are compared with Myers' O((N+M)·D) algorithm after the common first
//! and last lines are trimmed, so a small edit in a large file costs little. If
//! the difference is huge (more than [`MAX_EDIT_DISTANCE`] changed lines) the
//! middle is shown as one block removed and one added instead.

/// Beyond this many changed lines the diff stops searching for a minimal script.
pub const MAX_EDIT_DISTANCE: usize = 600;

/// One line of the edit script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Equal(usize, usize),
    Delete(usize),
    Insert(usize),
}

/// A unified diff of `old` against `new` with `context` lines around each change,
/// headed `--- a/<label>` / `+++ b/<label>`; empty when they are equal.
pub fn unified_diff(label: &str, old: &str, new: &str, context: usize) -> String {
    if old == new {
        return String::new();
    }
    let a = crate::output::lines_of(old);
    let b = crate::output::lines_of(new);
    let ops = line_script(&a, &b);
    let mut out = format!("--- a/{label}\n+++ b/{label}\n");
    let changes: Vec<usize> = ops
        .iter()
        .enumerate()
        .filter(|(_, op)| !matches!(op, Op::Equal(..)))
        .map(|(i, _)| i)
        .collect();
    let mut i = 0;
    while i < changes.len() {
        // Grow the hunk while the next change is within 2·context equal lines.
        let mut j = i;
        while j + 1 < changes.len() && changes[j + 1] - changes[j] <= 2 * context + 1 {
            j += 1;
        }
        let start = changes[i].saturating_sub(context);
        let end = (changes[j] + context + 1).min(ops.len());
        write_hunk(&mut out, &ops[start..end], &a, &b);
        i = j + 1;
    }
    out
}

fn write_hunk(out: &mut String, ops: &[Op], a: &[&str], b: &[&str]) {
    let old_start = ops.iter().find_map(|op| match op {
        Op::Equal(x, _) | Op::Delete(x) => Some(*x),
        Op::Insert(_) => None,
    });
    let new_start = ops.iter().find_map(|op| match op {
        Op::Equal(_, y) | Op::Insert(y) => Some(*y),
        Op::Delete(_) => None,
    });
    let old_len = ops.iter().filter(|op| !matches!(op, Op::Insert(_))).count();
    let new_len = ops.iter().filter(|op| !matches!(op, Op::Delete(_))).count();
    // Unified diff numbers lines from 1; an empty side names the line before it.
    let old_line = old_start.map_or(0, |x| x + 1);
    let new_line = new_start.map_or(0, |y| y + 1);
    out.push_str(&format!(
        "@@ -{old_line},{old_len} +{new_line},{new_len} @@\n"
    ));
    for op in ops {
        let (sign, text) = match *op {
            Op::Equal(x, _) => (' ', a[x]),
            Op::Delete(x) => ('-', a[x]),
            Op::Insert(y) => ('+', b[y]),
        };
        out.push(sign);
        out.push_str(text);
        out.push('\n');
    }
}

/// The edit script turning `a` into `b`, line by line.
fn line_script(a: &[&str], b: &[&str]) -> Vec<Op> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let max_suffix = a.len().min(b.len()) - prefix;
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(max_suffix)
        .take_while(|(x, y)| x == y)
        .count();
    let mid_a = &a[prefix..a.len() - suffix];
    let mid_b = &b[prefix..b.len() - suffix];
    let mut ops: Vec<Op> = (0..prefix).map(|i| Op::Equal(i, i)).collect();
    match myers(mid_a, mid_b, MAX_EDIT_DISTANCE) {
        Some(middle) => ops.extend(middle.into_iter().map(|op| match op {
            Op::Equal(x, y) => Op::Equal(x + prefix, y + prefix),
            Op::Delete(x) => Op::Delete(x + prefix),
            Op::Insert(y) => Op::Insert(y + prefix),
        })),
        None => {
            ops.extend((0..mid_a.len()).map(|x| Op::Delete(x + prefix)));
            ops.extend((0..mid_b.len()).map(|y| Op::Insert(y + prefix)));
        }
    }
    let (a_end, b_end) = (a.len() - suffix, b.len() - suffix);
    ops.extend((0..suffix).map(|i| Op::Equal(a_end + i, b_end + i)));
    ops
}

/// Myers' greedy shortest edit script, or `None` past `max_d` changes.
fn myers(a: &[&str], b: &[&str], max_d: usize) -> Option<Vec<Op>> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let limit = (a.len() + b.len()).min(max_d) as isize;
    let offset = limit + 1;
    let mut v = vec![0isize; (2 * limit + 3) as usize];
    let mut trace: Vec<Vec<isize>> = Vec::new();
    for d in 0..=limit {
        trace.push(v.clone());
        let mut k = -d;
        while k <= d {
            let idx = (k + offset) as usize;
            let mut x = if k == -d || (k != d && v[idx - 1] < v[idx + 1]) {
                v[idx + 1]
            } else {
                v[idx - 1] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[idx] = x;
            if x >= n && y >= m {
                return Some(backtrack(&trace, offset, n, m));
            }
            k += 2;
        }
    }
    None
}

fn backtrack(trace: &[Vec<isize>], offset: isize, n: isize, m: isize) -> Vec<Op> {
    let (mut x, mut y) = (n, m);
    let mut ops = Vec::new();
    for d in (0..trace.len() as isize).rev() {
        let v = &trace[d as usize];
        let k = x - y;
        let idx = |k: isize| (k + offset) as usize;
        let prev_k = if k == -d || (k != d && v[idx(k - 1)] < v[idx(k + 1)]) {
            k + 1
        } else {
            k - 1
        };
        let prev_x = if d == 0 { 0 } else { v[idx(prev_k)] };
        let prev_y = if d == 0 { 0 } else { prev_x - prev_k };
        while x > prev_x && y > prev_y {
            x -= 1;
            y -= 1;
            ops.push(Op::Equal(x as usize, y as usize));
        }
        if d > 0 {
            if x == prev_x {
                ops.push(Op::Insert(prev_y as usize));
            } else {
                ops.push(Op::Delete(prev_x as usize));
            }
        }
        x = prev_x;
        y = prev_y;
    }
    ops.reverse();
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_one_line_change_gets_one_hunk_with_context() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n";
        let new = "1\n2\n3\n4x\n5\n6\n7\n8\n";
        let diff = unified_diff("f", old, new, 2);
        assert_eq!(
            diff,
            "--- a/f\n+++ b/f\n@@ -2,5 +2,5 @@\n 2\n 3\n-4\n+4x\n 5\n 6\n"
        );
    }

    #[test]
    fn far_apart_changes_get_separate_hunks_and_insertions_work() {
        let old: String = (1..=20).map(|i| format!("{i}\n")).collect();
        let new = old.replace("\n2\n", "\ntwo\n").replace("18\n", "18\nnew\n");
        let diff = unified_diff("f", &old, &new, 1);
        assert_eq!(diff.matches("@@ -").count(), 2, "{diff}");
        assert!(diff.contains("-2\n+two\n"));
        assert!(diff.contains(" 18\n+new\n"));
        assert_eq!(unified_diff("f", "same", "same", 3), "");
    }

    #[test]
    fn the_script_is_minimal_in_the_middle() {
        let a = ["a", "b", "c", "d"];
        let b = ["a", "c", "d", "e"];
        let ops = line_script(&a, &b);
        let changes = ops.iter().filter(|op| !matches!(op, Op::Equal(..))).count();
        assert_eq!(changes, 2);
    }
}
