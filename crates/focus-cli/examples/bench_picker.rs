//! The pickers' cost per keystroke (issue 22's target: ≤ 16 ms over 10,000
//! tree entries and 100,000 project files), in process, release build:
//!
//! 1. `@` file search: 100,000 project paths walked from a directory made for
//!    the run (the walk's own time, once), then a query typed key by key into
//!    the picker (filter and draw the rows shown), the first key alone and the
//!    slowest key; then Backspace back to one letter. The labels are packed
//!    once (as the walking thread does) before the picker opens. The same over the first
//!    10,000 paths (a picker of 10,000 entries).
//! 2. `/tree` over a 10,000-entry session (a chain with a branch every 50
//!    entries): opening it (building the rows), a search typed key by key, a
//!    fold and unfold of the root, a filter change, a frame drawn.
//! 3. A 200-row Markdown table laid out (issue 33's target: ≤ 5 ms): 6 columns
//!    at 120 columns (a grid, long cells wrapped in their column), the same
//!    with a URL in every row and hyperlinks on, and 12 columns with CJK cells
//!    at 80 (`header: value` blocks); then 200 lines of an answer, each with
//!    three paths (two that exist) and a URL, styled with hyperlinks on (each
//!    path looked up in the file system).
//!
//! Each figure is the median of RUNS runs. Usage: `bench_picker [--files N]`,
//! or `bench_picker --tables` for the tables alone.

use focus_cli::modes::interactive::project_files::project_files;
use focus_cli::modes::interactive::tree_rows::{Filter, TreeRows};
use focus_cli::modes::interactive::tree_view::TreeView;
use focus_cli::terminal::style::Style;
use focus_core::message::{Message, UserMessage};
use focus_harness::session::SessionManager;
use focus_tui::picker::{Item, Picker};
use focus_tui::table::table;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// Runs per figure.
const RUNS: usize = 15;

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}

/// The fastest run: the figure an unloaded machine gives (the shared machine
/// moves medians by 3× from one minute to the next).
fn best(values: &[f64]) -> f64 {
    values.iter().copied().fold(f64::INFINITY, f64::min)
}

/// The CPU time this process used so far (all its threads, ended ones too),
/// in ms: `/proc/self/stat`'s user and system time, in 10 ms ticks, so only
/// sums over many keys mean something.
fn cpu_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) * 10.0
}

/// Each key's median, the slowest of those, and the slowest of each key's
/// fastest run.
fn per_key_figures(per_key: Vec<Vec<f64>>) -> (Vec<f64>, f64, f64) {
    let slowest_best = per_key.iter().map(|k| best(k)).fold(0.0, f64::max);
    let medians: Vec<f64> = per_key.into_iter().map(median).collect();
    let slowest = medians.iter().copied().fold(0.0, f64::max);
    (medians, slowest, slowest_best)
}

fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}

/// A project of `count` files: nested directories with varied names.
fn make_project(root: &Path, count: usize) {
    let words = [
        "core", "util", "model", "view", "render", "parse", "net", "store", "cache", "index",
        "tree", "picker", "session", "config", "agent", "tool", "shell", "main", "test", "docs",
    ];
    let _ = std::fs::remove_dir_all(root);
    let mut seed = 7u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    for d in 0..count.div_ceil(100) {
        let dir = root.join(format!(
            "crates/{}-{}/src/{}_{}",
            words[d % 20],
            d / 20 % 10,
            words[next() % 20],
            d
        ));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..100.min(count - d * 100) {
            let ext = ["rs", "md", "toml", "json", "py"][next() % 5];
            std::fs::write(
                dir.join(format!(
                    "{}_{}{f}.{ext}",
                    words[next() % 20],
                    words[next() % 20]
                )),
                "",
            )
            .unwrap();
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let files = args
        .iter()
        .position(|a| a == "--files")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000usize);
    tables();
    if args.iter().any(|a| a == "--tables") {
        return;
    }
    let root = std::env::temp_dir().join(format!("focus-bench-picker-{}", std::process::id()));
    let made = Instant::now();
    make_project(&root, files);
    eprintln!(
        "(made {files} files in {:.1} s)",
        made.elapsed().as_secs_f64()
    );
    let mut walks = Vec::new();
    let mut paths = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        paths = project_files(&root);
        walks.push(ms(start));
    }
    let _ = std::fs::remove_dir_all(&root);
    println!(
        "walk of the project ({} files, .gitignore respected): {:.1} ms median of 5",
        paths.len(),
        median(walks)
    );
    files_picker(&paths);
    files_picker(&paths[..paths.len().min(10_000)]);
    tree(10_000);
}

/// A 200-row table laid out: the median and the slowest of RUNS runs.
fn tables() {
    let cell = |r: usize, c: usize, links: bool| match c % 4 {
        0 => format!("值{r}の{c}"),
        1 => format!("a longer **cell** of row {r} that wraps in its column"),
        3 if links => format!("https://example.com/r{r}/c{c}"),
        _ => format!("v{r}x{c}"),
    };
    for (columns, width, links) in [(6usize, 120usize, false), (6, 120, true), (12, 80, false)] {
        let mut lines = vec![
            format!(
                "| {} |",
                (1..=columns)
                    .map(|c| format!("Col{c}"))
                    .collect::<Vec<_>>()
                    .join(" | ")
            ),
            format!("|{}|", vec!["---"; columns].join("|")),
        ];
        for r in 0..200 {
            lines.push(format!(
                "| {} |",
                (1..=columns)
                    .map(|c| cell(r, c, links))
                    .collect::<Vec<_>>()
                    .join(" | ")
            ));
        }
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let mut times = Vec::new();
        let mut rows = 0;
        for _ in 0..RUNS {
            let start = Instant::now();
            rows = table(&lines, Style::COLOR, width, links).len();
            times.push(ms(start));
        }
        let slowest = times.iter().copied().fold(0.0, f64::max);
        let linked = if links {
            " (a URL a row, hyperlinks)"
        } else {
            ""
        };
        println!(
            "200-row table, {columns} columns at {width}{linked}: {rows} rows, {:.2} ms median, {slowest:.2} ms slowest of {RUNS}",
            median(times)
        );
    }
    answer_with_links();
}

/// 200 lines of an answer with paths and a URL each, styled with hyperlinks
/// on, paths resolved as the screen does (from the current directory).
fn answer_with_links() {
    use focus_cli::modes::interactive::linkify::{host_name, resolve_path};
    let lines: Vec<String> = (0..200)
        .map(|r| format!("Line {r}: see `Cargo.toml`, crates/focus-cli/src/main.rs:{r} and gone/file{r}.rs, or https://example.com/{r}."))
        .collect();
    let mut times = Vec::new();
    let mut links = 0;
    for _ in 0..RUNS {
        let mut markdown = focus_tui::markdown::Markdown::new();
        markdown.hyperlinks = true;
        markdown.paths = Some((resolve_path, host_name()));
        let start = Instant::now();
        let rows: Vec<String> = lines
            .iter()
            .flat_map(|line| markdown.rows(line, Style::COLOR, 120))
            .collect();
        times.push(ms(start));
        links = rows
            .iter()
            .map(|r| r.matches("\x1b]8;;file://").count())
            .sum();
    }
    let slowest = times.iter().copied().fold(0.0, f64::max);
    println!(
        "200 answer lines with links at 120 ({links} file links): {:.2} ms median, {slowest:.2} ms slowest of {RUNS}",
        median(times)
    );
}

/// Keystrokes into the `@` picker over `paths`.
fn files_picker(paths: &[String]) {
    let query = "core/src/mainrs";
    let (mut pack, mut open) = (Vec::new(), Vec::new());
    let mut per_key: Vec<Vec<f64>> = vec![Vec::new(); query.len()];
    let mut back: Vec<f64> = Vec::new();
    let mut cpu = vec![0.0; query.len()];
    for _ in 0..RUNS {
        let items: Vec<Item> = paths.iter().map(|p| Item::new(p.clone(), "")).collect();
        let items = Arc::new(items);
        // As the UI does: packed once on the walking thread, opened on `@`.
        let start = Instant::now();
        let labels = Arc::new(Picker::pack(&items));
        pack.push(ms(start));
        let start = Instant::now();
        let mut picker = Picker::packed("files", items, labels);
        picker.rows(100, 12, Style::COLOR);
        open.push(ms(start));
        let mut typed = String::new();
        for (i, c) in query.chars().enumerate() {
            typed.push(c);
            let (start, on_cpu) = (Instant::now(), cpu_ms());
            picker.set_query(&typed);
            picker.rows(100, 12, Style::COLOR);
            per_key[i].push(ms(start));
            cpu[i] += cpu_ms() - on_cpu;
        }
        let start = Instant::now();
        picker.set_query(&query[..1]);
        picker.rows(100, 12, Style::COLOR);
        back.push(ms(start));
    }
    let (medians, slowest, slowest_best) = per_key_figures(per_key);
    println!(
        "files picker, {} paths: packing the labels (on the walking thread) {:.2} ms; open {:.2} ms; first key {:.2} ms; slowest key {:.2} ms (fastest runs: {:.2}); per key {}; CPU per key, mean over the runs, all threads {}; back to one letter {:.2} ms",
        paths.len(),
        median(pack),
        median(open),
        medians[0],
        slowest,
        slowest_best,
        medians.iter().map(|m| format!("{m:.2}")).collect::<Vec<_>>().join(" "),
        cpu.iter().map(|c| format!("{:.1}", c / RUNS as f64)).collect::<Vec<_>>().join(" "),
        median(back)
    );
}

/// A session of `count` entries: a chain with a branch of five every 50.
fn session(count: usize) -> SessionManager {
    let mut s = SessionManager::in_memory(Path::new("/tmp"));
    let mut last = None;
    let mut i = 0;
    while i < count {
        if i % 50 == 49 {
            let back: Option<String> = last.clone();
            for k in 0..5 {
                let text = format!("side {i} step {k} tried another way");
                s.append_message(&Message::User(UserMessage::text(text, 0)))
                    .unwrap();
            }
            s.move_leaf(back.as_deref()).unwrap();
            i += 5;
        }
        let text = format!("message {i}: please look at the parser and the renderer");
        last = Some(
            s.append_message(&Message::User(UserMessage::text(text, 0)))
                .unwrap(),
        );
        i += 1;
    }
    s
}

/// The `/tree` navigator over a session of `count` entries.
fn tree(count: usize) {
    let s = session(count);
    let query = "message 4242";
    let (mut open, mut fold, mut filter, mut frame) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut per_key: Vec<Vec<f64>> = vec![Vec::new(); query.len()];
    let mut entries = 0;
    for _ in 0..RUNS {
        let start = Instant::now();
        let mut view = TreeView::new(TreeRows::new(s.tree()));
        view.render(120, 40, Style::COLOR);
        open.push(ms(start));
        entries = view.tree().len();
        let mut rows = TreeRows::new(s.tree());
        let start = Instant::now();
        rows.fold(0);
        rows.unfold(0);
        fold.push(ms(start));
        let start = Instant::now();
        rows.set_filter(Filter::User, 0);
        filter.push(ms(start));
        rows.set_filter(Filter::Default, 0);
        let mut typed = String::new();
        for (i, c) in query.chars().enumerate() {
            typed.push(c);
            let start = Instant::now();
            rows.set_query(&typed, 0);
            per_key[i].push(ms(start));
        }
        let start = Instant::now();
        view.render(120, 40, Style::COLOR);
        frame.push(ms(start));
    }
    let (medians, slowest, slowest_best) = per_key_figures(per_key);
    println!(
        "tree, {entries} entries: open {:.2} ms (fastest run {:.2}); search first key {:.2} ms, slowest key {:.2} ms (fastest runs: {:.2}); fold+unfold of the root {:.2} ms; filter change {:.2} ms; a frame {:.3} ms",
        median(open.clone()),
        best(&open),
        medians[0],
        slowest,
        slowest_best,
        median(fold),
        median(filter),
        median(frame)
    );
}
