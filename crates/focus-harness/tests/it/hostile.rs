//! Hostile session files and settings: random bytes, invalid UTF-8, huge lines,
//! mutated real pi lines, broken and cyclic parent links, duplicated ids. Loading,
//! building the context, drawing the tree, listing and estimating tokens must
//! never panic nor hang. Seeded, so a failure reproduces.

use crate::support::{Rng, Scratch, ScriptedProvider};
use focus_core::cancel::CancelToken;
use focus_core::json::{parse_str, Value};
use focus_core::message::{AssistantMessage, Content};
use focus_harness::compaction::estimate_context_tokens;
use focus_harness::compaction::{
    compact_session, leave_branch_with_summary, prepare_compaction, CompactionSettings,
};
use focus_harness::session::{convert_to_llm, SessionManager, SessionStore};
use focus_harness::settings::load_settings;

const PI_SAMPLE: &str = "pi-session-anthropic-messages.jsonl";

fn pi_lines() -> Vec<String> {
    // Without the samples (a visible skip of the real file), a small
    // hand-written session stands in.
    let path = focus_testkit::pi_samples_dir().map(|dir| dir.join(PI_SAMPLE));
    match path.map(std::fs::read_to_string).unwrap_or_else(|| Err(std::io::ErrorKind::NotFound.into())) {
        Ok(text) => text.lines().map(str::to_string).collect(),
        // Without the samples, a small hand-written session stands in.
        Err(_) => vec![
            r#"{"type":"session","version":3,"id":"s","timestamp":"2026-12-02T14:47:26.142Z","cwd":"/w"}"#.into(),
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-12-02T14:47:26.159Z","message":{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1}}"#.into(),
            r#"{"type":"message","id":"b","parentId":"a","timestamp":"2026-12-02T14:47:26.226Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"t","name":"bash","arguments":{}}],"usage":{"input":1,"output":1,"totalTokens":2},"stopReason":"toolUse","timestamp":2}}"#.into(),
        ],
    }
}

const WEIRD: [&str; 16] = [
    "null",
    "-1",
    "1e400",
    "18446744073709551615",
    "18446744073709551616",
    "1.5",
    "\"\"",
    "\"a\"",
    "\"ca258a98\"",
    "\"f7733edd\"",
    "[]",
    "{}",
    "true",
    "\"message\"",
    "\"compaction\"",
    "\"toolCall\"",
];

fn mutate(v: &mut Value, rng: &mut Rng, depth: usize) {
    if rng.below_u64(6) == 0 || depth > 5 {
        *v = parse_str(WEIRD[rng.below_u64(WEIRD.len() as u64) as usize]).unwrap();
        return;
    }
    match v {
        Value::Object(o) => {
            let keys: Vec<String> = o.keys().map(str::to_string).collect();
            for k in keys {
                match rng.below_u64(8) {
                    0 => {
                        o.remove(&k);
                    }
                    1 | 2 => mutate(o.get_mut(&k).unwrap(), rng, depth + 1),
                    _ => {}
                }
            }
        }
        Value::Array(a) => {
            for child in a.iter_mut() {
                if rng.below_u64(3) == 0 {
                    mutate(child, rng, depth + 1);
                }
            }
        }
        _ => *v = parse_str(WEIRD[rng.below_u64(WEIRD.len() as u64) as usize]).unwrap(),
    }
}

/// Opens the file every way the CLI does and uses what was loaded. Returns how
/// many entries loaded.
fn exercise(scratch: &Scratch, bytes: &[u8], round: usize) -> usize {
    let path = scratch.path().join(format!("s{round}.jsonl"));
    std::fs::write(&path, bytes).unwrap();
    let mut loaded = 0;
    if let Ok(manager) = SessionManager::open_read_only(&path) {
        loaded = manager.tree().entries().len();
        let context = manager.context();
        let _ = estimate_context_tokens(&context.messages);
        let _ = convert_to_llm(&context.messages);
        let _ = manager.tree().nodes();
        let _ = manager.name();
        for entry in manager.tree().entries().iter().take(5) {
            let _ = manager.tree().branch(Some(&entry.id));
        }
    }
    if let Ok(mut manager) = SessionManager::open(&path) {
        let _ = manager.append_custom("qa", Value::Null);
        let _ = manager.context();
        for keep in [0, 20_000, u64::MAX] {
            let settings = CompactionSettings {
                enabled: true,
                reserve_tokens: keep,
                keep_recent_tokens: keep,
            };
            let _ = prepare_compaction(&manager.tree().current_branch(), &settings);
        }
        let summary = AssistantMessage {
            content: vec![Content::text("## Goal\nsummary")],
            ..AssistantMessage::default()
        };
        let provider = ScriptedProvider::new(vec![summary.clone(), summary]);
        let settings = CompactionSettings {
            keep_recent_tokens: 10,
            ..CompactionSettings::default()
        };
        let cancel = CancelToken::new();
        let _ = compact_session(&mut manager, &provider, &settings, None, &cancel);
        let first = manager.tree().entries().first().map(|e| e.id.clone());
        let _ = leave_branch_with_summary(
            &mut manager,
            &provider,
            first.as_deref(),
            &settings,
            &cancel,
        );
        let _ = manager.context();
    }
    let _ = focus_harness::session::list::session_info(&path);
    let _ = std::fs::remove_file(&path);
    loaded
}

#[test]
fn mutated_pi_lines_load_without_panicking() {
    let scratch = Scratch::new("hostile-mutated");
    let lines = pi_lines();
    let mut rng = Rng::new(0x0bad_5e55);
    let mut loaded = 0;
    for round in 0..60 {
        let mut out = Vec::new();
        for (n, line) in lines.iter().enumerate() {
            let mut line = line.clone();
            if rng.below_u64(3) == 0 {
                if let Ok(mut v) = parse_str(&line) {
                    mutate(&mut v, &mut rng, 0);
                    line = v.to_json_string();
                }
            }
            match rng.below_u64(12) {
                0 => line.truncate(rng.below_u64(line.len() as u64 + 1) as usize),
                1 => out.extend_from_slice(
                    lines[rng.below_u64(lines.len() as u64) as usize].as_bytes(),
                ),
                _ => {}
            }
            out.extend_from_slice(line.as_bytes());
            if n + 1 < lines.len() || rng.below_u64(2) == 0 {
                out.push(b'\n');
            }
        }
        loaded += exercise(&scratch, &out, round);
    }
    assert!(
        loaded > 60 * (lines.len() - 1) / 2,
        "most entries survive ({loaded})"
    );
}

#[test]
fn random_bytes_invalid_utf8_and_huge_lines_load_without_panicking() {
    let scratch = Scratch::new("hostile-bytes");
    let lines = pi_lines();
    let mut rng = Rng::new(0xdead_beef);
    for round in 0..40 {
        let mut out: Vec<u8> = Vec::new();
        if rng.below_u64(2) == 0 {
            out.extend_from_slice(lines[0].as_bytes());
            out.push(b'\n');
        }
        for _ in 0..rng.below_u64(6) {
            match rng.below_u64(4) {
                0 => out.extend((0..rng.below_u64(200)).map(|_| rng.next_u64() as u8)),
                1 => out.extend_from_slice(b"\xEF\xBB\xBF\xff\xfe{\"type\":\"message\"}\r\n"),
                2 => {
                    let mut line = lines[rng.below_u64(lines.len() as u64) as usize].clone();
                    let at = rng.below_u64(line.len() as u64) as usize;
                    if line.is_char_boundary(at) {
                        line.insert_str(at, &"\u{10FFFF}x".repeat(rng.below_u64(3) as usize));
                    }
                    out.extend_from_slice(line.as_bytes());
                    out.push(b'\n');
                }
                _ => {
                    out.extend_from_slice(b"{\"type\":\"custom\",\"id\":\"h\",\"data\":\"");
                    out.extend(std::iter::repeat_n(b'x', 300_000));
                    out.extend_from_slice(b"\"}\n");
                }
            }
        }
        let _ = exercise(&scratch, &out, round);
    }
}

#[test]
fn cyclic_and_duplicated_parent_links_neither_panic_nor_hang() {
    let scratch = Scratch::new("hostile-cycles");
    let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-12-02T14:47:26.142Z","cwd":"/w"}"#;
    let entry = |id: &str, parent: &str| {
        let parent = if parent.is_empty() {
            "null".to_string()
        } else {
            format!("\"{parent}\"")
        };
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-12-02T14:47:26.159Z","message":{{"role":"user","content":"{id}","timestamp":1}}}}"#
        )
    };
    let files = [
        vec![entry("a", "b"), entry("b", "a")],
        vec![entry("a", "b"), entry("b", "a"), entry("a", "")],
        vec![entry("a", ""), entry("b", "a"), entry("a", "b")],
        vec![entry("a", "a")],
        vec![
            entry("a", ""),
            entry("a", "a"),
            entry("b", "a"),
            entry("a", "b"),
        ],
    ];
    for (round, lines) in files.iter().enumerate() {
        let text = format!("{header}\n{}\n", lines.join("\n"));
        let _ = exercise(&scratch, text.as_bytes(), round);
    }
}

#[test]
fn hostile_settings_files_are_errors_or_defaults_never_panics() {
    let scratch = Scratch::new("hostile-settings");
    let config = scratch.path().join("agent");
    let cwd = scratch.path().join("project");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::create_dir_all(cwd.join(".focus")).unwrap();
    let good = r#"{"defaultProvider":"anthropic","defaultModel":"m","defaultThinkingLevel":"high","compaction":{"enabled":true,"reserveTokens":16384,"keepRecentTokens":20000},"retry":{"maxRetries":3},"shellPath":"/bin/sh","hooks":{"PreToolUse":[{"matcher":"bash","hooks":[{"type":"command","command":"true"}]}]},"permissions":{"allow":["Bash(ls:*)"]}}"#;
    let mut rng = Rng::new(0x5e77_1165);
    for round in 0..120 {
        let text = match round % 3 {
            0 => {
                let mut v = parse_str(good).unwrap();
                mutate(&mut v, &mut rng, 0);
                v.to_json_string().into_bytes()
            }
            1 => (0..rng.below_u64(64))
                .map(|_| rng.next_u64() as u8)
                .collect(),
            _ => {
                let mut b = good.as_bytes().to_vec();
                b.truncate(rng.below_u64(b.len() as u64) as usize);
                b
            }
        };
        let target = if rng.below_u64(2) == 0 {
            config.join("settings.json")
        } else {
            cwd.join(".focus/settings.json")
        };
        std::fs::write(&target, &text).unwrap();
        match load_settings(&config, &cwd) {
            Ok(_) => {}
            Err(e) => {
                let message = e.to_string();
                assert!(
                    message.contains("settings.json"),
                    "error names the file: {message}"
                );
            }
        }
        let _ = std::fs::remove_file(&target);
    }
}

#[test]
fn listing_a_store_of_hostile_files_never_panics() {
    let scratch = Scratch::new("hostile-list");
    let store = SessionStore::new(scratch.path().to_path_buf());
    let dir = scratch.path().join("sessions").join("--w--");
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng::new(3);
    for n in 0..20 {
        let bytes: Vec<u8> = (0..rng.below_u64(300))
            .map(|_| rng.next_u64() as u8)
            .collect();
        std::fs::write(dir.join(format!("{n}.jsonl")), bytes).unwrap();
    }
    let _ = store.list_all();
    let _ = store.list(std::path::Path::new("/w"));
}

#[test]
fn a_cycle_hanging_under_a_duplicated_root_is_drawn_once() {
    let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-12-02T14:47:26.142Z","cwd":"/w"}"#;
    let line = |id: &str, parent: &str| {
        format!(
            r#"{{"type":"custom","customType":"x","id":"{id}","parentId":{parent},"timestamp":"2026-12-02T14:47:26.159Z"}}"#
        )
    };
    let text = [
        header.to_string(),
        line("a", "\"b\""),
        line("b", "\"a\""),
        line("a", "null"),
    ]
    .join("\n")
        + "\n";
    let scratch = Scratch::new("hostile-cycle-root");
    let path = scratch.path().join("s.jsonl");
    std::fs::write(&path, text).unwrap();
    let manager = SessionManager::open_read_only(&path).unwrap();
    let roots = manager.tree().nodes();
    assert_eq!(roots.len(), 1);
    let mut count = 0;
    let mut stack: Vec<_> = roots.iter().collect();
    while let Some(node) = stack.pop() {
        count += 1;
        stack.extend(node.children.iter());
    }
    assert_eq!(count, 3, "each entry drawn once");
}

#[test]
fn hostile_skill_files_and_guidance_files_never_panic() {
    use focus_harness::prompt::skills::parse_skill;
    let mut rng = Rng::new(0x5c11_1e55);
    let pieces = [
        "---",
        "\n",
        "name:",
        "description:",
        " ",
        "'",
        "\"",
        "é",
        "\u{301}",
        "x",
        ":",
        "\r\n",
        "|",
        ">",
    ];
    for _ in 0..5_000 {
        let text: String = (0..rng.below_u64(30))
            .map(|_| pieces[rng.below_u64(pieces.len() as u64) as usize])
            .collect();
        if let Err(e) = parse_skill(&text, "folder") {
            assert!(!e.is_empty());
        }
    }
    let scratch = Scratch::new("hostile-prompt");
    let home = scratch.path().join("home");
    let cwd = scratch.path().join("project");
    std::fs::create_dir_all(home.join("skills/bad")).unwrap();
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::write(
        home.join("skills/bad/SKILL.md"),
        b"---\nname: \xff\xfe\n---\n",
    )
    .unwrap();
    std::fs::write(cwd.join("AGENTS.md"), b"\xff\xfe rules \xc3").unwrap();
    std::fs::write(home.join("AGENTS.md"), "é".repeat(300_000)).unwrap();
    let options = focus_harness::prompt::PromptOptions::new(&cwd, &home);
    let prompt = focus_harness::prompt::build_system_prompt(&options);
    let _ = prompt;
}
