//! Random damage to a JSON document, for the hostile-input tests: values
//! replaced by odd ones, keys removed, arrays reshaped; seeded, so a failure
//! reproduces.
//!
//! The tests of the provider configuration, the recorded streams and the gate
//! settings each damage a real document this way, with odd values of their own
//! and at their own rates: a [`JsonMutator`] holds those choices.

use crate::rng::Rng;
use focus_core::json::{parse_str, Value};

/// How to damage a document (see [`JsonMutator::mutate`]).
#[derive(Clone, Copy, Debug)]
pub struct JsonMutator<'a> {
    /// JSON texts a value may be replaced by; each must parse.
    pub weird: &'a [&'a str],
    /// A value is replaced outright one time in this many, and always below
    /// [`JsonMutator::deepest`].
    pub replace_one_in: usize,
    /// The depth below which every value is replaced.
    pub deepest: usize,
    /// Each key of an object draws one of this many (at least 3): 0 removes
    /// it, 1 and 2 damage its value, the rest leave it alone.
    pub key_draws: usize,
    /// Arrays also lose and gain (a copy of) an element, one time in four
    /// each, and each element is damaged one time in three; otherwise every
    /// element is damaged.
    pub reshape_arrays: bool,
}

impl JsonMutator<'_> {
    /// Damages `v` in place, drawing from `rng`.
    pub fn mutate(&self, v: &mut Value, rng: &mut Rng) {
        self.mutate_at(v, rng, 0);
    }

    fn mutate_at(&self, v: &mut Value, rng: &mut Rng, depth: usize) {
        if rng.below(self.replace_one_in) == 0 || depth > self.deepest {
            *v = self.weird_value(rng);
            return;
        }
        match v {
            Value::Object(o) => {
                let keys: Vec<String> = o.keys().map(str::to_string).collect();
                for k in keys {
                    match rng.below(self.key_draws) {
                        0 => {
                            o.remove(&k);
                        }
                        1 | 2 => {
                            if let Some(child) = o.get_mut(&k) {
                                self.mutate_at(child, rng, depth + 1);
                            }
                        }
                        _ => {}
                    }
                }
            }
            Value::Array(a) if self.reshape_arrays => {
                if !a.is_empty() && rng.below(4) == 0 {
                    let i = rng.below(a.len());
                    a.remove(i);
                }
                if !a.is_empty() && rng.below(4) == 0 {
                    let i = rng.below(a.len());
                    let copy = a[i].clone();
                    a.push(copy);
                }
                for child in a.iter_mut() {
                    if rng.below(3) == 0 {
                        self.mutate_at(child, rng, depth + 1);
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|c| self.mutate_at(c, rng, depth + 1)),
            _ => *v = self.weird_value(rng),
        }
    }

    /// One of [`JsonMutator::weird`], parsed.
    fn weird_value(&self, rng: &mut Rng) -> Value {
        let text = self.weird[rng.below(self.weird.len())];
        parse_str(text).unwrap_or_else(|e| panic!("weird value {text}: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ODD: JsonMutator = JsonMutator {
        weird: &["null", "-1", "\"x\""],
        replace_one_in: 4,
        deepest: 3,
        key_draws: 5,
        reshape_arrays: true,
    };

    #[test]
    fn damages_documents_and_repeats_for_a_seed() {
        let doc = parse_str(r#"{"a":[1,2,{"b":"c"}],"d":{"e":true,"f":[]}}"#).unwrap();
        let run = |seed| {
            let mut rng = Rng::new(seed);
            (0..50)
                .map(|_| {
                    let mut v = doc.clone();
                    ODD.mutate(&mut v, &mut rng);
                    v
                })
                .collect::<Vec<_>>()
        };
        let first = run(7);
        assert_eq!(first, run(7), "the same seed, the same damage");
        let changed = first.iter().filter(|v| **v != doc).count();
        assert!(changed > 25, "only {changed} of 50 documents changed");
    }
}
