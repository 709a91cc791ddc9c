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
use temp_file::PrivateTempFile;

/// The environment variable naming the curl binary to use instead of `curl` on PATH.
pub const CURL_ENV: &str = "FOCUS_CURL";

/// A [`Transport`] that runs the `curl` program for each request.
#[derive(Clone, Debug)]
pub struct CurlTransport {
    program: PathBuf,
    /// The proxy settings curl does not read the way users expect (`proxy.rs`).
    proxy_env: ProxyEnv,
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
        }
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
