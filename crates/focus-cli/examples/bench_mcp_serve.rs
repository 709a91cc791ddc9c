//! `focus mcp serve` under load: the release binary serves Streamable HTTP on
//! loopback; 1,000 `read` calls in a row (one session, a connection each),
//! then 16 clients at once (a session each, 200 calls each), then 1,000 calls
//! in a row over stdio. For each: calls, failures, calls per second, and the
//! server's resident memory (VmRSS) after warming up, in the middle and at
//! the end, with its peak (VmHWM): flat memory is the point.
//!
//! Usage: `bench_mcp_serve [--focus PATH]`. Std only.

#[path = "bench_support/mod.rs"]
mod bench_support;

use bench_support::{default_focus, flag_value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

const TOKEN: &str = "bench-token-0123456789abcdef";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let focus = flag_value(&args, "--focus")
        .map(PathBuf::from)
        .unwrap_or_else(default_focus);
    // The server runs in a folder of its own: the path must not be relative.
    let focus = std::fs::canonicalize(&focus).unwrap_or(focus);
    let root = std::env::temp_dir().join(format!("focus-bench-mcp-{}", std::process::id()));
    let (home, work) = (root.join("home"), root.join("work"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(work.join("a.txt"), "hello\nworld\n").unwrap();
    http_rows(&focus, &home, &work);
    stdio_row(&focus, &home, &work);
    let _ = std::fs::remove_dir_all(&root);
}

fn command(focus: &Path, home: &Path, work: &Path, extra: &[&str]) -> Command {
    let mut cmd = Command::new(focus);
    cmd.args(["mcp", "serve"])
        .args(extra)
        .current_dir(work)
        .env("FOCUS_HOME", home)
        .env("FOCUS_OFFLINE", "1")
        .env("FOCUS_MCP_AUTH_TOKEN", TOKEN);
    cmd
}

fn read_call(id: usize) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"read","arguments":{{"path":"a.txt"}}}}}}"#
    )
}

fn ok(answer: &str) -> bool {
    answer.contains(r#""isError":false"#) && answer.contains("hello")
}

fn rss(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// One POST on a new connection; the status and the body.
fn post(address: &str, session: Option<&str>, body: &str) -> (u16, String, String) {
    let Ok(mut stream) = TcpStream::connect(address) else {
        return (0, String::new(), String::new());
    };
    let session = session.map_or(String::new(), |s| format!("Mcp-Session-Id: {s}\r\n"));
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\n{session}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(request.as_bytes());
    let mut raw = String::new();
    let _ = stream.read_to_string(&mut raw);
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let session = head
        .lines()
        .find_map(|l| l.strip_prefix("Mcp-Session-Id: "))
        .unwrap_or("")
        .to_string();
    (status, session, body.to_string())
}

fn initialize(address: &str) -> String {
    post(
        address,
        None,
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#,
    )
    .1
}

fn http_rows(focus: &Path, home: &Path, work: &Path) {
    let mut server: Child = command(focus, home, work, &["--listen", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .spawn()
        .expect("focus starts");
    let mut lines = BufReader::new(server.stderr.take().unwrap()).lines();
    let address = loop {
        let line = lines.next().expect("focus says where it listens").unwrap();
        if let Some(at) = line.find("http://") {
            break line[at + 7..].trim_end_matches("/mcp").to_string();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    let pid = server.id();
    let session = initialize(&address);
    for id in 0..50 {
        post(&address, Some(&session), &read_call(id));
    }
    let warm = rss(pid, "VmRSS:");
    let started = Instant::now();
    let mut failures = 0;
    let mut middle = 0;
    for id in 0..1_000 {
        if !ok(&post(&address, Some(&session), &read_call(id)).2) {
            failures += 1;
        }
        if id == 500 {
            middle = rss(pid, "VmRSS:");
        }
    }
    let took = started.elapsed().as_secs_f64();
    println!(
        "http, 1,000 calls in a row:   failures {failures}, {:>6.0} calls/s, RSS {warm} → {middle} → {} KiB",
        1_000.0 / took,
        rss(pid, "VmRSS:")
    );
    let before = rss(pid, "VmRSS:");
    let started = Instant::now();
    let failures: usize = std::thread::scope(|scope| {
        let clients: Vec<_> = (0..16)
            .map(|_| {
                scope.spawn(|| {
                    let session = initialize(&address);
                    (0..200)
                        .filter(|&id| !ok(&post(&address, Some(&session), &read_call(id)).2))
                        .count()
                })
            })
            .collect();
        clients.into_iter().map(|c| c.join().unwrap()).sum()
    });
    let took = started.elapsed().as_secs_f64();
    println!(
        "http, 16 clients × 200 calls: failures {failures}, {:>6.0} calls/s, RSS {before} → {} KiB, peak {} KiB",
        3_200.0 / took,
        rss(pid, "VmRSS:"),
        rss(pid, "VmHWM:")
    );
    let _ = server.kill();
    let _ = server.wait();
}

fn stdio_row(focus: &Path, home: &Path, work: &Path) {
    let mut server = command(focus, home, work, &[])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("focus starts");
    let pid = server.id();
    let mut input = server.stdin.take().unwrap();
    let mut output = BufReader::new(server.stdout.take().unwrap()).lines();
    let mut call = |id: usize| {
        writeln!(input, "{}", read_call(id)).unwrap();
        output.next().and_then(Result::ok).is_some_and(|a| ok(&a))
    };
    for id in 0..50 {
        call(id);
    }
    let warm = rss(pid, "VmRSS:");
    let started = Instant::now();
    let failures = (0..1_000).filter(|&id| !call(id)).count();
    let took = started.elapsed().as_secs_f64();
    println!(
        "stdio, 1,000 calls in a row:  failures {failures}, {:>6.0} calls/s, RSS {warm} → {} KiB, peak {} KiB",
        1_000.0 / took,
        rss(pid, "VmRSS:"),
        rss(pid, "VmHWM:")
    );
    let _ = server.kill();
    let _ = server.wait();
}
