//! A std-only HTTP/1.1 test server on 127.0.0.1 that answers from a script.
//!
//! Tests of anything that speaks HTTP (the curl transport, the providers, the CLI
//! end to end) start a [`TestServer`], point the client at [`TestServer::url`], and
//! afterwards inspect [`TestServer::requests`]: every request is recorded with its
//! method, path, headers and exact body bytes.
//!
//! Each request is answered by a [`ScriptedResponse`], chosen one of three ways:
//!
//! * [`TestServer::queue`]: a list used in order, one response per request (a
//!   request arriving after the list is exhausted gets a 500 saying so);
//! * [`TestServer::repeating`]: the same response for every request;
//! * [`TestServer::responder`]: a closure `Fn(&RecordedRequest) -> ScriptedResponse`,
//!   for a mock server that looks at the request (several turns of a mock LLM).
//!
//! ```no_run
//! use focus_testkit::server::{ScriptedResponse, TestServer};
//! use std::time::Duration;
//!
//! let server = TestServer::queue(vec![
//!     ScriptedResponse::too_many_requests(2),
//!     ScriptedResponse::sse(&["data: {\"a\":1}\n\n", "data: [DONE]\n\n"])
//!         .delay_between_chunks(Duration::from_millis(20)),
//! ]);
//! let url = server.url_for("/v1/messages");
//! // ... run the client against `url` ...
//! let requests = server.requests();
//! # let _ = (url, requests);
//! ```
//!
//! For streaming tests that must not depend on timing, a [`Gate`] holds a chunk
//! (or the whole response, [`ScriptedResponse::head_after_gate`]) back until the
//! test opens it: read the first event, check it arrived, then `gate.open()`.
//!
//! Bounded by design: each connection runs on its own thread with read and write
//! timeouts, every scripted delay is cut short when the server stops, the accept
//! loop polls a non-blocking listener, and dropping the server sets the stop flag
//! and waits (a bounded time) for every thread to end. The server adds `Connection: close` to every response and
//! closes the connection after it, unless the response says
//! [`ScriptedResponse::keep_alive`]: then it reads the next request from the same
//! connection ([`TestServer::connection_count`] tells how many were opened).

mod recorded;
mod scripted;

pub use recorded::RecordedRequest;
pub use scripted::{Chunk, Framing, Gate, ScriptedResponse};

use std::collections::VecDeque;
use std::io::Write;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often the accept loop looks for a new connection (and the stop flag).
const ACCEPT_POLL: Duration = Duration::from_millis(1);
/// How often a blocked read wakes up to check the stop flag.
const READ_POLL: Duration = Duration::from_millis(50);
/// How long a write may block (a client that stopped reading) before giving up.
const WRITE_TIMEOUT: Duration = Duration::from_secs(3);
/// How long dropping the server waits for its threads before leaving them be.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(3);

/// A closure that answers each request.
pub type Responder = dyn Fn(&RecordedRequest) -> ScriptedResponse + Send + Sync;

/// Where responses come from.
enum Script {
    Queue(VecDeque<ScriptedResponse>),
    Repeat(ScriptedResponse),
    Responder(Arc<Responder>),
}

/// State shared between the server handle and its threads.
struct Shared {
    stop: AtomicBool,
    script: Mutex<Script>,
    requests: Mutex<Vec<RecordedRequest>>,
    /// For each answered request: its index in `requests` and how long the
    /// answer took (see [`TestServer::answer_times`]).
    answer_times: Mutex<Vec<(usize, Duration)>>,
    /// Signalled whenever a request is recorded.
    request_arrived: Condvar,
    /// Problems reading requests (malformed, timed out), for diagnosing tests.
    errors: Mutex<Vec<String>>,
    connections: Mutex<Vec<JoinHandle<()>>>,
    /// How many connections were accepted.
    accepted: std::sync::atomic::AtomicUsize,
}

/// A running test server. Dropping it stops it.
pub struct TestServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept_thread: Option<JoinHandle<()>>,
}

impl TestServer {
    /// Answers requests with `responses` in order, one each.
    pub fn queue(responses: Vec<ScriptedResponse>) -> TestServer {
        TestServer::start(Script::Queue(responses.into()))
    }

    /// Answers every request with `response`.
    pub fn repeating(response: ScriptedResponse) -> TestServer {
        TestServer::start(Script::Repeat(response))
    }

    /// Answers every request with what `responder` returns for it. The closure runs
    /// on the connection's thread, after the whole request (body included) is read.
    pub fn responder(
        responder: impl Fn(&RecordedRequest) -> ScriptedResponse + Send + Sync + 'static,
    ) -> TestServer {
        TestServer::start(Script::Responder(Arc::new(responder)))
    }

    /// Like [`TestServer::responder`], listening on `addr`: a server started again
    /// on the address of one that was dropped is that server restarted (what it
    /// knew is gone, clients reach it at the same URL).
    pub fn responder_at(
        addr: SocketAddr,
        responder: impl Fn(&RecordedRequest) -> ScriptedResponse + Send + Sync + 'static,
    ) -> TestServer {
        TestServer::start_at(addr, Script::Responder(Arc::new(responder)))
    }

    fn start(script: Script) -> TestServer {
        TestServer::start_at(SocketAddr::from(([127, 0, 0, 1], 0)), script)
    }

    fn start_at(addr: SocketAddr, script: Script) -> TestServer {
        let listener = TcpListener::bind(addr)
            .unwrap_or_else(|e| panic!("test server: cannot bind {addr}: {e}"));
        let addr = listener
            .local_addr()
            .expect("test server: no local address");
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
            script: Mutex::new(script),
            requests: Mutex::new(Vec::new()),
            answer_times: Mutex::new(Vec::new()),
            request_arrived: Condvar::new(),
            errors: Mutex::new(Vec::new()),
            connections: Mutex::new(Vec::new()),
            accepted: std::sync::atomic::AtomicUsize::new(0),
        });
        let accept_shared = shared.clone();
        let accept_thread = std::thread::Builder::new()
            .name(format!("test-server-{}", addr.port()))
            .spawn(move || accept_loop(listener, accept_shared))
            .expect("test server: cannot spawn the accept thread");
        TestServer {
            addr,
            shared,
            accept_thread: Some(accept_thread),
        }
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The port the server listens on.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// The base URL, e.g. `http://127.0.0.1:40123` (no trailing slash).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The URL of `path` on this server; `path` should start with `/`.
    pub fn url_for(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// Appends a response to the queue (turns a repeating or closure script into a
    /// queue that starts with this response).
    pub fn push_response(&self, response: ScriptedResponse) {
        let mut script = lock(&self.shared.script);
        match &mut *script {
            Script::Queue(queue) => queue.push_back(response),
            other => *other = Script::Queue(VecDeque::from([response])),
        }
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.requests).clone()
    }

    /// For each request answered so far: its index in [`TestServer::requests`]
    /// and the server's own time on it, from the whole request read to the
    /// response's last byte written (or the client gone): what a benchmark
    /// subtracts from a client's wall time to get the client's own.
    pub fn answer_times(&self) -> Vec<(usize, Duration)> {
        lock(&self.shared.answer_times).clone()
    }

    /// How many requests have been received.
    pub fn request_count(&self) -> usize {
        lock(&self.shared.requests).len()
    }

    /// Waits until at least `n` requests have arrived or `timeout` passes; returns
    /// the requests received by then (check the length).
    pub fn wait_for_requests(&self, n: usize, timeout: Duration) -> Vec<RecordedRequest> {
        let deadline = Instant::now() + timeout;
        let mut requests = lock(&self.shared.requests);
        while requests.len() < n {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            requests = self
                .shared
                .request_arrived
                .wait_timeout(requests, deadline - now)
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .0;
        }
        requests.clone()
    }

    /// How many connections clients have opened so far.
    pub fn connection_count(&self) -> usize {
        self.shared.accepted.load(Ordering::SeqCst)
    }

    /// Problems the server met reading requests (malformed or timed-out requests).
    /// Empty in a healthy test; assert on it to catch a client sending bad HTTP.
    pub fn errors(&self) -> Vec<String> {
        lock(&self.shared.errors).clone()
    }
}

impl std::fmt::Debug for TestServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestServer")
            .field("addr", &self.addr)
            .field("requests", &self.request_count())
            .finish()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        let deadline = Instant::now() + SHUTDOWN_WAIT;
        if let Some(thread) = self.accept_thread.take() {
            join_until(thread, deadline);
        }
        let connections = std::mem::take(&mut *lock(&self.shared.connections));
        for thread in connections {
            join_until(thread, deadline);
        }
    }
}

/// Joins `thread` if it ends before `deadline`; otherwise leaves it detached (it
/// is bounded by its own timeouts and will end by itself).
fn join_until(thread: JoinHandle<()>, deadline: Instant) {
    while !thread.is_finished() {
        if Instant::now() >= deadline {
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let _ = thread.join();
}

/// Accepts connections until the stop flag is set. The listener is non-blocking
/// and polled every [`ACCEPT_POLL`], so the loop always notices the flag: no
/// thread can stay blocked in `accept` after the server is dropped.
fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    if listener.set_nonblocking(true).is_err() {
        lock(&shared.errors).push("cannot make the listener non-blocking".into());
        return;
    }
    while !shared.stop.load(Ordering::SeqCst) {
        let stream = match listener.accept() {
            Ok((stream, _)) => stream,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(ACCEPT_POLL);
                continue;
            }
            Err(_) => continue, // a connection reset before it was accepted
        };
        shared.accepted.fetch_add(1, Ordering::SeqCst);
        // Accepted sockets must block (with timeouts) whatever the listener does.
        let _ = stream.set_nonblocking(false);
        let connection_shared = shared.clone();
        let spawned = std::thread::Builder::new()
            .name("test-server-conn".into())
            .spawn(move || serve_connection(stream, &connection_shared));
        if let Ok(handle) = spawned {
            let mut connections = lock(&shared.connections);
            // Forget threads already done, so a long test does not accumulate handles.
            connections.retain(|h| !h.is_finished());
            connections.push(handle);
        }
    }
}

fn serve_connection(mut stream: TcpStream, shared: &Shared) {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(READ_POLL));
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    let mut first = true;
    while serve_one(&mut stream, shared, first) {
        first = false;
    }
    let _ = stream.shutdown(Shutdown::Both);
}

/// Reads and answers one request; true when the connection stays open for another.
/// A kept-alive connection (not the `first` request) that times out waiting is
/// simply closed: an idle client is no error.
fn serve_one(stream: &mut TcpStream, shared: &Shared, first: bool) -> bool {
    let request = recorded::read_request(stream, &shared.stop, |s| {
        s.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")
    });
    let request = match request {
        Ok(Some(request)) => request,
        Ok(None) => return false,
        Err(e) if !first && e.kind() == std::io::ErrorKind::TimedOut => return false,
        Err(e) => {
            if !shared.stop.load(Ordering::SeqCst) {
                lock(&shared.errors).push(format!("reading a request: {e}"));
                let message = format!("focus test server: bad request: {e}");
                let _ = ScriptedResponse::new(400)
                    .body(message)
                    .write_to(stream, &shared.stop);
            }
            return false;
        }
    };
    let read = Instant::now();
    let response = next_response(shared, &request);
    let index = {
        let mut requests = lock(&shared.requests);
        requests.push(request);
        shared.request_arrived.notify_all();
        requests.len() - 1
    };
    let written = response.write_to(stream, &shared.stop).is_ok();
    lock(&shared.answer_times).push((index, read.elapsed()));
    written && response.keep_alive
}

/// The scripted answer to `request` (the number `index` of the connection).
fn next_response(shared: &Shared, request: &RecordedRequest) -> ScriptedResponse {
    let responder = {
        let mut script = lock(&shared.script);
        match &mut *script {
            Script::Queue(queue) => {
                return queue.pop_front().unwrap_or_else(|| {
                    ScriptedResponse::server_error(&format!(
                        "{{\"error\":\"focus test server: no scripted response left for {} {}\"}}",
                        request.method, request.path
                    ))
                })
            }
            Script::Repeat(response) => return response.clone(),
            Script::Responder(responder) => responder.clone(),
        }
    };
    // Called without holding the lock, so a slow closure does not serialise requests.
    responder(request)
}

/// Locks a mutex, recovering from a panicked holder (a failed assertion in a
/// responder closure must not wedge the whole server).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn each_answer_is_timed_from_the_request_to_the_last_byte() {
        let server = TestServer::repeating(
            ScriptedResponse::new(200)
                .chunk("first")
                .chunk_after(Duration::from_millis(60), "second"),
        );
        let mut stream = TcpStream::connect(server.addr()).unwrap();
        stream
            .write_all(b"GET /x HTTP/1.1\r\nhost: t\r\ncontent-length: 0\r\n\r\n")
            .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        assert!(answer.contains("second"), "{answer}");
        // The connection closes after the time is noted.
        let times = server.answer_times();
        assert_eq!(times.len(), 1);
        assert_eq!(times[0].0, 0);
        assert!(times[0].1 >= Duration::from_millis(60), "{times:?}");
        assert_eq!(server.requests()[0].path, "/x");
    }
}
