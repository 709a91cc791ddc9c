//! Hostile input for the gates and the MCP configuration: random shell text
//! (quotes, heredocs, substitutions, odd Unicode) through the read-only judge,
//! random permission rules, and mutated `settings.json` objects through
//! `GateConfig::from_json` and `McpServerConfig::from_json`. Nothing may panic or
//! hang. Seeded, so a failure reproduces.

use focus_core::json::parse_str;
use focus_testkit::mutate::JsonMutator;
use focus_testkit::rng::Rng;
use focus_tools::gates::judge::{is_workspace_edit_command, judge, split_commands};
use focus_tools::gates::rules::{glob_match, Rule};
use focus_tools::gates::GateConfig;
use focus_tools::mcp::config::expand_env;
use focus_tools::mcp::{sanitize, McpServerConfig};

const PIECES: [&str; 48] = [
    "ls", "cat", "git", "log", "find", "-exec", "rm", "sed", "-i", "echo", "x", " ", " ", "\t",
    "\n", ";", "&&", "||", "|", "&", ">", ">>", "<", "<<", "<<-", "EOF", "'", "\"", "\\", "$",
    "$(", "`", "(", ")", "{", "}", "${", "=", "*", "#", "2>&1", "<<<", "é", "\u{301}", "😀", "\0",
    "\r", "!",
];

fn shell_text(rng: &mut Rng) -> String {
    (0..rng.below(24))
        .map(|_| PIECES[rng.below(PIECES.len())])
        .collect()
}

#[test]
fn random_shell_text_is_judged_without_panicking() {
    let mut rng = Rng::new(0x0005_4e11);
    for _ in 0..20_000 {
        let cmd = shell_text(&mut rng);
        let verdict = judge(&cmd);
        let _ = verdict.is_read_only();
        let _ = split_commands(&cmd);
        let _ = is_workspace_edit_command(&cmd);
    }
}

#[test]
fn deep_and_long_shell_text_is_judged_without_panicking() {
    for cmd in [
        "$(".repeat(50_000),
        "(".repeat(50_000),
        "{ ".repeat(50_000),
        "`".repeat(50_001),
        "echo \"$(echo \"$(".repeat(10_000),
        "ls; ".repeat(20_000),
        "cat <<EOF\n".repeat(5_000),
        format!("ls {}", "a".repeat(1 << 20)),
    ] {
        let _ = judge(&cmd);
        let _ = split_commands(&cmd);
    }
}

#[test]
fn random_permission_rules_parse_or_fail_cleanly() {
    let mut rng = Rng::new(0x0007_0c1e);
    let bits = [
        "Bash", "bash", "(", ")", "*", ":", "**", "git diff", "é", "\u{301}", "", "Read", "/",
    ];
    for _ in 0..20_000 {
        let text: String = (0..rng.below(8))
            .map(|_| bits[rng.below(bits.len())])
            .collect();
        if let Ok(rule) = Rule::parse(&text) {
            let subject: String = (0..rng.below(8))
                .map(|_| bits[rng.below(bits.len())])
                .collect();
            let _ = rule.matches_tool("bash");
            let _ = rule.matches_subject(&subject);
        } else if let Err(e) = Rule::parse(&text) {
            assert!(!e.is_empty());
        }
        let pattern: String = (0..rng.below(10))
            .map(|_| bits[rng.below(bits.len())])
            .collect();
        let _ = glob_match(&pattern, &text);
    }
    // A pathological glob must answer in bounded time (no exponential backtracking).
    let pattern = "*a".repeat(40) + "b";
    assert!(!glob_match(&pattern, &"a".repeat(5_000)));
}

const WEIRD: [&str; 14] = [
    "null",
    "-1",
    "1e400",
    "18446744073709551616",
    "1.5",
    "\"\"",
    "\"x\"",
    "[]",
    "{}",
    "true",
    "[1,{}]",
    "\"${\"",
    "\"$\"",
    "\"${A:-${B}}\"",
];

/// How the documents here are damaged.
const MUTATOR: JsonMutator = JsonMutator {
    weird: &WEIRD,
    replace_one_in: 5,
    deepest: 5,
    key_draws: 6,
    reshape_arrays: false,
};

#[test]
fn mutated_settings_give_configs_or_named_errors() {
    let settings = parse_str(
        r#"{"permissionMode":"default","permissions":{"allow":["Bash(git diff:*)","read"],"deny":["Bash(rm:*)"],"ask":["write"]},
            "hooks":{"PreToolUse":[{"matcher":"bash|edit","hooks":[{"type":"command","command":"true","timeout":5}]}],"PostToolUse":[]},
            "mcpServers":{"fs":{"command":"srv","args":["--root","${HOME}"],"env":{"K":"${K:-v}"},"cwd":"/tmp","timeout":30},
                          "web":{"url":"https://example.invalid/mcp","headers":{"Authorization":"Bearer ${TOKEN:-x}"}}}}"#,
    )
    .unwrap();
    let mut rng = Rng::new(0x5e77_0000);
    for _ in 0..3_000 {
        let mut s = settings.clone();
        MUTATOR.mutate(&mut s, &mut rng);
        if let Err(e) = GateConfig::from_json(&s) {
            assert!(!e.is_empty());
        }
        if let Err(e) = McpServerConfig::from_json(&s) {
            assert!(!e.is_empty());
        }
    }
    for text in [
        "${", "${}", "${:-}", "$", "$$", "${A", "${A:-", "${A:-${B", "é${é}", "}${",
    ] {
        let _ = expand_env(text);
    }
    for name in ["", "é", "a/b", "\u{301}", &"x".repeat(500), "mcp__a__b"] {
        let _ = sanitize(name);
    }
}
