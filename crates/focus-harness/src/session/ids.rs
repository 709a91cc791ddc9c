//! Identifiers: 8-hex-character entry ids (pi's `randomUUID().slice(0, 8)`) and
//! UUIDv7-style session ids.
//!
//! std has no random number generator, but every `RandomState` is seeded from the
//! operating system's randomness; hashing the time and the process id
//! with one gives unpredictable 64-bit values without any crate (each new
//! `RandomState` has new keys, so no counter is kept for the whole process).

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

/// 64 random bits.
pub fn random_u64() -> u64 {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    hasher.write_u32(std::process::id());
    hasher.finish()
}

/// A fresh entry id: 8 lowercase hex characters.
pub fn short_id() -> String {
    format!("{:08x}", random_u64() as u32)
}

/// An entry id not in use according to `taken`. Like pi, gives up on short ids after
/// 100 collisions (a session would need tens of thousands of entries to get near
/// that) and falls back to a full UUID.
pub fn unique_short_id(taken: impl Fn(&str) -> bool) -> String {
    for _ in 0..100 {
        let id = short_id();
        if !taken(&id) {
            return id;
        }
    }
    session_uuid()
}

/// A UUIDv7-shaped id: 48 bits of Unix milliseconds, then random bits, so session
/// ids sort by creation time (pi switched to v7 for the same reason).
pub fn session_uuid() -> String {
    let millis = crate::session::time::now_millis().max(0) as u64 & 0xffff_ffff_ffff;
    let random_a = random_u64();
    let random_b = random_u64();
    let time_high = (millis >> 16) as u32;
    let time_low = (millis & 0xffff) as u16;
    let version_and_rand = 0x7000 | (random_a as u16 & 0x0fff);
    let variant_and_rand = 0x8000 | ((random_a >> 16) as u16 & 0x3fff);
    let node = random_b & 0xffff_ffff_ffff;
    format!(
        "{time_high:08x}-{time_low:04x}-{version_and_rand:04x}-{variant_and_rand:04x}-{node:012x}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn short_ids_are_eight_hex_chars_and_vary() {
        let ids: HashSet<String> = (0..1000).map(|_| short_id()).collect();
        assert!(ids.len() > 990, "too many collisions: {}", ids.len());
        assert!(ids
            .iter()
            .all(|id| id.len() == 8 && id.bytes().all(|b| b.is_ascii_hexdigit())));
    }

    #[test]
    fn collisions_are_avoided_and_uuid_has_v7_shape() {
        let first = short_id();
        let other = unique_short_id(|id| id == first);
        assert_ne!(other, first);
        // Everything taken: falls back to a full UUID.
        assert_eq!(unique_short_id(|_| true).len(), 36);
        let uuid = session_uuid();
        let parts: Vec<&str> = uuid.split('-').collect();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12]
        );
        assert!(parts[2].starts_with('7'));
        assert!(matches!(&parts[3][..1], "8" | "9" | "a" | "b"));
    }
}
