//! The 97 SSE conformance cases (../shared/conformance/sse), fed whole, byte by
//! byte, in the chunks listed in index.json, at every single split point, and at
//! seeded random split points. Chunking must never change the result.

use focus_core::json::{self, ToJson, Value};
use focus_testkit::conformance_dir;
use focus_testkit::rng::Rng;
use focus_transport::sse::{SseDecoder, SseEvent};
use std::path::Path;

struct Case {
    name: String,
    input: Vec<u8>,
    expected: Vec<Value>,
    chunks: Option<Vec<usize>>,
}

fn load_cases(dir: &Path) -> Vec<Case> {
    let index = std::fs::read(dir.join("index.json")).expect("index.json");
    let index = json::parse(&index).expect("index.json parses");
    let mut cases = Vec::new();
    for entry in index["cases"].as_array().expect("cases array") {
        let name = entry["name"].as_str().expect("case name").to_string();
        let input = std::fs::read(dir.join("cases").join(format!("{name}.sse"))).unwrap();
        let expected_text =
            std::fs::read_to_string(dir.join("cases").join(format!("{name}.events.jsonl")))
                .unwrap();
        let expected = expected_text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                json::parse_str(l).unwrap_or_else(|e| panic!("{name}: bad expected line: {e}"))
            })
            .collect();
        let chunks = entry["chunks"]
            .as_array()
            .map(|sizes| sizes.iter().map(|n| n.as_u64().unwrap() as usize).collect());
        cases.push(Case {
            name,
            input,
            expected,
            chunks,
        });
    }
    cases
}

/// Feeds `input` cut at the sorted positions `cuts`, then ends the stream.
fn decode_with_cuts(input: &[u8], cuts: &[usize]) -> Vec<SseEvent> {
    let mut decoder = SseDecoder::new();
    let mut events = Vec::new();
    let mut start = 0;
    for &cut in cuts.iter().chain(std::iter::once(&input.len())) {
        decoder.feed(&input[start..cut], &mut events);
        start = cut;
    }
    decoder.finish(&mut events);
    events
}

fn check(case: &Case, how: &str, cuts: &[usize]) {
    let got: Vec<Value> = decode_with_cuts(&case.input, cuts)
        .iter()
        .map(ToJson::to_json)
        .collect();
    if got != case.expected {
        let show = |v: &[Value]| {
            v.iter()
                .map(Value::to_json_string)
                .collect::<Vec<_>>()
                .join("\n  ")
        };
        panic!(
            "case {} fed {how} (cuts {cuts:?}):\n expected:\n  {}\n got:\n  {}",
            case.name,
            show(&case.expected),
            show(&got)
        );
    }
}

/// Runs `test` on every case; returns how many ran (0 when the data is absent).
fn with_cases(mut test: impl FnMut(&Case)) -> usize {
    let Some(dir) = conformance_dir("sse") else {
        return 0;
    };
    let cases = load_cases(&dir);
    assert_eq!(cases.len(), 97, "expected the 97 conformance cases");
    for case in &cases {
        test(case);
    }
    cases.len()
}

#[test]
fn whole() {
    with_cases(|case| check(case, "whole", &[]));
}

#[test]
fn byte_by_byte() {
    with_cases(|case| {
        let cuts: Vec<usize> = (1..case.input.len()).collect();
        check(case, "byte by byte", &cuts);
    });
}

#[test]
fn in_the_chunks_listed_in_the_index() {
    let mut with_chunks = 0;
    let ran = with_cases(|case| {
        if let Some(sizes) = &case.chunks {
            with_chunks += 1;
            let total: usize = sizes.iter().sum();
            assert_eq!(
                total,
                case.input.len(),
                "{}: chunk sizes do not add up",
                case.name
            );
            let cuts: Vec<usize> = sizes
                .iter()
                .scan(0, |at, size| {
                    *at += size;
                    Some(*at)
                })
                .filter(|&at| at < case.input.len())
                .collect();
            check(case, "in index chunks", &cuts);
        }
    });
    assert!(
        ran == 0 || with_chunks > 30,
        "only {with_chunks} cases list chunks"
    );
}

#[test]
fn at_every_single_split_point() {
    with_cases(|case| {
        for cut in 1..case.input.len() {
            check(case, "in two pieces", &[cut]);
        }
    });
}

#[test]
fn at_seeded_random_split_points() {
    let mut rng = Rng::new(0x5EED_0FF0_C5C5);
    with_cases(|case| {
        if case.input.len() < 2 {
            return;
        }
        for _ in 0..30 {
            let pieces = 1 + (rng.next_u64() % 8) as usize;
            let mut cuts: Vec<usize> = (0..pieces)
                .map(|_| 1 + (rng.next_u64() as usize) % (case.input.len() - 1))
                .collect();
            cuts.sort_unstable();
            cuts.dedup();
            check(case, "at random points", &cuts);
        }
    });
}
