//! `focus mcp serve` from the outside: focus's own MCP client over stdio and
//! HTTP ([`own_client`]), bad requests of every kind ([`hostile`]),
//! cancellation killing a tool's processes ([`cancel`]), the official Python
//! SDK and the MCP Inspector's CLI ([`real_clients`]), and many calls in a
//! row and at once ([`soak`]). The helpers here start a server over stdio
//! ([`RawServer`]) or HTTP ([`HttpServer`]) in a test sandbox.

mod cancel;
mod hostile;
mod own_client;
mod real_clients;
mod soak;

use crate::support::{Sandbox, FOCUS};
use focus_core::json::{parse_str, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

/// How long a test waits for an answer.
pub const ANSWER_LIMIT: Duration = Duration::from_secs(30);

/// The token the HTTP servers of these tests are given.
pub const TOKEN: &str = "test-token-0123456789abcdef";

/// A sandbox whose project holds `a.txt` ("hello\nworld\n") and `src/b.rs`.
pub fn project() -> Sandbox {
    let s = Sandbox::new();
    std::fs::write(s.work.join("a.txt"), "hello\nworld\n").unwrap();
    std::fs::create_dir_all(s.work.join("src")).unwrap();
    std::fs::write(s.work.join("src/b.rs"), "fn main() {}\n").unwrap();
    s
}

/// `focus mcp serve extra…` in `s`, as a command (offline: the agent tool
/// runs the demo model).
pub fn serve_command(s: &Sandbox, extra: &[&str]) -> Command {
    let mut args = vec!["mcp", "serve"];
    args.extend_from_slice(extra);
    let mut cmd = s.cmd(&args);
    cmd.env("FOCUS_MCP_AUTH_TOKEN", TOKEN);
    cmd
}

/// Arguments that make every built-in tool do something in [`project`].
pub fn every_tool_call() -> Vec<(&'static str, Value, &'static str)> {
    let call = |name, args: &str, expect| (name, parse_str(args).unwrap(), expect);
    vec![
        call("ls", r#"{}"#, "a.txt"),
        call("read", r#"{"path":"a.txt"}"#, "world"),
        call("grep", r#"{"pattern":"fn main"}"#, "b.rs"),
        call("find", r#"{"pattern":"**/*.rs"}"#, "b.rs"),
        call(
            "write",
            r#"{"path":"new.txt","content":"made by a client\n"}"#,
            "new.txt",
        ),
        call(
            "edit",
            r#"{"path":"new.txt","edits":[{"oldText":"made","newText":"changed"}]}"#,
            "new.txt",
        ),
        call(
            "bash",
            r#"{"command":"cat new.txt"}"#,
            "changed by a client",
        ),
        call("agent", r#"{"prompt":"read a.txt"}"#, "hello"),
    ]
}

/// A server over stdio, driven line by line.
pub struct RawServer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl RawServer {
    /// Starts `focus mcp serve extra…` in `s`.
    pub fn start(s: &Sandbox, extra: &[&str]) -> RawServer {
        let mut child = serve_command(s, extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("focus starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let stdin = child.stdin.take();
        RawServer {
            child,
            stdin,
            lines,
        }
    }

    /// The server's pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Writes `bytes` to the server's input.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("input open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// Writes one line.
    pub fn send(&mut self, line: &str) {
        self.send_bytes(format!("{line}\n").as_bytes());
    }

    /// The next message the server writes, within [`ANSWER_LIMIT`].
    pub fn next(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(ANSWER_LIMIT)
            .expect("the server answers");
        parse_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Messages until one with `id` (the others, notifications, are returned
    /// too, in order, before it).
    pub fn until_id(&self, id: &str) -> (Vec<Value>, Value) {
        let mut before = Vec::new();
        loop {
            let message = self.next();
            if message["id"].to_json_string() == id && message["method"].is_null() {
                return (before, message);
            }
            before.push(message);
        }
    }

    /// Sends a request and returns its response.
    pub fn request(&mut self, id: u64, method: &str, params: &str) -> Value {
        self.send(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#
        ));
        self.until_id(&id.to_string()).1
    }

    /// Closes the input and waits for the server to exit; its exit code.
    pub fn close(mut self) -> Option<i32> {
        self.stdin.take();
        let give_up = Instant::now() + ANSWER_LIMIT;
        while Instant::now() < give_up {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    }
}

impl Drop for RawServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A server over HTTP on a loopback port of its choice.
pub struct HttpServer {
    child: Child,
    /// `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// `127.0.0.1:PORT`.
    pub address: String,
}

impl HttpServer {
    /// Starts `focus mcp serve --listen 127.0.0.1:0 extra…` in `s` and waits
    /// for the address it says it listens on.
    pub fn start(s: &Sandbox, extra: &[&str]) -> HttpServer {
        let mut args = vec!["--listen", "127.0.0.1:0"];
        args.extend_from_slice(extra);
        let mut child = serve_command(s, &args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("focus starts");
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let url = loop {
            let line = rx
                .recv_timeout(ANSWER_LIMIT)
                .expect("the server says where it listens");
            if let Some(at) = line.find("listening on ") {
                break line[at + "listening on ".len()..].trim().to_string();
            }
        };
        let address = url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_string();
        HttpServer {
            child,
            url,
            address,
        }
    }

    /// The server's pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// One HTTP request on a new connection: status, head and body.
    pub fn exchange(&self, method: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
        let mut stream = TcpStream::connect(&self.address).unwrap();
        stream.set_read_timeout(Some(ANSWER_LIMIT)).unwrap();
        let mut head = format!(
            "{method} /mcp HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
            self.address
        );
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
        stream.write_all(head.as_bytes()).unwrap();
        // A server may answer (413) before it has read a body it refuses.
        let _ = stream.write_all(body);
        let mut raw = Vec::new();
        let _ = stream.read_to_end(&mut raw);
        Reply::parse(&raw)
    }

    /// A POST of `message` with the token and `session`, if any.
    pub fn post(&self, session: Option<&str>, message: &str) -> Reply {
        let auth = format!("Bearer {TOKEN}");
        let mut headers = vec![
            ("Authorization", auth.as_str()),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ];
        if let Some(id) = session {
            headers.push(("Mcp-Session-Id", id));
        }
        self.exchange("POST", &headers, message.as_bytes())
    }

    /// `initialize`: the session id handed out.
    pub fn initialize(&self) -> String {
        let reply = self.post(
            None,
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        );
        assert_eq!(reply.status, 200, "{}", reply.body);
        reply
            .header("mcp-session-id")
            .expect("a session id")
            .to_string()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP answer.
pub struct Reply {
    /// The status.
    pub status: u16,
    /// The head's lines after the status line.
    pub head: Vec<String>,
    /// The body, as text.
    pub body: String,
}

impl Reply {
    fn parse(raw: &[u8]) -> Reply {
        let text = String::from_utf8_lossy(raw).into_owned();
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let mut lines = head.lines();
        let status = lines
            .next()
            .and_then(|l| l.split(' ').nth(1))
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        Reply {
            status,
            head: lines.map(str::to_string).collect(),
            body: body.to_string(),
        }
    }

    /// A header's value (name case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.iter().find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.trim().eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }

    /// The body as JSON (the last `data:` event of an event stream).
    pub fn json(&self) -> Value {
        let text = match self
            .body
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix("data: "))
        {
            Some(data) => data.to_string(),
            None => self.body.clone(),
        };
        parse_str(text.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

/// The peak resident memory of process `pid` in KiB (`VmHWM`).
pub fn peak_rss_kib(pid: u32) -> u64 {
    rss_field(pid, "VmHWM:")
}

fn rss_field(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The focus binary (for a client that starts the server itself).
pub fn focus_binary() -> &'static str {
    FOCUS
}
