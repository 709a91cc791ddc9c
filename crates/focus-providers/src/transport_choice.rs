//! [`ChosenTransport`]: which transport serves a URL, decided per request.
//!
//! | URL | transport | why |
//! |---|---|---|
//! | `https://…` | curl | focus has no TLS; curl does |
//! | `http://…` and a proxy applies to the host | curl | curl speaks proxies |
//! | `http://user:pw@…` | curl | the std transport sends no credentials |
//! | `http://…` otherwise (loopback always) | [`StdHttpTransport`] | no process, no curl needed |
//! | anything, with the `transport` setting `"curl"` | curl | the user asked |
//!
//! So a machine without curl still reaches a local model server, and `https://`
//! fails there with curl's own "install curl" message.

use crate::curl::proxy::{proxy_for_http, ProxyEnv};
use crate::curl::CurlTransport;
use focus_core::cancel::CancelToken;
use focus_transport::{HttpRequest, HttpResponse, StdHttpTransport, Transport, TransportError};

/// The `transport` setting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TransportPreference {
    /// curl for `https://` and proxied `http://`, the std transport for the rest
    /// (the default; pi's values `sse`, `websocket` and `auto` mean this too).
    #[default]
    Auto,
    /// Every request through curl.
    Curl,
}

impl TransportPreference {
    /// Reads a setting value: `auto` (or pi's `sse`/`websocket`) or `curl`.
    pub fn parse(value: &str) -> Option<TransportPreference> {
        match value {
            "auto" | "sse" | "websocket" => Some(TransportPreference::Auto),
            "curl" => Some(TransportPreference::Curl),
            _ => None,
        }
    }
}

/// Which transport a request goes through, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// The std transport.
    Std,
    /// curl, for the reason given.
    Curl(&'static str),
}

/// A [`Transport`] that sends each request through curl or the std transport,
/// as the table in the module documentation says.
#[derive(Clone, Debug)]
pub struct ChosenTransport {
    std: StdHttpTransport,
    curl: CurlTransport,
    preference: TransportPreference,
    proxies: ProxyEnv,
}

impl ChosenTransport {
    /// Both transports with their defaults, the proxy variables of this process,
    /// and `preference`.
    pub fn new(preference: TransportPreference) -> ChosenTransport {
        ChosenTransport::with_parts(
            StdHttpTransport::new(),
            CurlTransport::new(),
            preference,
            ProxyEnv::from_env(),
        )
    }

    /// From its parts (tests choose the curl binary and the proxy variables).
    pub fn with_parts(
        std: StdHttpTransport,
        curl: CurlTransport,
        preference: TransportPreference,
        proxies: ProxyEnv,
    ) -> ChosenTransport {
        ChosenTransport {
            std,
            curl,
            preference,
            proxies,
        }
    }

    /// The transport for `url`.
    pub fn route(&self, url: &str) -> Route {
        if self.preference == TransportPreference::Curl {
            return Route::Curl("the transport setting is \"curl\"");
        }
        let url = url.trim();
        let is_http = url
            .get(..7)
            .is_some_and(|s| s.eq_ignore_ascii_case("http://"));
        if !is_http {
            return Route::Curl("only curl speaks TLS");
        }
        if proxy_for_http(url, &self.proxies).is_some() {
            return Route::Curl("a proxy applies to this host");
        }
        if !StdHttpTransport::serves(url) {
            return Route::Curl("the URL needs what only curl does (user info)");
        }
        Route::Std
    }
}

impl Transport for ChosenTransport {
    fn send(
        &self,
        request: &HttpRequest,
        cancel: &CancelToken,
    ) -> Result<HttpResponse, TransportError> {
        match self.route(&request.url) {
            Route::Std => self.std.send(request, cancel),
            Route::Curl(_) => self.curl.send(request, cancel),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chosen(preference: TransportPreference, proxies: ProxyEnv) -> ChosenTransport {
        ChosenTransport::with_parts(
            StdHttpTransport::new(),
            CurlTransport::with_program("curl"),
            preference,
            proxies,
        )
    }

    #[test]
    fn https_proxies_and_the_setting_go_to_curl() {
        let none = chosen(TransportPreference::Auto, ProxyEnv::default());
        assert_eq!(none.route("http://127.0.0.1:11434/v1"), Route::Std);
        assert_eq!(none.route("HTTP://10.0.0.5:8000/v1"), Route::Std);
        assert_eq!(none.route("http://[::1]:8080/"), Route::Std);
        assert!(matches!(
            none.route("https://api.anthropic.com/v1"),
            Route::Curl(_)
        ));
        assert!(matches!(none.route("http://u:p@10.0.0.5/"), Route::Curl(_)));

        let proxied = chosen(
            TransportPreference::Auto,
            ProxyEnv {
                http: Some("http://proxy:3128".into()),
                no_proxy: Some("lab.internal".into()),
                ..ProxyEnv::default()
            },
        );
        assert!(matches!(
            proxied.route("http://10.0.0.5:8000/v1"),
            Route::Curl(_)
        ));
        assert_eq!(proxied.route("http://gpu.lab.internal/v1"), Route::Std);
        assert_eq!(
            proxied.route("http://localhost:8080/v1"),
            Route::Std,
            "loopback is never proxied"
        );

        let forced = chosen(TransportPreference::Curl, ProxyEnv::default());
        assert!(matches!(forced.route("http://127.0.0.1/"), Route::Curl(_)));
    }

    #[test]
    fn setting_values() {
        for (value, want) in [
            ("auto", Some(TransportPreference::Auto)),
            ("sse", Some(TransportPreference::Auto)),
            ("curl", Some(TransportPreference::Curl)),
            ("CURL", None),
            ("tcp", None),
        ] {
            assert_eq!(TransportPreference::parse(value), want, "{value}");
        }
    }
}
