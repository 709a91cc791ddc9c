//! Streaming benchmark: a loopback server streams an answer of N text deltas of 4
//! characters (OpenAI Chat Completions format), and the release `focus` binary
//! reads it in every mode — text (`-p`), `--mode json`, `--mode rpc`, and the
//! interactive mode under a pseudo-terminal (tmux) — beside `curl` reading the same
//! stream (the floor). A second scenario streams a `write` tool call whose `content`
//! arrives in N deltas. For each, the wall time and focus's own peak RSS (VmHWM,
//! reported at exit through `FOCUS_REPORT_PEAK_RSS`), at 20,000 and 80,000 deltas,
//! and the 80k/20k growth of the time.
//!
//! With pi installed (`PI_BIN`, `/tmp/pi` or `/opt/pi`), pi's `--mode json` reads
//! the same stream beside focus's `--events deltas` (time and bytes).
//!
//! Usage: `bench_stream [--focus PATH] [--quick] [--only TEXT]` (`--quick` runs
//! 2,000 and 8,000 deltas; `--only` the rows whose name contains TEXT). Std only; curl and tmux are used when found.

#[path = "bench_support/mod.rs"]
mod bench_support;

use bench_support::{default_focus, flag_value, tmux, write_models_json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the server streams.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    /// An answer of N text deltas.
    Text,
    /// A `write` tool call whose arguments arrive in N deltas, then (on the next
    /// request) a short answer.
    WriteCall,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let focus = flag_value(&args, "--focus")
        .map(PathBuf::from)
        .unwrap_or_else(default_focus);
    let quick = args.iter().any(|a| a == "--quick");
    // `--serve N`: only the server, streaming N deltas, until killed (to try a
    // client by hand).
    if let Some(n) = flag_value(&args, "--serve").and_then(|n| n.parse().ok()) {
        let server = Server::start(Shape::Text, n);
        println!("{}/v1/chat/completions", server.url());
        loop {
            std::thread::park();
        }
    }
    // `--only TEXT`: only the rows whose name contains TEXT (for profiling one).
    let only = flag_value(&args, "--only");
    let sizes: [usize; 2] = if quick {
        [2_000, 8_000]
    } else {
        [20_000, 80_000]
    };
    if !focus.is_file() {
        eprintln!("bench_stream: no focus binary at {}", focus.display());
        std::process::exit(2);
    }
    let work = std::env::temp_dir().join(format!("focus-bench-stream-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&work);
    let tmux = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    println!("streaming: N deltas of 4 characters from a loopback server; wall time and focus's own peak RSS");
    println!(
        "{:<34} {:>8} {:>12} {:>10} {:>12} {:>10} {:>9}",
        "what", "", "time N1 (s)", "RSS N1", "time N2 (s)", "RSS N2", "N2/N1"
    );
    // Each cell is the median of RUNS runs (the largest peak RSS of them); a row
    // returns its times so print mode can be set against curl's.
    let row = |name: &str, run: &dyn Fn(usize) -> Option<(f64, Option<u64>)>| -> [Option<f64>; 2] {
        if only
            .as_ref()
            .is_some_and(|only| !name.contains(only.as_str()))
        {
            return [None, None];
        }
        let a = median_run(sizes[0], run);
        let b = median_run(sizes[1], run);
        let cell = |r: Option<(f64, Option<u64>)>| match r {
            Some((t, rss)) => (
                format!("{t:.3}"),
                rss.map_or("-".into(), |k| format!("{:.1} MB", k as f64 / 1024.0)),
            ),
            None => ("failed".into(), "-".into()),
        };
        let growth = match (a, b) {
            (Some((ta, _)), Some((tb, _))) if ta > 0.0 => format!("{:.1}x", tb / ta),
            _ => "-".into(),
        };
        let (ta, ra) = cell(a);
        let (tb, rb) = cell(b);
        println!(
            "{name:<34} {:>8} {ta:>12} {ra:>10} {tb:>12} {rb:>10} {growth:>9}",
            ""
        );
        [a.map(|r| r.0), b.map(|r| r.0)]
    };
    let curl = row("curl reading the stream", &|n| {
        let server = Server::start(Shape::Text, n);
        curl_read(&server.url()).map(|t| (t, None))
    });
    let print = row("print mode (-p)", &|n| {
        run_focus(&focus, &work, Shape::Text, n, Mode::Print)
    });
    for (i, n) in sizes.iter().enumerate() {
        if let (Some(print), Some(curl)) = (print[i], curl[i]) {
            println!("print mode / curl at {n} deltas: {:.2}x", print / curl);
        }
    }
    for (name, mode) in [
        ("json mode (--mode json)", Mode::Json),
        ("json --events deltas", Mode::JsonDeltas),
        ("rpc mode (--mode rpc)", Mode::Rpc),
    ] {
        row(name, &|n| run_focus(&focus, &work, Shape::Text, n, mode));
    }
    if !only
        .as_ref()
        .is_some_and(|only| !"json --events deltas".contains(only.as_str()))
    {
        for n in sizes {
            deltas_bytes(&focus, &work, n);
        }
        // pi's JSON mode on the same stream, beside focus's linear shape.
        match find_pi() {
            Some(pi) => {
                for n in sizes {
                    pi_json(&pi, &work, n);
                }
            }
            None => println!("pi --mode json: skipped (pi not found: PI_BIN, /tmp/pi or /opt/pi)"),
        }
    }
    if tmux {
        row("interactive (tmux pty, 120x40)", &|n| {
            run_interactive(&focus, &work, n)
        });
    } else {
        println!("interactive: skipped (tmux not found)");
    }
    for (name, mode) in [
        ("write call, print mode", Mode::Print),
        ("write call, json mode", Mode::Json),
        ("write call, rpc mode", Mode::Rpc),
    ] {
        row(name, &|n| {
            run_focus(&focus, &work, Shape::WriteCall, n, mode)
        });
    }
    let _ = std::fs::remove_dir_all(&work);
}

/// How many runs a cell is the median of.
const RUNS: usize = 3;

/// The median time of [`RUNS`] runs and the largest peak RSS among them; `None`
/// if any run failed.
fn median_run(
    n: usize,
    run: &dyn Fn(usize) -> Option<(f64, Option<u64>)>,
) -> Option<(f64, Option<u64>)> {
    let mut times = Vec::new();
    let mut rss = None;
    for _ in 0..RUNS {
        let (t, r) = run(n)?;
        times.push(t);
        rss = rss.max(r);
    }
    times.sort_by(f64::total_cmp);
    Some((times[times.len() / 2], rss))
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Print,
    Json,
    /// `--mode json --events deltas`.
    JsonDeltas,
    Rpc,
}

/// Bytes `--mode json --events deltas` writes for an N-delta answer, beside
/// the bound (twice the answer's JSON-escaped size plus 200 bytes per event).
fn deltas_bytes(focus: &Path, work: &Path, n: usize) {
    let server = Server::start(Shape::Text, n);
    let home = work.join(format!("home-bytes-{n}"));
    write_models_json(&home, &format!("{}/v1", server.url()), 1_000_000);
    let out = Command::new(focus)
        .env("FOCUS_HOME", &home)
        .env("MOCK_API_KEY", "mock-key")
        .current_dir(&home)
        .args(["--model", "mock/mock-model", "--no-session", "--offline"])
        .args(["--mode", "json", "--events", "deltas", "-p", "go"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    let Ok(out) = out else {
        println!("deltas bytes at {n}: focus did not run");
        return;
    };
    let events = out.stdout.iter().filter(|b| **b == b'\n').count();
    // The answer is N four-character deltas (see `text_stream`), of which the
    // line breaks escape to two bytes, plus its end marker.
    let line_breaks = (0..n).filter(|i| i + 1 == n || i % 16 == 15).count();
    let escaped = n * 4 + line_breaks + "ENDMARK".len();
    let bound = 2 * escaped + 200 * events;
    println!(
        "deltas bytes at {n} deltas: {} bytes in {events} events; bound {bound} ({:.2} of it)",
        out.stdout.len(),
        out.stdout.len() as f64 / bound as f64
    );
}

/// How long pi may take on one stream before it is stopped (its JSON lines
/// carry the message so far, so its output grows with the square of N).
const PI_LIMIT: Duration = Duration::from_secs(120);

/// pi, from `PI_BIN`, `/tmp/pi` or `/opt/pi` (`npm install --prefix /tmp/pi
/// @mariozechner/pi-coding-agent`).
fn find_pi() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("PI_BIN").map(PathBuf::from),
        Some(PathBuf::from("/tmp/pi/node_modules/.bin/pi")),
        Some(PathBuf::from("/opt/pi/node_modules/.bin/pi")),
    ];
    candidates.into_iter().flatten().find(|p| p.is_file())
}

/// pi's `--mode json` reading the N-delta stream: wall time and bytes written
/// (counted as they come, never kept), stopped after [`PI_LIMIT`].
fn pi_json(pi: &Path, work: &Path, n: usize) {
    let server = Server::start(Shape::Text, n);
    let home = work.join(format!("pi-home-{n}"));
    write_models_json(&home, &format!("{}/v1", server.url()), 1_000_000);
    let started = Instant::now();
    let child = Command::new(pi)
        .env("PI_CODING_AGENT_DIR", &home)
        .env("PI_OFFLINE", "1")
        .env("MOCK_API_KEY", "mock-key")
        .current_dir(&home)
        .args([
            "--provider",
            "mock",
            "--model",
            "mock-model",
            "--no-session",
        ])
        .args(["--mode", "json", "go"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        println!("pi --mode json at {n}: pi did not start");
        return;
    };
    let Some(mut stdout) = child.stdout.take() else {
        return;
    };
    let counter = std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        let (mut bytes, mut lines) = (0u64, 0u64);
        while let Ok(got) = stdout.read(&mut buf) {
            if got == 0 {
                break;
            }
            bytes += got as u64;
            lines += buf[..got].iter().filter(|b| **b == b'\n').count() as u64;
        }
        (bytes, lines)
    });
    let (stopped, status) = loop {
        if let Ok(Some(status)) = child.try_wait() {
            break (false, status.code());
        }
        if started.elapsed() > PI_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break (true, None);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let elapsed = started.elapsed().as_secs_f64();
    let (bytes, lines) = counter.join().unwrap_or((0, 0));
    println!(
        "pi --mode json at {n} deltas: {}{elapsed:.3} s, {bytes} bytes in {lines} events, exit {}",
        if stopped { "stopped after " } else { "" },
        status.map_or("-".into(), |c| c.to_string())
    );
}

/// One run of focus against a fresh server: wall time and own peak RSS (KiB).
fn run_focus(
    focus: &Path,
    work: &Path,
    shape: Shape,
    n: usize,
    mode: Mode,
) -> Option<(f64, Option<u64>)> {
    let server = Server::start(shape, n);
    let home = work.join(format!("home-{n}"));
    write_models_json(&home, &format!("{}/v1", server.url()), 1_000_000);
    let mut command = Command::new(focus);
    command
        .env("FOCUS_HOME", &home)
        .env("MOCK_API_KEY", "mock-key")
        .env("FOCUS_REPORT_PEAK_RSS", "1")
        .env("NO_COLOR", "1")
        .current_dir(&home)
        .args([
            "--model",
            "mock/mock-model",
            "--no-session",
            "--offline",
            "--permission-mode",
            "auto",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    // Print mode's answer goes to a file, checked below: a fast run that lost
    // the answer is no result. (JSON lines grow with the square of the answer.)
    let answer = home.join("answer.txt");
    match mode {
        Mode::Print => {
            command.args(["-p", "go"]).stdin(Stdio::null());
            command.stdout(std::fs::File::create(&answer).ok()?);
        }
        Mode::Json => {
            command
                .args(["--mode", "json", "-p", "go"])
                .stdin(Stdio::null());
        }
        Mode::JsonDeltas => {
            command
                .args(["--mode", "json", "--events", "deltas", "-p", "go"])
                .stdin(Stdio::null());
        }
        Mode::Rpc => {
            command.args(["--mode", "rpc"]).stdin(Stdio::piped());
        }
    }
    let start = Instant::now();
    let mut child = command.spawn().ok()?;
    if let Some(mut stdin) = child.stdin.take() {
        // End of input lets the running prompt finish, then focus exits.
        let _ = stdin.write_all(b"{\"type\":\"prompt\",\"message\":\"go\"}\n");
    }
    let mut stderr = String::new();
    child.stderr.take()?.read_to_string(&mut stderr).ok()?;
    let status = child.wait().ok()?;
    let elapsed = start.elapsed().as_secs_f64();
    if !status.success() {
        eprintln!("focus failed ({status}): {}", stderr.trim());
        return None;
    }
    if shape == Shape::Text && mode == Mode::Print {
        let text = std::fs::read_to_string(&answer).unwrap_or_default();
        if !text.trim_end().ends_with("ENDMARK") || text.len() < n * 4 {
            eprintln!(
                "print mode lost the answer: {} bytes, ends {:?}; stderr: {}",
                text.len(),
                &text[text.len().saturating_sub(40)..],
                stderr.trim()
            );
            return None;
        }
    }
    if shape == Shape::WriteCall {
        let written = std::fs::metadata(home.join("big.txt"))
            .map(|m| m.len())
            .ok();
        if written != Some((n * 4) as u64) {
            eprintln!("the write call wrote {written:?} bytes, not {}", n * 4);
            return None;
        }
    }
    Some((elapsed, peak_rss(&stderr)))
}

/// The interactive mode in a tmux pane: time until the answer's last word is on
/// screen, and the peak RSS read from /proc while focus still runs.
fn run_interactive(focus: &Path, work: &Path, n: usize) -> Option<(f64, Option<u64>)> {
    let server = Server::start(Shape::Text, n);
    let home = work.join(format!("home-tty-{n}"));
    write_models_json(&home, &format!("{}/v1", server.url()), 1_000_000);
    let session = format!("focus-bench-{}-{n}", std::process::id());
    let line = format!(
        "FOCUS_HOME={} MOCK_API_KEY=mock-key NO_COLOR=1 {} --model mock/mock-model --no-session --offline go",
        home.display(),
        focus.display()
    );
    let start = Instant::now();
    let ok = Command::new("tmux")
        .args(["new-session", "-d", "-x", "120", "-y", "40", "-s", &session])
        .arg(&line)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        return None;
    }
    let pid = tmux(&["list-panes", "-t", &session, "-F", "#{pane_pid}"])
        .trim()
        .parse::<u32>()
        .ok();
    let deadline = Instant::now() + Duration::from_secs(600);
    let mut done = None;
    while Instant::now() < deadline {
        if tmux(&["capture-pane", "-p", "-t", &session]).contains("ENDMARK") {
            done = Some(start.elapsed().as_secs_f64());
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let rss = pid.and_then(|pid| {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    });
    let _ = tmux(&["kill-session", "-t", &session]);
    done.map(|t| (t, rss))
}

fn peak_rss(stderr: &str) -> Option<u64> {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("focus-peak-rss:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// curl reading the same stream to /dev/null: the floor.
fn curl_read(url: &str) -> Option<f64> {
    let start = Instant::now();
    let status = Command::new("curl")
        .args([
            "-sN",
            "-X",
            "POST",
            "--data-binary",
            "{}",
            "-o",
            "/dev/null",
        ])
        .arg(format!("{url}/v1/chat/completions"))
        .status()
        .ok()?;
    status.success().then(|| start.elapsed().as_secs_f64())
}

/// A loopback HTTP server answering every request with the streamed body for its
/// turn (the first request gets the shape's stream, later ones a short answer).
struct Server {
    port: u16,
}

impl Server {
    fn start(shape: Shape, n: usize) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
        let first = Arc::new(match shape {
            Shape::Text => text_stream(n),
            Shape::WriteCall => write_call_stream(n),
        });
        let later = Arc::new(short_answer());
        let turn = Arc::new(AtomicUsize::new(0));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let body = if turn.fetch_add(1, Ordering::SeqCst) == 0 || shape == Shape::Text {
                    first.clone()
                } else {
                    later.clone()
                };
                std::thread::spawn(move || serve(stream, &body));
            }
        });
        Server { port }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

/// Reads one request (headers and body) and answers with `body` as an event
/// stream, one write per event, closing the connection at its end.
fn serve(stream: TcpStream, body: &[u8]) {
    let mut reader = BufReader::new(&stream);
    let mut length = 0usize;
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        if line == "\r\n" || line == "\n" {
            break;
        }
    }
    let mut request = vec![0u8; length];
    if reader.read_exact(&mut request).is_err() {
        return;
    }
    let mut out = &stream;
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
    let _ = out.write_all(head.as_bytes());
    // One write per event, as a model server flushes each token as it comes.
    let _ = stream.set_nodelay(true);
    for event in body.split_inclusive(|&b| b == b'\n').filter(|l| l != b"\n") {
        if out
            .write_all(event)
            .and_then(|_| out.write_all(b"\n"))
            .is_err()
        {
            return;
        }
    }
}

fn chunk(delta: &str, finish: &str) -> String {
    format!(
        "data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{{\"index\":0,\"delta\":{delta},\"finish_reason\":{finish}}}]}}\n\n"
    )
}

/// N deltas of 4 characters ("w07 ", numbered so the text is not one repeated
/// piece, with a line break every 16), ending in `ENDMARK`.
fn text_stream(n: usize) -> Vec<u8> {
    let mut out = String::with_capacity(n * 140);
    out.push_str(&chunk(r#"{"role":"assistant","content":""}"#, "null"));
    for i in 0..n {
        let piece = if i + 1 == n {
            "END\n".to_string()
        } else if i % 16 == 15 {
            "ok.\n".to_string()
        } else {
            format!("w{:02} ", i % 100)
        };
        out.push_str(&chunk(
            &format!("{{\"content\":\"{}\"}}", piece.replace('\n', "\\n")),
            "null",
        ));
    }
    out.push_str(&chunk(r#"{"content":"ENDMARK"}"#, "null"));
    out.push_str(&chunk("{}", "\"stop\""));
    out.push_str("data: [DONE]\n\n");
    out.into_bytes()
}

/// A `write` call to big.txt whose content (N times 4 characters) streams in N
/// argument deltas.
fn write_call_stream(n: usize) -> Vec<u8> {
    let mut out = String::with_capacity(n * 200);
    let head = r#"{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"write","arguments":""}}]}"#;
    out.push_str(&chunk(head, "null"));
    let fragment = |text: &str| {
        let escaped = text.replace('\\', "\\\\").replace('"', "\\\"");
        format!(r#"{{"tool_calls":[{{"index":0,"function":{{"arguments":"{escaped}"}}}}]}}"#)
    };
    out.push_str(&chunk(
        &fragment(r#"{"path":"big.txt","content":""#),
        "null",
    ));
    for i in 0..n {
        out.push_str(&chunk(&fragment(&format!("ab{:02}", i % 100)), "null"));
    }
    out.push_str(&chunk(&fragment(r#""}"#), "null"));
    out.push_str(&chunk("{}", "\"tool_calls\""));
    out.push_str("data: [DONE]\n\n");
    out.into_bytes()
}

fn short_answer() -> Vec<u8> {
    let mut out = chunk(r#"{"role":"assistant","content":"Done."}"#, "null");
    out.push_str(&chunk("{}", "\"stop\""));
    out.push_str("data: [DONE]\n\n");
    out.into_bytes()
}
