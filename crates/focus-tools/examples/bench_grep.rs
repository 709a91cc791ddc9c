//! Benchmark: focus's grep against GNU grep on a large generated Rust-like tree.
//!
//! Run with `cargo run --release -p focus-tools --example bench_grep`. The tree
//! (~20,000 files, ~200 MB) is generated once under the temp directory and
//! reused. Each search runs once to warm the page cache, then five times for
//! each tool, alternating; the median wall time is reported with the ratio
//! focus / GNU grep. Targets: literal within 3×, regex within 5×.
//!
//! Both sides search the whole tree and report every match with line numbers
//! (focus with a limit high enough never to stop early; GNU grep with `-rn`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use focus_core::cancel::CancelToken;
use focus_core::json_object;
use focus_core::tool::ToolContext;

const DIRS: usize = 50;
const SUBDIRS: usize = 20;
const FILES_PER_DIR: usize = 20;
const RUNS: usize = 5;

fn main() {
    let root = std::env::temp_dir().join("focus-bench-grep-tree");
    let (files, bytes) = ensure_tree(&root);
    println!(
        "tree: {} ({files} files, {:.0} MB)",
        root.display(),
        bytes as f64 / 1e6
    );
    if Command::new("grep")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_err()
    {
        println!("GNU grep not found; nothing to compare against");
        return;
    }
    let cases: [(&str, &str, bool, &[&str]); 4] = [
        ("literal", "focus_bench_needle", true, &["-rn", "-F"]),
        (
            "literal, common",
            "Vec::with_capacity",
            true,
            &["-rn", "-F"],
        ),
        ("regex", r"fn\s+handle_[a-z]+_request\(", false, &["-rnE"]),
        ("regex, no literal", r"\b[0-9]{4} [=>]", false, &["-rnE"]),
    ];
    println!(
        "{:<18} {:>10} {:>10} {:>8} {:>9} {:>9}",
        "case", "focus ms", "grep ms", "ratio", "focus n", "grep n"
    );
    for (label, pattern, literal, grep_flags) in cases {
        let focus_run = || focus_grep(&root, pattern, literal);
        let grep_run = || gnu_grep(&root, pattern, grep_flags);
        let (focus_count, grep_count) = (focus_run().1, grep_run().1);
        let mut focus_times = Vec::new();
        let mut grep_times = Vec::new();
        for _ in 0..RUNS {
            focus_times.push(focus_run().0);
            grep_times.push(grep_run().0);
        }
        let f = median(&mut focus_times);
        let g = median(&mut grep_times);
        println!(
            "{label:<18} {:>10.1} {:>10.1} {:>7.2}x {focus_count:>9} {grep_count:>9}",
            ms(f),
            ms(g),
            f.as_secs_f64() / g.as_secs_f64()
        );
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// Runs focus's grep tool in-process; returns the time and the match count.
fn focus_grep(root: &Path, pattern: &str, literal: bool) -> (Duration, u64) {
    let tool = focus_tools::tool_by_name("grep", root, &focus_tools::ToolState::unconfined())
        .expect("grep tool");
    let cancel = CancelToken::new();
    let ctx = ToolContext {
        call_id: "bench",
        cancel: &cancel,
        on_update: &|_| {},
    };
    let args = json_object! { "pattern" => pattern, "literal" => literal, "limit" => 10_000_000 };
    let started = Instant::now();
    let out = tool.execute(&args, &ctx);
    let elapsed = started.elapsed();
    assert!(!out.is_error, "{}", out.text_content());
    (elapsed, out.details["matches"].as_u64().unwrap_or(0))
}

/// Runs GNU grep over the tree; returns the time and the number of output lines.
fn gnu_grep(root: &Path, pattern: &str, flags: &[&str]) -> (Duration, u64) {
    let started = Instant::now();
    let out = Command::new("grep")
        .args(flags)
        .arg("--")
        .arg(pattern)
        .arg(".")
        .current_dir(root)
        .env("LC_ALL", "C.UTF-8")
        .output()
        .expect("run grep");
    let elapsed = started.elapsed();
    (
        elapsed,
        out.stdout.iter().filter(|&&b| b == b'\n').count() as u64,
    )
}

/// Creates the tree unless a complete one exists; returns (files, bytes).
fn ensure_tree(root: &Path) -> (usize, u64) {
    let marker = root.join(".complete");
    if !marker.exists() {
        let _ = std::fs::remove_dir_all(root);
        println!("generating {} …", root.display());
        generate(root);
        std::fs::write(&marker, "").expect("marker");
    }
    let (mut files, mut bytes) = (0, 0);
    count(root, &mut files, &mut bytes);
    (files, bytes)
}

fn count(dir: &Path, files: &mut usize, bytes: &mut u64) {
    for entry in std::fs::read_dir(dir).expect("read tree").flatten() {
        let meta = entry.metadata().expect("metadata");
        if meta.is_dir() {
            count(&entry.path(), files, bytes);
        } else {
            *files += 1;
            *bytes += meta.len();
        }
    }
}

/// The generator of the benchmark tree: plain xorshift64, kept (rather than
/// `focus_testkit::rng::Rng`) so the tree, and the match counts recorded in
/// docs/benchmarks.md, stay the same from run to run of every version.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

const VERBS: &[&str] = &[
    "parse", "build", "render", "load", "store", "merge", "split", "encode", "decode", "apply",
    "check", "resolve",
];
const NOUNS: &[&str] = &[
    "token", "buffer", "session", "message", "config", "request", "frame", "record", "entry",
    "index", "cursor", "layout",
];
const TYPES: &[&str] = &[
    "String", "Vec<u8>", "Config", "Session", "Frame", "Record", "Layout", "Token",
];
const WORDS: &[&str] = &[
    "the",
    "value",
    "returns",
    "when",
    "input",
    "is",
    "empty",
    "otherwise",
    "each",
    "item",
    "parsed",
    "stream",
    "state",
    "kept",
];

fn generate(root: &Path) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    std::fs::create_dir_all(root).expect("create root");
    std::fs::write(root.join(".gitignore"), "target/\n*.tmp\n").expect("gitignore");
    for d in 0..DIRS {
        for s in 0..SUBDIRS {
            let dir: PathBuf = root.join(format!("crates/c{d:02}/src/m{s:02}"));
            std::fs::create_dir_all(&dir).expect("create dir");
            for f in 0..FILES_PER_DIR {
                let target = 4_000 + (rng.next() % 12_000) as usize;
                let mut text = String::with_capacity(target + 1024);
                text.push_str("use std::collections::HashMap;\nuse crate::error::Error;\n\n");
                while text.len() < target {
                    function(&mut rng, &mut text);
                }
                let mut file =
                    std::fs::File::create(dir.join(format!("f{f:02}.rs"))).expect("create file");
                file.write_all(text.as_bytes()).expect("write file");
            }
        }
    }
}

fn function(rng: &mut Rng, out: &mut String) {
    let verb = rng.pick(VERBS);
    let noun = rng.pick(NOUNS);
    let ty = rng.pick(TYPES);
    let n = rng.next() % 9000 + 1000;
    let doc: Vec<&str> = (0..8).map(|_| rng.pick(WORDS)).collect();
    out.push_str(&format!("/// {}.\n", doc.join(" ")));
    let name = match rng.next() % 400 {
        0 => format!("handle_{noun}_request"),
        _ => format!("{verb}_{noun}_{n}"),
    };
    out.push_str(&format!(
        "pub fn {name}(input: &{ty}, count: usize) -> Result<{ty}, Error> {{\n"
    ));
    out.push_str(&format!(
        "    let mut {noun}s = Vec::with_capacity(count);\n"
    ));
    out.push_str("    for i in 0..count {\n");
    out.push_str(&format!("        if i % {n} == 0 {{\n            {noun}s.push(input.{verb}(i)?);\n        }}\n    }}\n"));
    if rng.next() % 1000 == 0 {
        out.push_str("    // focus_bench_needle: a rare marker the literal benchmark looks for.\n");
    }
    out.push_str(&format!(
        "    match {noun}s.len() {{\n        0 => Err(Error::Empty),\n        n if n > {n} => Err(Error::TooMany(n)),\n        _ => Ok({ty}::from({noun}s)),\n    }}\n}}\n\n"
    ));
}
