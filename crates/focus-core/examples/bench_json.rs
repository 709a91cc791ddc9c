//! Parse and serialize throughput of `focus_core::json` on three generated documents.
//!
//! Run with `cargo run --release -p focus-core --example bench_json`. Prints MB/s for
//! parsing and for compact serialization, the median of repeated runs:
//! - `session`: a ~1 MB array of objects shaped like pi session entries;
//! - `deep`: a legal document nested 5,000 levels, arrays and objects mixed with data;
//! - `strings`: a ~1 MB array of long strings, some with escapes and non-ASCII.
//!
//! Then it times `parse_partial` the way a streaming tool call uses it: a 50 KB
//! argument object arriving in 1,000 deltas, re-parsed after every delta.
//!
//! The inputs are generated deterministically (no files, no randomness from the OS)
//! so that figures are comparable between runs and with other JSON libraries fed the
//! same generator.

use focus_core::json::{parse, parse_partial, Value};
use focus_testkit::rng::Rng;
use std::hint::black_box;
use std::time::{Duration, Instant};

fn main() {
    println!("MB/s, median of repeated runs [best run]; on a busy machine the best run");
    println!("is the steadier figure.");
    println!(
        "{:<10} {:>9} {:>18} {:>18}",
        "document", "size", "parse MB/s", "write MB/s"
    );
    for (name, text) in documents() {
        let bytes = text.as_bytes();
        let value: Value = match parse(bytes) {
            Ok(v) => v,
            Err(e) => {
                println!("{name}: generated document does not parse: {e}");
                std::process::exit(1);
            }
        };
        let parse_rate = median_rate(bytes.len(), || {
            black_box(parse(black_box(bytes)).is_ok());
        });
        let written_len = value.to_json_string().len();
        let write_rate = median_rate(written_len, || {
            black_box(black_box(&value).to_json_string());
        });
        println!(
            "{name:<10} {:>8}K {:>11.0} [{:>4.0}] {:>11.0} [{:>4.0}]",
            bytes.len() / 1024,
            parse_rate.0,
            parse_rate.1,
            write_rate.0,
            write_rate.1
        );
    }
    bench_partial_streaming();
}

/// A 50 KB `{"path", "content"}` argument streamed in 1,000 deltas: parse the
/// accumulated prefix after each delta, as a provider adapter does.
fn bench_partial_streaming() {
    let content = string_document(50_000);
    let doc = format!(
        "{{\"path\":\"src/big.json\",\"content\":{}}}",
        Value::from(content).to_json_string()
    );
    let deltas = 1_000;
    let step = doc.len() / deltas + 1;
    let mut cuts: Vec<usize> = (1..=deltas).map(|i| (i * step).min(doc.len())).collect();
    for cut in &mut cuts {
        while !doc.is_char_boundary(*cut) {
            *cut -= 1;
        }
    }
    let mut total_bytes = 0;
    let started = Instant::now();
    for &cut in &cuts {
        total_bytes += cut;
        black_box(parse_partial(black_box(&doc[..cut])));
    }
    let elapsed = started.elapsed();
    println!(
        "partial: {} KB argument in {deltas} deltas: {:.1} ms in all, {:.0} MB/s over the {} MB re-read",
        doc.len() / 1024,
        elapsed.as_secs_f64() * 1e3,
        total_bytes as f64 / elapsed.as_secs_f64().max(1e-9) / 1e6,
        total_bytes / 1_000_000
    );
}

/// Runs `work` repeatedly (at least 11 times and about half a second) and returns the
/// median and the best throughput in MB/s for `len` bytes per run.
fn median_rate(len: usize, mut work: impl FnMut()) -> (f64, f64) {
    work(); // warm up caches and the allocator
    let mut times: Vec<Duration> = Vec::new();
    let started = Instant::now();
    while times.len() < 11 || (started.elapsed() < Duration::from_millis(500) && times.len() < 1000)
    {
        let t = Instant::now();
        work();
        times.push(t.elapsed());
    }
    times.sort();
    let rate = |t: Duration| len as f64 / t.as_secs_f64().max(1e-9) / 1e6;
    (rate(times[times.len() / 2]), rate(times[0]))
}

// ---- document generators (std only, deterministic) ----

/// The three benchmark documents, by name.
fn documents() -> Vec<(&'static str, String)> {
    vec![
        ("session", session_document(1_000_000)),
        ("deep", deep_document(5_000)),
        ("strings", string_document(1_000_000)),
    ]
}

const WORDS: &[&str] = &[
    "read",
    "the",
    "file",
    "src/main.rs",
    "and",
    "fix",
    "error",
    "in",
    "function",
    "parse",
    "cargo",
    "test",
    "passed",
    "failed",
    "line",
    "42",
    "value",
    "returns",
    "None",
    "because",
];

fn words(rng: &mut Rng, n: u64) -> String {
    let mut s = String::new();
    for i in 0..n {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(WORDS[rng.below_u64(WORDS.len() as u64) as usize]);
    }
    s
}

/// An array of pi-style session entries (user, assistant with a tool call and usage,
/// tool result with multi-line output), about `target` bytes long.
fn session_document(target: usize) -> String {
    let mut rng = Rng::new(0x1234_5678_9abc_def0);
    let mut out = String::from("[");
    let mut i: u64 = 0;
    while out.len() < target {
        if i > 0 {
            out.push(',');
        }
        let id = rng.next_u64() as u32;
        let parent = rng.next_u64() as u32;
        let ts = 1_796_222_846_157 + i * 37;
        let head = format!(
            "{{\"type\":\"message\",\"id\":\"{id:08x}\",\"parentId\":\"{parent:08x}\",\"timestamp\":\"2026-12-02T14:47:26.{:03}Z\",\"message\":",
            i % 1000
        );
        out.push_str(&head);
        match i % 3 {
            0 => out.push_str(&format!(
                "{{\"role\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":\"{}\"}}],\"timestamp\":{ts}}}}}",
                words(&mut rng, 12)
            )),
            1 => {
                let input = rng.below_u64(100_000);
                let output = rng.below_u64(2_000);
                out.push_str(&format!(
                    "{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"{}\"}},{{\"type\":\"toolCall\",\"id\":\"toolu_{id:08x}\",\"name\":\"bash\",\"arguments\":{{\"command\":\"grep -n \\\"{}\\\" src/lib.rs\",\"timeout\":{}}}}}],\"api\":\"anthropic-messages\",\"provider\":\"anthropic\",\"model\":\"claude-sonnet-4-5\",\"usage\":{{\"input\":{input},\"output\":{output},\"cacheRead\":{},\"cacheWrite\":0,\"totalTokens\":{},\"cost\":{{\"input\":{:.6},\"output\":{:.6},\"cacheRead\":0,\"cacheWrite\":0,\"total\":{:.6}}}}},\"stopReason\":\"toolUse\",\"timestamp\":{ts},\"responseId\":\"msg_{parent:08x}\"}}}}",
                    words(&mut rng, 20),
                    words(&mut rng, 1),
                    rng.below_u64(600),
                    rng.below_u64(50_000),
                    input + output,
                    input as f64 * 3e-6,
                    output as f64 * 15e-6,
                    input as f64 * 3e-6 + output as f64 * 15e-6
                ));
            }
            _ => {
                let mut text = String::new();
                for line in 0..rng.below_u64(12) + 1 {
                    text.push_str(&format!("src/lib.rs:{line}: {}\\n", words(&mut rng, 8)));
                }
                out.push_str(&format!(
                    "{{\"role\":\"toolResult\",\"toolCallId\":\"toolu_{id:08x}\",\"toolName\":\"bash\",\"content\":[{{\"type\":\"text\",\"text\":\"{text}\"}}],\"isError\":false,\"timestamp\":{ts}}}}}"
                ));
            }
        }
        i += 1;
    }
    out.push(']');
    out
}

/// `depth` levels alternating objects and arrays, each level carrying some data.
fn deep_document(depth: usize) -> String {
    let mut out = String::new();
    for level in 0..depth {
        if level % 2 == 0 {
            out.push_str(&format!(
                "{{\"level\":{level},\"name\":\"node {level}\",\"ok\":true,\"weight\":{}.25,\"child\":",
                level % 97
            ));
        } else {
            out.push_str(&format!("[{level},\"item {level}\",null,false,"));
        }
    }
    out.push_str("\"leaf\"");
    for level in (0..depth).rev() {
        out.push(if level % 2 == 0 { '}' } else { ']' });
    }
    out
}

/// An array of long strings: plain ASCII prose, some with escapes (quotes, newlines,
/// tabs, `\u` sequences) and some with multi-byte UTF-8.
fn string_document(target: usize) -> String {
    let mut rng = Rng::new(0x0bad_cafe_f00d_d00d);
    let mut out = String::from("[");
    let mut first = true;
    while out.len() < target {
        if !first {
            out.push(',');
        }
        first = false;
        let count = 40 + rng.below_u64(200);
        let mut s = words(&mut rng, count);
        match rng.below_u64(4) {
            0 => s.push_str(" \\\"quoted\\\"\\n\\tindented \\u00e9\\ud83d\\ude00"),
            1 => s.push_str(" héllo wörld — 你好 😀"),
            _ => {}
        }
        out.push('"');
        out.push_str(&s);
        out.push('"');
    }
    out.push(']');
    out
}
