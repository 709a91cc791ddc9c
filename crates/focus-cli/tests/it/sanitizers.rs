//! The terminal kit has its own sanitizer (focus-tui's `printable`, so the kit
//! needs no tool crate); focus-tools has the one tool output goes through. Text
//! reaches the screen through either, so they must remove exactly the same.

use focus_tools::output::sanitize;
use focus_tui::printable::printable;

/// Pieces hostile text is made of: escape sequences whole and cut, controls,
/// C1 controls, line endings, wide and hidden characters, plain text.
const PIECES: &[&str] = &[
    "\u{1b}[31m",
    "\u{1b}[",
    "\u{1b}]0;title\u{7}",
    "\u{1b}]8;;http://x\u{1b}\\",
    "\u{1b}]",
    "\u{1b}P",
    "\u{1b}\\",
    "\u{1b}c",
    "\u{1b}",
    "\u{7}",
    "\u{8}",
    "\u{7f}",
    "\u{9b}",
    "\u{85}",
    "\r",
    "\r\n",
    "\n",
    "\t",
    "é",
    "日本",
    "🎉",
    "\u{202e}",
    "\u{200b}",
    "a",
    "word ",
    ";",
    "m",
    "[",
    "]",
    "\\",
    "~",
    "@",
];

/// A small seeded generator (the same strings on every run).
fn next(seed: &mut u64) -> u64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *seed >> 33
}

#[test]
fn the_kit_and_the_tools_remove_the_same() {
    let mut seed = 28;
    let mut changed = 0;
    for _ in 0..20_000 {
        let len = next(&mut seed) % 12;
        let text: String = (0..len)
            .map(|_| PIECES[next(&mut seed) as usize % PIECES.len()])
            .collect();
        let kit = printable(&text);
        assert_eq!(kit, sanitize(&text), "{text:?}");
        changed += usize::from(kit != text);
    }
    assert!(changed > 10_000, "only {changed} strings needed work");
}
