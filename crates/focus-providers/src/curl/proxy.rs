//! The proxy decisions curl does not make the way users expect, made here and
//! written into the request's config:
//!
//! * A loopback address (`127.0.0.0/8`, `localhost`, `[::1]`: a local model
//!   server) is never reached through a proxy. curl would send it to `http_proxy`,
//!   and a local server found automatically then fails behind a corporate proxy.
//! * Uppercase `HTTP_PROXY` is honoured for `http://` URLs when `http_proxy` is
//!   not set, as pi (and most tools) do; curl ignores it (a CGI-era precaution:
//!   a web server sets `HTTP_PROXY` from a request's `Proxy:` header, which focus
//!   never runs under). `NO_PROXY`/`no_proxy` still apply: curl checks them for a
//!   proxy given this way too.
//!
//! Everything else (`http_proxy`, `https_proxy`/`HTTPS_PROXY`, `all_proxy`,
//! `no_proxy`) curl reads from the environment itself.

/// What the environment says about proxies, read once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProxyEnv {
    /// `HTTP_PROXY`, when `http_proxy` is not set (curl would ignore it).
    pub upper_http_proxy: Option<String>,
}

impl ProxyEnv {
    /// Reads the process environment.
    pub fn from_env() -> ProxyEnv {
        let set = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        ProxyEnv {
            upper_http_proxy: set("http_proxy")
                .is_none()
                .then(|| set("HTTP_PROXY"))
                .flatten(),
        }
    }
}

/// What to tell curl about proxies for `url`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProxyChoice {
    /// Nothing: curl's own reading of the environment.
    CurlDecides,
    /// No proxy at all (`noproxy = "*"`).
    Direct,
    /// This proxy (`proxy = "…"`).
    Through(String),
}

/// The choice for `url` (already checked to be `http://` or `https://`).
pub fn choose(url: &str, env: &ProxyEnv) -> ProxyChoice {
    if is_loopback(host_of(url)) {
        return ProxyChoice::Direct;
    }
    match &env.upper_http_proxy {
        Some(proxy)
            if url
                .get(..7)
                .is_some_and(|s| s.eq_ignore_ascii_case("http://")) =>
        {
            ProxyChoice::Through(proxy.clone())
        }
        _ => ProxyChoice::CurlDecides,
    }
}

/// The host of an `http(s)://` URL, without port, user info or brackets.
fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if let Some(bracketed) = host_port.strip_prefix('[') {
        return bracketed.split(']').next().unwrap_or("");
    }
    host_port.split(':').next().unwrap_or("")
}

/// Whether `host` names this machine's loopback interface.
fn is_loopback(host: &str) -> bool {
    let host = host.trim_end_matches('.');
    if host.eq_ignore_ascii_case("localhost") || host.to_ascii_lowercase().ends_with(".localhost") {
        return true;
    }
    match host.parse::<std::net::IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_goes_direct_and_uppercase_http_proxy_serves_http_only() {
        let env = ProxyEnv {
            upper_http_proxy: Some("http://proxy:3128".into()),
        };
        for local in [
            "http://127.0.0.1:11434/api",
            "http://127.8.9.1/x",
            "http://localhost:8080/v1",
            "http://user:pw@LOCALHOST/v1",
            "http://[::1]:8080/v1",
        ] {
            assert_eq!(choose(local, &env), ProxyChoice::Direct, "{local}");
        }
        assert_eq!(
            choose("http://models.internal/v1", &env),
            ProxyChoice::Through("http://proxy:3128".into())
        );
        assert_eq!(
            choose("https://api.openai.com/v1", &env),
            ProxyChoice::CurlDecides,
            "https is curl's (it reads HTTPS_PROXY itself)"
        );
        assert_eq!(
            choose("http://models.internal/v1", &ProxyEnv::default()),
            ProxyChoice::CurlDecides
        );
        assert_eq!(host_of("http://[::1]:80/x"), "::1");
        assert!(!is_loopback("127.example.com"));
    }
}
