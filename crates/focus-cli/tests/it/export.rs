//! HTML export checked by parsing the page: balanced tags, escaped content, no
//! network references, thinking collapsed, phone-friendly viewport.

use crate::support::*;
use std::path::Path;

/// Elements without a closing tag.
const VOID: [&str; 6] = ["meta", "img", "br", "hr", "link", "input"];

/// Checks that every tag closes in order and returns the tag names opened.
fn parse_tags(html: &str) -> Vec<String> {
    let mut stack: Vec<String> = Vec::new();
    let mut opened = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        rest = &rest[start + 1..];
        let end = rest.find('>').expect("unterminated tag");
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        if tag.starts_with('!') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack
                .pop()
                .unwrap_or_else(|| panic!("</{name}> closes nothing"));
            assert_eq!(open, name.trim(), "mis-nested tags");
            continue;
        }
        let name: String = tag
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        assert!(!name.is_empty(), "a raw '<' in text: <{tag}>");
        opened.push(name.clone());
        if name == "style" {
            let close = rest.find("</style>").expect("style closes");
            rest = &rest[close + "</style>".len()..];
            continue;
        }
        if !VOID.contains(&name.as_str()) {
            stack.push(name);
        }
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
    opened
}

fn export(s: &Sandbox, session: &Path) -> String {
    let out_path = s.root.join("page.html");
    let out = s.run(
        &[
            "--export",
            session.to_str().unwrap(),
            out_path.to_str().unwrap(),
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::read_to_string(out_path).unwrap()
}

#[test]
fn a_focus_session_exports_to_valid_self_contained_html() {
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"x","steps":[
      {"reply":{"thinking":"secret <thoughts> & plans","text":"Running <script>alert(1)</script>","toolCalls":[{"name":"bash","arguments":{"command":"echo '<tag>'"}}]}},
      {"reply":{"text":"All done & dusted."}}]}"#,
    );
    s.write_models(&server.url());
    assert!(s
        .run(&["-p", "--model", "mock-anthropic/m1", "go"], "")
        .status
        .success());
    let html = export(&s, &s.session_files()[0]);
    let tags = parse_tags(&html);
    assert!(tags.contains(&"details".to_string()));
    assert!(
        !tags.contains(&"script".to_string()),
        "model text became a script tag"
    );
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(html.contains("<details class=\"thinking\"><summary>thinking</summary><pre>secret &lt;thoughts&gt; &amp; plans</pre></details>"));
    assert!(html.contains("&lt;tag&gt;"), "tool output is escaped");
    assert!(html.contains("All done &amp; dusted."));
    assert!(html.contains("name=\"viewport\" content=\"width=device-width"));
    for network in ["http://", "https://", "src=\"//", "@import"] {
        assert!(!html.contains(network), "network reference {network}");
    }
}

#[test]
fn a_pi_session_file_exports_too() {
    let Some(dir) = focus_testkit::pi_samples_dir() else {
        return;
    };
    let sample = dir.join("pi-session-openai-completions.jsonl");
    let s = Sandbox::new();
    let html = export(&s, &sample);
    parse_tags(&html);
    assert!(html.contains("hi-from-tool"));
    assert!(html.contains("echo hi-from-tool"));
}
