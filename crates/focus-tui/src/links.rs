//! Links found in plain text and written as OSC 8 hyperlinks: bare URLs
//! (`http://`, `https://`, trailing punctuation left out) and file paths
//! (`src/main.rs`, `/etc/hosts`, grep's `src/lib.rs:12:`), which the caller
//! turns into `file://host/abs/path` targets when the file exists
//! ([`linkify`]'s `resolve`).
//!
//! The text is outside data (a model's answer, a tool's output): a target is
//! written only when every byte of it is printable ASCII without spaces
//! ([`safe_target`]; a path is percent-encoded by [`file_url`]), so no ESC,
//! BEL or C1 control of the text can end the sequence early and start one of
//! its own. The label is the text as it was, and a hyperlink takes no columns
//! ([`visible_width`](crate::width::visible_width) skips OSC sequences).

/// What turns a path found in text into the absolute path of the file it
/// names (`None` when there is none), for a `file://` link ([`file_url`]).
pub type Resolve = fn(&str) -> Option<std::path::PathBuf>;

/// A host name for `file://` URLs, kept inline (a window's look is copied
/// every frame): at most 64 bytes, as Linux allows; a longer one is left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Host {
    bytes: [u8; 64],
    len: u8,
}

impl Host {
    /// `name` trimmed, or no host if it is longer than 64 bytes.
    pub fn new(name: &str) -> Host {
        let name = name.trim();
        let mut host = Host::default();
        if name.len() <= host.bytes.len() {
            host.bytes[..name.len()].copy_from_slice(name.as_bytes());
            host.len = name.len() as u8;
        }
        host
    }

    /// The name (empty for none: `file:///…`).
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or("")
    }
}

impl Default for Host {
    fn default() -> Host {
        Host {
            bytes: [0; 64],
            len: 0,
        }
    }
}

/// What a span of text links to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A URL, written as found.
    Url(String),
    /// A path as written (without a `:line` after it); the caller checks it.
    Path(String),
}

/// A link candidate: bytes `start..end` of the text, and its target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// Where the label starts (bytes).
    pub start: usize,
    /// Where it ends (bytes).
    pub end: usize,
    /// What it points to.
    pub target: Target,
}

/// The longest target written (longer ones stay plain text).
const MAX_TARGET: usize = 2048;

/// Whether `target` can go inside an OSC 8 sequence: 1 to 2048 bytes, each
/// printable ASCII other than space.
pub fn safe_target(target: &str) -> bool {
    !target.is_empty()
        && target.len() <= MAX_TARGET
        && target.bytes().all(|b| (0x21..0x7f).contains(&b))
}

/// `label` as an OSC 8 hyperlink to `target`, or `None` when the target is not
/// [`safe_target`]. The label is written as given (the caller styles it).
pub fn osc8(target: &str, label: &str) -> Option<String> {
    safe_target(target).then(|| format!("\x1b]8;;{target}\x1b\\{label}\x1b]8;;\x1b\\"))
}

/// `file://host/abs/path` for an absolute `path`, each byte other than
/// unreserved ones and `/` percent-encoded.
pub fn file_url(host: &str, path: &str) -> String {
    let mut url = format!("file://{}", encode(host, false));
    if !path.starts_with('/') {
        url.push('/');
    }
    url.push_str(&encode(path, true));
    url
}

/// Percent-encodes what is not unreserved (and not `/` when `slash`).
fn encode(text: &str, slash: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) || (slash && b == b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Whether a byte may be part of a bare URL.
fn url_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~:/?#[]@!$&'()*+,;=%".contains(&b)
}

/// The URLs and path candidates in `text`, in order, not overlapping.
pub fn find_links(text: &str) -> Vec<Found> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        // Tokens are runs of bytes other than spaces and quoting characters.
        if !token_byte(bytes[at]) {
            at += 1;
            continue;
        }
        let start = at;
        while at < bytes.len() && token_byte(bytes[at]) {
            at += 1;
        }
        let token = &text[start..at];
        if let Some(offset) = url_start(token) {
            let url_start = start + offset;
            if offset == 0 || !bytes[url_start - 1].is_ascii_alphanumeric() {
                let mut end = url_start;
                while end < bytes.len() && url_byte(bytes[end]) {
                    end += 1;
                }
                let url = trim_url(&text[url_start..end]);
                if url.len() > url.find("://").unwrap_or(0) + 3 {
                    found.push(Found {
                        start: url_start,
                        end: url_start + url.len(),
                        target: Target::Url(url.to_string()),
                    });
                }
                at = at.max(url_start + url.len());
            }
            continue;
        }
        if let Some((path, shown)) = path_candidate(token) {
            found.push(Found {
                start,
                end: start + shown,
                target: Target::Path(path.to_string()),
            });
        }
    }
    found
}

/// Where `http://` or `https://` starts in `token`, if it does.
fn url_start(token: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = token[from..].find("://") {
        let at = from + found;
        for scheme in ["https", "http"] {
            if token[..at].ends_with(scheme) {
                return Some(at - scheme.len());
            }
        }
        from = at + 3;
    }
    None
}

/// Whether a byte may be in a token (paths and URLs are made of these).
fn token_byte(b: u8) -> bool {
    !(b.is_ascii_whitespace() || b"\"'`<>()[]{},;|".contains(&b))
}

/// A URL without the punctuation that ends a sentence around it, and without
/// a closing parenthesis or bracket it does not open.
fn trim_url(mut url: &str) -> &str {
    loop {
        let Some(last) = url.bytes().last() else {
            return url;
        };
        let unbalanced =
            |open: char, close: char| url.matches(close).count() > url.matches(open).count();
        let drop = match last {
            b'.' | b',' | b';' | b':' | b'!' | b'?' | b'\'' | b'*' => true,
            b')' => unbalanced('(', ')'),
            b']' => unbalanced('[', ']'),
            _ => false,
        };
        if !drop {
            return url;
        }
        url = &url[..url.len() - 1];
    }
}

/// A token that may name a file: the path and how many bytes of the token
/// show it (the path and a `:line` or `:line:column` after it). It has a `/`
/// or a name with a short extension (`main.rs`); trailing punctuation is not
/// part of it.
fn path_candidate(token: &str) -> Option<(&str, usize)> {
    let token = token.trim_end_matches(['.', ':', '!', '?']);
    let (path, rest) = match token.find(':') {
        Some(colon) => (&token[..colon], &token[colon..]),
        None => (token, ""),
    };
    let path = path.trim_end_matches(['.', '!', '?']);
    if path.is_empty() || path.len() > 1024 || path.contains("//") {
        return None;
    }
    let name = path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    let extension = name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=8).contains(&ext.len())
            && ext.starts_with(|c: char| c.is_ascii_alphabetic())
            && ext.bytes().all(|b| b.is_ascii_alphanumeric())
    });
    let looks_like =
        (path.contains('/') && path.bytes().any(|b| b.is_ascii_alphanumeric())) || extension;
    if !looks_like
        || path
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'.' || b == b'/')
    {
        return None;
    }
    // `:12` or `:12:5` after the path is shown as part of the link.
    let mut shown = path.len();
    let mut tail = rest;
    for _ in 0..2 {
        let Some(after) = tail.strip_prefix(':') else {
            break;
        };
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            break;
        }
        shown += 1 + digits;
        tail = &after[digits..];
    }
    Some((path, shown))
}

/// `text` (plain, no escapes) with its links as OSC 8 hyperlinks: URLs that
/// are [`safe_target`]s, and paths `resolve` turns into a target (a
/// `file://` URL of a file that exists). Text without links comes back as it is.
pub fn linkify(text: &str, resolve: &dyn Fn(&str) -> Option<String>) -> String {
    let found = find_links(text);
    if found.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + found.len() * 64);
    let mut at = 0;
    for link in found {
        let target = match &link.target {
            Target::Url(url) => Some(url.clone()),
            Target::Path(path) => resolve(path),
        };
        let label = &text[link.start..link.end];
        if let Some(linked) = target.and_then(|t| osc8(&t, label)) {
            out.push_str(&text[at..link.start]);
            out.push_str(&linked);
            at = link.end;
        }
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::width::visible_width;

    fn targets(text: &str) -> Vec<(String, Target)> {
        find_links(text)
            .into_iter()
            .map(|f| (text[f.start..f.end].to_string(), f.target))
            .collect()
    }

    fn url(text: &str) -> (String, Target) {
        (text.to_string(), Target::Url(text.to_string()))
    }

    fn path(shown: &str, path: &str) -> (String, Target) {
        (shown.to_string(), Target::Path(path.to_string()))
    }

    #[test]
    fn bare_urls_without_trailing_punctuation() {
        assert_eq!(targets("see https://e.com/a."), [url("https://e.com/a")]);
        assert_eq!(
            targets("(docs at https://en.wikipedia.org/wiki/Rust_(language)), ok"),
            [url("https://en.wikipedia.org/wiki/Rust_(language)")]
        );
        assert_eq!(
            targets("<http://x.dev/?q=1&b=2#top>"),
            [url("http://x.dev/?q=1&b=2#top")]
        );
        assert_eq!(targets("\"https://a.b/c\","), [url("https://a.b/c")]);
        assert_eq!(targets("https:// nothing, xhttps://no.pe"), []);
        assert_eq!(targets("a https://a.b/x。b"), [url("https://a.b/x")]);
    }

    #[test]
    fn paths_and_grep_positions() {
        assert_eq!(
            targets("edit src/main.rs now"),
            [path("src/main.rs", "src/main.rs")]
        );
        assert_eq!(
            targets("src/lib.rs:12:pub fn x() {}"),
            [path("src/lib.rs:12", "src/lib.rs")]
        );
        assert_eq!(
            targets("at /etc/hosts:3:7."),
            [path("/etc/hosts:3:7", "/etc/hosts")]
        );
        assert_eq!(targets("Cargo.toml."), [path("Cargo.toml", "Cargo.toml")]);
        assert_eq!(targets("1.5 and a/b and 3/4"), [path("a/b", "a/b")]);
        assert_eq!(targets("v1.2.3 ... e.g. // nothing"), [path("e.g", "e.g")]);
    }

    #[test]
    fn linkify_links_only_what_resolves() {
        let resolve = |p: &str| (p == "src/main.rs").then(|| file_url("box", "/w/src/main.rs"));
        let out = linkify("src/main.rs and gone.rs, https://e.com.", &resolve);
        assert_eq!(
            out,
            "\x1b]8;;file://box/w/src/main.rs\x1b\\src/main.rs\x1b]8;;\x1b\\ and gone.rs, \
             \x1b]8;;https://e.com\x1b\\https://e.com\x1b]8;;\x1b\\."
        );
        assert_eq!(
            visible_width(&out),
            "src/main.rs and gone.rs, https://e.com.".len()
        );
        assert_eq!(linkify("plain words", &resolve), "plain words");
    }

    #[test]
    fn host_names_fit_inline() {
        assert_eq!(Host::new(" box\n").as_str(), "box");
        assert_eq!(Host::new(&"h".repeat(65)).as_str(), "");
        assert_eq!(Host::new(&"é".repeat(32)).as_str(), "é".repeat(32));
    }

    #[test]
    fn file_urls_are_percent_encoded() {
        assert_eq!(file_url("h", "/a b/ü%.rs"), "file://h/a%20b/%C3%BC%25.rs");
        assert_eq!(file_url("", "/x"), "file:///x");
        assert!(safe_target(&file_url("h\x1b", "/\x07\u{9c}")));
    }

    /// ESC, BEL, C1 controls, spaces and non-ASCII never reach a target: such
    /// a URL is cut where they start, and [`osc8`] refuses a target holding one.
    #[test]
    fn hostile_targets_never_reach_the_sequence() {
        for target in [
            "https://e.com/\x1b]0;pwned\x07",
            "https://e.com/\u{9c}x",
            "a b",
            "",
            "é",
        ] {
            assert_eq!(osc8(target, "x"), None, "{target:?}");
        }
        let text = "go https://e.com/\x1b[2J\x07\u{9b}31mx now";
        let out = linkify(text, &|_| None);
        assert!(out.contains("\x1b]8;;https://e.com/\x1b\\"), "{out:?}");
        let mut rng = focus_testkit::rng::Rng::new(8);
        let alphabet: Vec<char> = "hts:/.a(]) \x1b\x07\u{9c}é\\;8p-".chars().collect();
        for _ in 0..3000 {
            let text: String = (0..rng.below(40))
                .map(|_| alphabet[rng.below(alphabet.len())])
                .collect();
            let text = format!("https://{text}");
            let found = find_links(&text);
            for link in &found {
                if let Target::Url(url) = &link.target {
                    assert!(safe_target(url), "{text:?}: {url:?}");
                }
            }
            // Each link found adds one opening and one closing sequence.
            let out = linkify(&text, &|p| Some(file_url("h", p)));
            let count = |s: &str| s.matches("\x1b]8;;").count();
            assert_eq!(count(&out), count(&text) + 2 * found.len(), "{text:?}");
        }
    }
}
