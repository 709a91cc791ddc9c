//! The pull reader driven by a careless or confused decoder: random calls, in
//! any order, over random and mutated JSON texts. Every call must return a value
//! or an error; none may panic, loop or read past the input. Seeded.

use focus_core::json::{parse_str, PullReader};
use focus_testkit::rng::Rng;

const PIECES: [&str; 30] = [
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"k\"",
    "\"a\\\"b\"",
    "\"\\u00e9\"",
    "\"\\ud800\"",
    "\"",
    "\\",
    "1",
    "-0",
    "1e999",
    "-",
    "0.5",
    "18446744073709551616",
    "true",
    "fals",
    "null",
    " ",
    "\n",
    "é",
    "\u{0}",
    "\"x",
    "[[[[",
    "]]]]",
    "{\"a\":",
    "nul",
];

#[test]
fn random_calls_over_random_texts_never_panic() {
    let mut rng = Rng::new(0x5eed_0008);
    for _ in 0..3000 {
        let text: String = (0..rng.below(24))
            .map(|_| PIECES[rng.below(PIECES.len())])
            .collect();
        let mut reader = PullReader::new(&text);
        for _ in 0..rng.below(40) {
            let _ = match rng.below(13) {
                0 => reader.begin_object().map(|_| ()),
                1 => reader.begin_array().map(|_| ()),
                2 => reader.next_key().map(|_| ()),
                3 => reader.next_element().map(|_| ()),
                4 => reader.read_string().map(|_| ()),
                5 => reader.read_str().map(|_| ()),
                6 => reader.read_number().map(|_| ()),
                7 => reader.read_f64().map(|_| ()),
                8 => reader.read_bool().map(|_| ()),
                9 => reader.read_null(),
                10 => reader.read_value().map(|_| ()),
                11 => reader.skip_value(),
                _ => {
                    let _ = reader.peek();
                    reader.finish()
                }
            };
        }
    }
}

#[test]
fn a_careful_walk_agrees_with_parse_on_random_texts() {
    // read_value then finish accepts exactly what parse accepts.
    let mut rng = Rng::new(0x5eed_0009);
    for _ in 0..3000 {
        let text: String = (0..rng.below(16))
            .map(|_| PIECES[rng.below(PIECES.len())])
            .collect();
        let mut reader = PullReader::new(&text);
        let pulled = reader
            .read_value()
            .and_then(|v| reader.finish().map(|()| v));
        match (parse_str(&text), pulled) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{text:?}"),
            (Err(_), Err(_)) => {}
            (a, b) => panic!("{text:?}: parse {a:?}, pull {b:?}"),
        }
    }
}
