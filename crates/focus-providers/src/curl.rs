//! [`CurlTransport`]: HTTPS through the `curl` program.
//!
//! focus has no TLS library; it runs curl, one process per request. What makes
//! that safe and reliable:
//!
//! * **Secrets never on a command line.** curl's arguments are always just
//!   `-q --config -`; the URL, method, headers (API keys) and options go to curl's
//!   stdin as a config (`config.rs`), the body through a private 0600 temp file
//!   (`--data-binary @file`, `temp_file.rs`). `ps` and `/proc/*/cmdline` show
//!   nothing but those three arguments.
//! * **Streaming.** `--no-buffer` makes curl pass body bytes on as they arrive;
//!   `--include` puts the response head first on stdout, so `head.rs` reads the
//!   status and headers before the body is touched.
//! * **Errors keep their body.** No `--fail`: a 429 or 500 is a normal response
//!   whose body (the API's error JSON) the caller reads. Transport failures come
//!   from curl's exit code and stderr (`exit_code.rs`).
//! * **Cancel is immediate.** A [`CancelToken`] callback SIGKILLs curl and reaps
//!   it (`process.rs`); a read blocked on the body wakes up with
//!   [`TransportError::Cancelled`].
//! * **Proxies** (`http_proxy`, `https_proxy`, `all_proxy`, `no_proxy`) work
//!   because curl reads them from the environment, which the process inherits;
//!   loopback addresses never go through one, and uppercase `HTTP_PROXY` counts
//!   for `http://` URLs (`proxy.rs`).
//!   `~/.curlrc` is ignored (`-q`) because its options could change the output
//!   format parsed here.
//! * **An old curl is named, not guessed at.** The first request checks `curl
//!   --version` once ([`CurlTransport::check_version`]): a curl older than
//!   [`MIN_CURL_VERSION`] fails with a message naming both versions, instead of
//!   curl's "option --suppress-connect-headers: is unknown". Every option focus
//!   passes exists in that version (`config.rs` lists each with the version that
//!   brought it).

mod config;
mod exit_code;
mod head;
mod process;
pub mod proxy;
mod temp_file;

use focus_core::cancel::CancelToken;
use focus_transport::{HttpRequest, HttpResponse, Transport, TransportError};
use process::{CurlBody, CurlProcess};
use proxy::ProxyEnv;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use temp_file::PrivateTempFile;

/// The oldest curl focus works with: 7.54.0 (April 2017) brought
/// `--suppress-connect-headers`, the newest option focus passes. RHEL 8 ships
/// 7.61, Debian 10 7.64, Ubuntu 18.04 7.58.
pub const MIN_CURL_VERSION: (u32, u32, u32) = (7, 54, 0);

/// The environment variable naming the curl binary to use instead of `curl` on PATH.
pub const CURL_ENV: &str = "FOCUS_CURL";

/// A [`Transport`] that runs the `curl` program for each request.
#[derive(Clone, Debug)]
pub struct CurlTransport {
    program: PathBuf,
    /// The proxy settings curl does not read the way users expect (`proxy.rs`).
    proxy_env: ProxyEnv,
    /// The outcome of the version check, made at the first request (shared by
    /// clones: once per transport).
    version_ok: Arc<OnceLock<Result<(), TransportError>>>,
}

impl Default for CurlTransport {
    fn default() -> CurlTransport {
        CurlTransport::new()
    }
}

impl CurlTransport {
    /// Uses `$FOCUS_CURL` when set, otherwise `curl` found on `PATH`.
    pub fn new() -> CurlTransport {
        match std::env::var_os(CURL_ENV) {
            Some(path) if !path.is_empty() => CurlTransport::with_program(path),
            _ => CurlTransport::with_program("curl"),
        }
    }

    /// Uses the curl binary at `program` (a bare name is looked up on `PATH`).
    pub fn with_program(program: impl Into<PathBuf>) -> CurlTransport {
        CurlTransport {
            program: program.into(),
            proxy_env: ProxyEnv::from_env(),
            version_ok: Arc::new(OnceLock::new()),
        }
    }

    /// Checks once (the first call runs `curl --version`, later calls return
    /// what it found) that curl is at least [`MIN_CURL_VERSION`]. A curl that
    /// cannot start fails here with the reason; one whose version line cannot be
    /// read is let through (the request will tell).
    ///
    /// # Errors
    ///
    /// [`TransportError::CannotStart`] when curl cannot be started (the reason says how to install
    /// it) or is older than [`MIN_CURL_VERSION`].
    pub fn check_version(&self) -> Result<(), TransportError> {
        self.version_ok
            .get_or_init(|| match self.check() {
                Err(e @ TransportError::CannotStart(_)) if !self.program_exists() => Err(e),
                Err(_) => Ok(()),
                Ok(line) => match parse_version(&line) {
                    Some(found) if found < MIN_CURL_VERSION => {
                        let (a, b, c) = MIN_CURL_VERSION;
                        let (x, y, z) = found;
                        Err(TransportError::CannotStart(format!(
                            "{} is curl {x}.{y}.{z}; focus needs curl {a}.{b}.{c} or newer \
                             (for --suppress-connect-headers). Install a newer curl, or set \
                             FOCUS_CURL to the full path of one",
                            self.program.display()
                        )))
                    }
                    _ => Ok(()),
                },
            })
            .clone()
    }

    /// Whether the program can be found (a path that exists, or a name on `PATH`).
    fn program_exists(&self) -> bool {
        if self.program.components().count() > 1 {
            return self.program.exists();
        }
        std::env::var_os("PATH").is_some_and(|paths| {
            std::env::split_paths(&paths).any(|dir| dir.join(&self.program).is_file())
        })
    }

    /// The curl binary this transport runs.
    pub fn program(&self) -> &Path {
        &self.program
    }

    /// Runs `curl --version` (for at most 10 seconds) and returns its
    /// first line, or the [`TransportError::CannotStart`] explaining how to
    /// install curl.
    ///
    /// # Errors
    ///
    /// [`TransportError::CannotStart`], saying how to install curl, when it cannot be run or gives
    /// no version within 10 seconds.
    pub fn check(&self) -> Result<String, TransportError> {
        use focus_sys::process::{Ending, Job};
        let mut command = std::process::Command::new(&self.program);
        command.args(["-q", "--version"]);
        let output = Job::new(command)
            .run_with_deadline(std::time::Instant::now() + CHECK_TIMEOUT, || {
                std::ops::ControlFlow::Continue(())
            })
            .map_err(|e| process::cannot_start(&self.program, &e))?;
        let text = String::from_utf8_lossy(&output.stdout);
        let exited_ok = matches!(output.ending, Ending::Exited(status) if status.success());
        match text.lines().next() {
            Some(line) if exited_ok && line.starts_with("curl ") => Ok(line.to_string()),
            _ => Err(TransportError::CannotStart(format!(
                "`{} --version` did not report a curl version; is it really curl?",
                self.program.display()
            ))),
        }
    }
}

/// `(7, 88, 1)` from `curl 7.88.1 (x86_64-pc-linux-gnu) libcurl/7.88.1 …`
/// (`8.5.0-DEV` reads as 8.5.0).
fn parse_version(line: &str) -> Option<(u32, u32, u32)> {
    let word = line.strip_prefix("curl ")?.split_whitespace().next()?;
    let mut parts = word.split('.').map(|p| {
        let digits: String = p.chars().take_while(char::is_ascii_digit).collect();
        digits.parse::<u32>().ok()
    });
    let major = parts.next()??;
    let minor = parts.next().flatten().unwrap_or(0);
    let patch = parts.next().flatten().unwrap_or(0);
    Some((major, minor, patch))
}

/// How long `curl --version` may take before [`CurlTransport::check`] gives up
/// on it (a binary that hangs is not a working curl).
const CHECK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

impl Transport for CurlTransport {
    fn send(
        &self,
        request: &HttpRequest,
        cancel: &CancelToken,
    ) -> Result<HttpResponse, TransportError> {
        if cancel.is_cancelled() {
            return Err(TransportError::Cancelled);
        }
        self.check_version()?;
        let body_file = if request.body.is_empty() {
            None
        } else {
            Some(PrivateTempFile::with_contents(&request.body).map_err(|e| {
                TransportError::CannotStart(format!("cannot stage the request body: {e}"))
            })?)
        };
        let config = config::build_config(
            request,
            body_file.as_ref().map(PrivateTempFile::path),
            &self.proxy_env,
        )?;
        let (mut process, mut stdout) = CurlProcess::spawn(
            &self.program,
            &config,
            body_file,
            cancel,
            secrets_of(request),
        )?;
        match head::read_head(&mut stdout) {
            Ok(Some((head, leftover))) => {
                process.remove_body_file();
                Ok(HttpResponse {
                    status: head.status,
                    headers: head.headers,
                    body: Box::new(CurlBody::new(leftover, stdout, process)),
                })
            }
            Ok(None) => {
                // curl ended before any response: its exit status says why.
                process.finish()?;
                Err(TransportError::Other(
                    "curl ended without printing a response head".into(),
                ))
            }
            Err(e) => {
                let stderr = process.kill();
                if process.is_cancelled() {
                    return Err(TransportError::Cancelled);
                }
                Err(TransportError::Other(format!(
                    "could not read the response head: {e}{}",
                    if stderr.trim().is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", stderr.trim())
                    }
                )))
            }
        }
    }
}

/// What must never appear in an error message: header values long enough to be
/// credentials, and the URL's query and user info (Gemini puts its key there).
fn secrets_of(request: &HttpRequest) -> Vec<String> {
    let mut secrets: Vec<String> = request
        .headers
        .iter()
        .map(|(_, value)| value.trim().to_string())
        .filter(|value| value.len() >= 8)
        .collect();
    // Also the bare token of `Bearer <token>`-style values.
    let tokens: Vec<String> = secrets
        .iter()
        .filter_map(|v| v.split_once(' ').map(|(_, token)| token.trim().to_string()))
        .filter(|t| t.len() >= 8)
        .collect();
    secrets.extend(tokens);
    let url = request.url.as_str();
    if let Some((_, query)) = url.split_once('?') {
        let query = query.split('#').next().unwrap_or("");
        secrets.extend(query.split('&').filter_map(|pair| {
            pair.split_once('=')
                .map(|(_, v)| v.to_string())
                .filter(|v| v.len() >= 4)
        }));
    }
    if let Some((_, rest)) = url.split_once("://") {
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        if let Some((userinfo, _)) = authority.rsplit_once('@') {
            secrets.push(userinfo.to_string());
        }
    }
    // Longest first, so a secret containing another is blanked whole.
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    secrets
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_cover_keys_tokens_query_and_userinfo() {
        let request = HttpRequest {
            url: "https://u:pw123456@host/v1?key=AIzaSECRET&alt=sse".into(),
            headers: vec![
                ("authorization".into(), "Bearer sk-0123456789".into()),
                ("accept".into(), "json".into()),
            ],
            ..Default::default()
        };
        let secrets = secrets_of(&request);
        for s in [
            "Bearer sk-0123456789",
            "sk-0123456789",
            "AIzaSECRET",
            "u:pw123456",
        ] {
            assert!(secrets.contains(&s.to_string()), "missing {s}: {secrets:?}");
        }
        assert!(!secrets.contains(&"json".to_string()));
    }

    #[test]
    fn versions_are_read_from_the_first_line() {
        let line = "curl 7.88.1 (x86_64-pc-linux-gnu) libcurl/7.88.1 OpenSSL/3.0.19";
        assert_eq!(parse_version(line), Some((7, 88, 1)));
        assert_eq!(parse_version("curl 8.5.0-DEV (x)"), Some((8, 5, 0)));
        assert_eq!(parse_version("curl 7.29.0"), Some((7, 29, 0)));
        assert_eq!(parse_version("wget 1.21"), None);
        assert!(parse_version("curl 7.53.1").unwrap() < MIN_CURL_VERSION);
        assert!(parse_version("curl 7.54.0").unwrap() >= MIN_CURL_VERSION);
    }

    #[test]
    fn missing_program_says_how_to_install() {
        let transport = CurlTransport::with_program("/nonexistent/focus-no-curl");
        let request = HttpRequest {
            method: "GET".into(),
            url: "http://127.0.0.1:9/".into(),
            ..Default::default()
        };
        let error = transport.send(&request, &CancelToken::new()).unwrap_err();
        let TransportError::CannotStart(message) = &error else {
            panic!("{error:?}")
        };
        assert!(
            message.contains("apt install curl") && message.contains("FOCUS_CURL"),
            "{message}"
        );
        assert!(matches!(
            transport.check(),
            Err(TransportError::CannotStart(_))
        ));
        let on_path = CurlTransport::with_program("focus-no-such-curl-binary");
        let message = on_path.check().unwrap_err().to_string();
        assert!(message.contains("on PATH"), "{message}");
    }
}
