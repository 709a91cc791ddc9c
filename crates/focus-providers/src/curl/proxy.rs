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
//!
//! [`proxy_for_http`] answers the question the transport choice asks: would an
//! `http://` request go through a proxy? (Then it goes through curl, which speaks
//! proxies; otherwise the std transport serves it.) It reads the variables the
//! way curl does, plus the two rules above.

/// What the environment says about proxies, read once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProxyEnv {
    /// `HTTP_PROXY`, when `http_proxy` is not set (curl would ignore it).
    pub upper_http_proxy: Option<String>,
    /// The proxy for `http://` URLs: the first set of `http_proxy`,
    /// `HTTP_PROXY`, `all_proxy`, `ALL_PROXY`.
    pub http: Option<String>,
    /// `no_proxy` (else `NO_PROXY`): hosts that go direct.
    pub no_proxy: Option<String>,
}

impl ProxyEnv {
    /// Reads the process environment.
    pub fn from_env() -> ProxyEnv {
        let set = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let first = |names: &[&str]| names.iter().find_map(|name| set(name));
        ProxyEnv {
            upper_http_proxy: set("http_proxy")
                .is_none()
                .then(|| set("HTTP_PROXY"))
                .flatten(),
            http: first(&["http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"]),
            no_proxy: first(&["no_proxy", "NO_PROXY"]),
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

/// The proxy an `http://` request to `url` goes through, if any: none for
/// loopback, none for a host `no_proxy` lists, else the `http` proxy of `env`.
pub fn proxy_for_http<'a>(url: &str, env: &'a ProxyEnv) -> Option<&'a str> {
    let host = host_of(url);
    if is_loopback(host) {
        return None;
    }
    let proxy = env.http.as_deref()?;
    match &env.no_proxy {
        Some(list) if no_proxy_matches(list, host) => None,
        _ => Some(proxy),
    }
}

/// Whether `host` is in a `no_proxy` list, as curl reads one: comma-separated
/// entries; `*` matches everything; a name matches itself and its subdomains
/// (a leading dot is optional); an IP address matches itself, and a CIDR range
/// (`10.0.0.0/8`) the addresses in it.
pub fn no_proxy_matches(list: &str, host: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let host_ip = host.parse::<std::net::IpAddr>().ok();
    list.split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .any(|entry| {
            if entry == "*" {
                return true;
            }
            let entry = entry.trim_start_matches('.').trim_end_matches('.');
            let entry = entry.to_ascii_lowercase().replace(['[', ']'], "");
            if let (Some(ip), Some((net, bits))) = (host_ip, entry.split_once('/')) {
                return in_cidr(ip, net, bits);
            }
            let entry = entry.as_str();
            if let Some(ip) = host_ip {
                return entry.parse::<std::net::IpAddr>() == Ok(ip);
            }
            host == entry || host.ends_with(&format!(".{entry}"))
        })
}

/// Whether `ip` is inside `net/bits`.
fn in_cidr(ip: std::net::IpAddr, net: &str, bits: &str) -> bool {
    use std::net::IpAddr;
    let (Ok(net), Ok(bits)) = (net.parse::<IpAddr>(), bits.parse::<u32>()) else {
        return false;
    };
    match (ip, net) {
        (IpAddr::V4(ip), IpAddr::V4(net)) if bits <= 32 => {
            let mask = u32::MAX.checked_shl(32 - bits).unwrap_or(0);
            u32::from(ip) & mask == u32::from(net) & mask
        }
        (IpAddr::V6(ip), IpAddr::V6(net)) if bits <= 128 => {
            let mask = u128::MAX.checked_shl(128 - bits).unwrap_or(0);
            u128::from(ip) & mask == u128::from(net) & mask
        }
        _ => false,
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
            ..ProxyEnv::default()
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

    #[test]
    fn http_proxy_applies_unless_loopback_or_no_proxy() {
        let env = ProxyEnv {
            http: Some("http://proxy:3128".into()),
            no_proxy: Some("internal.example, .corp,10.0.0.0/8, 192.168.1.7,[fd00::/8]".into()),
            ..ProxyEnv::default()
        };
        for direct in [
            "http://127.0.0.1:8080/v1",
            "http://localhost/v1",
            "http://[::1]:11434/",
            "http://internal.example/v1",
            "http://gpu.internal.example:8000/v1",
            "http://box.corp/v1",
            "http://10.1.2.3:8000/v1",
            "http://192.168.1.7/v1",
            "http://[fd00::5]:80/",
        ] {
            assert_eq!(proxy_for_http(direct, &env), None, "{direct}");
        }
        for proxied in [
            "http://192.168.1.8/v1",
            "http://notinternal.example/v1",
            "http://11.0.0.1/",
            "http://example.com/",
        ] {
            assert_eq!(
                proxy_for_http(proxied, &env),
                Some("http://proxy:3128"),
                "{proxied}"
            );
        }
        let star = ProxyEnv {
            no_proxy: Some("*".into()),
            ..env.clone()
        };
        assert_eq!(proxy_for_http("http://example.com/", &star), None);
        assert_eq!(
            proxy_for_http("http://example.com/", &ProxyEnv::default()),
            None
        );
    }
}
