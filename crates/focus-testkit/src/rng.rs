//! [`Rng`]: a small seeded pseudo-random generator for property tests, fuzzers and
//! benchmark data (the standard library has none, and nothing here may come from a
//! registry).
//!
//! It is xorshift64* (Marsaglia's xorshift with a multiplying output step, as
//! Vigna describes it): 64 bits of state, fast, and good enough to pick test
//! inputs. It is not for anything secret. The same seed always gives the same
//! sequence, so a failing seeded test can be replayed.

/// A seeded xorshift64* generator.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator started from `seed` (a zero seed, which xorshift cannot leave,
    /// is replaced by a fixed odd constant).
    pub fn new(seed: u64) -> Rng {
        Rng(if seed == 0 {
            0x9E37_79B9_7F4A_7C15
        } else {
            seed
        })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// [`Rng::below`] for `u64` bounds.
    pub fn below_u64(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// `true` about `percent` times in a hundred.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below_u64(100) < percent
    }

    /// One of `items`, each as likely; panics on an empty slice, which is a bug in
    /// the caller.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_one_sequence_and_bounds_hold() {
        let first: Vec<u64> = {
            let mut rng = Rng::new(7);
            (0..5).map(|_| rng.next_u64()).collect()
        };
        let mut again = Rng::new(7);
        assert_eq!(first, (0..5).map(|_| again.next_u64()).collect::<Vec<_>>());
        assert_ne!(first[0], Rng::new(8).next_u64());
        let mut rng = Rng::new(0);
        assert_ne!(rng.next_u64(), 0, "a zero seed still moves");
        let mut seen = [false; 6];
        for _ in 0..600 {
            let n = rng.below(6);
            seen[n] = true;
            assert_eq!(rng.below(0), 0);
            assert!(rng.below_u64(3) < 3);
        }
        assert!(seen.iter().all(|&s| s), "every value of 0..6 comes up");
        assert_eq!(*rng.pick(&["only"]), "only");
        assert!((0..100).filter(|_| rng.chance(50)).count() > 20);
        assert!(!(0..100).any(|_| rng.chance(0)));
    }
}
