//! Hostile input for the search engines: random regexes, globs and ignore
//! files, and patterns built to be as deep as the parser allows. Each must
//! compile to an error or a matcher that answers; nothing may panic, overflow
//! the stack or hang. Seeded, so a failure reproduces.

use focus_testkit::rng::Rng;
use focus_tools::glob::Glob;
use focus_tools::ignore::IgnoreRules;
use focus_tools::regex::Regex;

const REGEX_PIECES: [&str; 44] = [
    "a",
    "b",
    "é",
    "日",
    "\u{301}",
    ".",
    "*",
    "+",
    "?",
    "*?",
    "{2}",
    "{0,3}",
    "{3,}",
    "{1000}",
    "{99999999999}",
    "{",
    "}",
    "(",
    ")",
    "(?:",
    "(?i)",
    "(?-i)",
    "(?s)",
    "(?i:",
    "(?P<n>",
    "(?=",
    "|",
    "^",
    "$",
    "\\b",
    "\\B",
    "\\",
    "\\d",
    "\\w",
    "\\x",
    "\\x{110000}",
    "\\u{e9}",
    "[",
    "]",
    "[^",
    "a-",
    "[:alpha:]",
    "\0",
    " ",
];

fn random_text(rng: &mut Rng) -> Vec<u8> {
    const BYTES: &[u8] = b"ab \n\r\t\xc3\xa9\xff\x00-_9A";
    (0..rng.below(40))
        .map(|_| BYTES[rng.below(BYTES.len())])
        .collect()
}

#[test]
fn random_regexes_compile_or_fail_and_never_panic() {
    let mut rng = Rng::new(0x5eed_0001);
    for _ in 0..4000 {
        let pattern: String = (0..rng.below(16))
            .map(|_| *rng.pick(&REGEX_PIECES))
            .collect();
        let icase = rng.below(2) == 0;
        match Regex::with_options(&pattern, icase) {
            Ok(regex) => {
                for _ in 0..4 {
                    let text = random_text(&mut rng);
                    let found = regex.find(&text);
                    if let Some((start, end)) = found {
                        assert!(start <= end && end <= text.len(), "{pattern:?}");
                    }
                    assert_eq!(
                        regex.is_match(&text),
                        found.is_some(),
                        "{pattern:?} on {text:?}"
                    );
                }
            }
            Err(e) => assert!(!e.message.is_empty(), "{pattern:?}"),
        }
        let literal = Regex::literal(&pattern, icase);
        let text = random_text(&mut rng);
        let _ = literal.find(&text);
    }
}

#[test]
fn stacked_repetition_operators_are_an_error_not_a_stack_overflow() {
    // Each operator wrapped the tree one level deeper; 100,000 of them overflowed
    // the stack of whatever thread compiled (or merely dropped) the pattern.
    for op in ["*", "+", "?", "{2}", "*?"] {
        let pattern = format!("a{}", op.repeat(100_000));
        let err = Regex::new(&pattern).unwrap_err();
        assert!(err.message.contains("in a row"), "{op}: {err}");
    }
    assert!(Regex::new("a{2}{3}").unwrap().is_match(b"aaaaaa"));
    assert!(Regex::new("a*?").is_ok() && Regex::new("a??").is_ok());
}

#[test]
fn inline_flag_switches_are_bounded_like_groups() {
    // Each `(?i)` made the parser recurse for the rest of the branch.
    let err = Regex::new(&"(?i)(?-i)".repeat(50_000)).unwrap_err();
    assert!(err.message.contains("inline flag"), "{err}");
    assert!(Regex::new(&format!("{}x", "(?i)a".repeat(150)))
        .unwrap()
        .is_match(format!("{}X", "A".repeat(150)).as_bytes()));
}

#[test]
fn patterns_up_to_the_nesting_limits_compile_or_fail_cleanly() {
    // Groups, alternations and two stacked operators per level, with and without
    // inline flags: the tree grew deep enough to overflow the compiler's stack
    // (about 600 levels in a debug build) while every single limit held.
    let mut plain = String::from("a**");
    let mut flagged = String::from("a{0,1}*");
    let mut deepest_ok = 0;
    for level in 0..199 {
        plain = format!("(?:x|{plain})**");
        if level < 99 {
            flagged = format!("(?:x|(?i){flagged}){{0,1}}?");
        }
        for pattern in [&plain, &flagged] {
            match Regex::new(pattern) {
                Ok(regex) => {
                    assert!(regex.is_match(b"zzaz"));
                    deepest_ok = deepest_ok.max(level);
                }
                Err(e) => assert!(
                    e.message.contains("deeply") || e.message.contains("too large"),
                    "{e}"
                ),
            }
        }
    }
    assert!(deepest_ok >= 80, "{deepest_ok}");
    assert!(Regex::new(&format!("{}a{}", "(".repeat(300), ")".repeat(300))).is_err());
}

const GLOB_PIECES: [&str; 26] = [
    "*", "**", "**/", "/", "?", "[", "]", "[!", "[^", "a-z", "{", "}", ",", "\\", "a", ".rs", "é",
    "日", "(", ")", "|", "+", "^", "$", " ", "-",
];

#[test]
fn random_globs_compile_or_fail_and_never_panic() {
    let mut rng = Rng::new(0x5eed_0002);
    let names = [
        "a.rs",
        "src/a.rs",
        "",
        "é/日.rs",
        "[a]",
        "a{b}",
        "x/y/z",
        "-",
        "a,b",
    ];
    for _ in 0..4000 {
        let pattern: String = (0..rng.below(12))
            .map(|_| *rng.pick(&GLOB_PIECES))
            .collect();
        if let Ok(glob) = Glob::new(&pattern) {
            for name in names {
                let _ = glob.is_match(name);
                let _ = glob.matches_path(name);
            }
        }
    }
    let deep = format!("{}a{}", "{".repeat(5000), "}".repeat(5000));
    assert!(Glob::new(&deep).is_err());
}

#[test]
fn random_ignore_files_never_panic() {
    let mut rng = Rng::new(0x5eed_0003);
    let pieces = [
        "\n", "\r\n", "#", "!", "\\", "/", "*", "**", "?", "[", "]", "{", "}", " ", "\\ ", "a",
        "b/", "é", "target", ".git",
    ];
    for _ in 0..3000 {
        let text: String = (0..rng.below(20)).map(|_| *rng.pick(&pieces)).collect();
        let rules = IgnoreRules::parse(&text);
        for (path, is_dir) in [
            ("a", false),
            ("b", true),
            ("a/b", true),
            ("é/target", false),
        ] {
            let _ = rules.verdict(path, is_dir);
        }
    }
}
