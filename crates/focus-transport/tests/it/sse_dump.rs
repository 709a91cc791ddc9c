//! `sse_dump` (the example) prints the same events for `--chunk 1` as for the whole
//! input, on every recorded provider stream, and the conformance meanings on a case.

use focus_testkit::streams::recorded_streams;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The `sse_dump` binary, built once for this test run. `cargo test --test
/// sse_dump` alone does not build examples, so the test asks Cargo itself rather
/// than trusting whatever binary an earlier build left behind.
fn sse_dump() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().unwrap();
            let profile_dir = exe.parent().unwrap().parent().unwrap(); // target/<profile>/deps
            let release = profile_dir.ends_with("release");
            let mut cargo = Command::new(env!("CARGO"));
            cargo
                .args([
                    "build",
                    "--quiet",
                    "--example",
                    "sse_dump",
                    "--manifest-path",
                ])
                .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"));
            if release {
                cargo.arg("--release");
            }
            let output = cargo.output().expect("run cargo");
            assert!(
                output.status.success(),
                "building sse_dump failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            profile_dir.join("examples").join("sse_dump")
        })
        .clone()
}

fn run(input: &[u8], args: &[&str]) -> String {
    let mut child = Command::new(sse_dump())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run sse_dump");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        output.status.success(),
        "sse_dump failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn chunk_one_equals_whole_on_every_provider_stream() {
    let Some(streams) = recorded_streams() else {
        return;
    };
    let files: Vec<_> = streams.into_iter().map(|s| s.path).collect();
    assert!(files.len() >= 50, "found only {} .sse files", files.len());
    for file in files {
        let input = std::fs::read(&file).unwrap();
        let whole = run(&input, &[]);
        let bytewise = run(&input, &["--chunk", "1"]);
        assert!(!whole.is_empty(), "{}: no events", file.display());
        assert_eq!(whole, bytewise, "{}", file.display());
    }
}

#[test]
fn prints_conformance_meanings() {
    let out = run(
        b"retry: 50\nid: 7\ndata: a\n\nevent: e\ndata: b\ndata: c\n\ndata: open",
        &["--chunk", "3"],
    );
    assert_eq!(
        out,
        "{\"event\":null,\"data\":\"a\",\"id\":\"7\",\"retry\":50}\n\
         {\"event\":\"e\",\"data\":\"b\\nc\",\"id\":\"7\",\"retry\":50}\n"
    );
}

#[test]
fn rejects_bad_arguments() {
    let output = Command::new(sse_dump())
        .args(["--chunk", "0"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("positive number"));
}

#[test]
fn prints_each_event_before_the_input_ends() {
    use std::io::BufRead;
    let mut child = Command::new(sse_dump())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    stdin.write_all(b"data: early\n\n").unwrap();
    stdin.flush().unwrap();
    let (sender, receiver) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut lines = std::io::BufReader::new(stdout).lines();
        let _ = sender.send(lines.next());
    });
    // stdin is still open: the line can only come from streaming output.
    let first = receiver.recv_timeout(std::time::Duration::from_secs(10));
    drop(stdin);
    let status = child.wait().unwrap();
    reader.join().unwrap();
    let line = first
        .expect("no event printed while the input was open")
        .unwrap()
        .unwrap();
    assert_eq!(
        line,
        "{\"event\":null,\"data\":\"early\",\"id\":\"\",\"retry\":null}"
    );
    assert!(status.success());
}
