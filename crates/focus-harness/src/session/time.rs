//! Timestamps as session files spell them: ISO-8601 in UTC with milliseconds,
//! `2026-03-15T12:00:00.000Z`, which is what JavaScript's `Date.toISOString()`
//! prints. std has no calendar: the day arithmetic is `focus_core::civil_date`.

use focus_core::civil_date::{civil_from_days, days_from_civil};
use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch, now (0 if the clock is before 1970).
pub fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Formats milliseconds since the epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn format_iso8601(millis: i64) -> String {
    let days = millis.div_euclid(86_400_000);
    let ms_of_day = millis.rem_euclid(86_400_000);
    let (year, month, day) = civil_from_days(days);
    let secs = ms_of_day / 1000;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60,
        ms_of_day % 1000
    )
}

/// The current time as an ISO-8601 string.
pub fn now_iso8601() -> String {
    format_iso8601(now_millis())
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.fff…](Z|±HH:MM)` into milliseconds since the epoch.
/// Returns `None` for anything else; callers fall back to 0 or the file's mtime.
pub fn parse_iso8601(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let num = |from: usize, to: usize| -> Option<i64> {
        let s = text.get(from..to)?;
        if !s.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    };
    let (year, month, day) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
    let (hour, minute, second) = (num(11, 13)?, num(14, 16)?, num(17, 19)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 {
        return None;
    }
    if second > 60 {
        return None;
    }
    let mut rest = &text[19..];
    let mut millis = 0;
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        // Only the first three digits matter; the rest are below a millisecond.
        let mut padded = fraction[..digits.min(3)].to_string();
        while padded.len() < 3 {
            padded.push('0');
        }
        millis = padded.parse::<i64>().ok()?;
        rest = &fraction[digits..];
    }
    let offset_minutes = match rest {
        "Z" | "z" => 0,
        _ if rest.len() == 6 && (rest.starts_with('+') || rest.starts_with('-')) => {
            let sign = if rest.starts_with('-') { -1 } else { 1 };
            let hours: i64 = rest.get(1..3)?.parse().ok()?;
            let minutes: i64 = rest.get(4..6)?.parse().ok()?;
            sign * (hours * 60 + minutes)
        }
        _ => return None,
    };
    let days = days_from_civil(year, month as u32, day as u32);
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
    Some(seconds * 1000 + millis)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(format_iso8601(0), "1970-01-01T00:00:00.000Z");
        // A timestamp from a real pi session: message 1796222846157 ms.
        assert_eq!(
            format_iso8601(1_796_222_846_157),
            "2026-12-02T14:47:26.157Z"
        );
        assert_eq!(format_iso8601(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(format_iso8601(-1), "1969-12-31T23:59:59.999Z");
    }

    #[test]
    fn parse_inverts_format_and_accepts_offsets() {
        for ms in [
            0,
            1_796_222_846_157,
            951_782_400_000,
            4_102_444_800_123,
            -86_400_000,
        ] {
            assert_eq!(parse_iso8601(&format_iso8601(ms)), Some(ms));
        }
        assert_eq!(parse_iso8601("1970-01-01T01:00:00+01:00"), Some(0));
        assert_eq!(parse_iso8601("1970-01-01T00:00:00.5Z"), Some(500));
        assert_eq!(parse_iso8601("1970-01-01T00:00:00.123456Z"), Some(123));
        assert_eq!(parse_iso8601("yesterday"), None);
        assert_eq!(parse_iso8601("1970-13-01T00:00:00Z"), None);
        assert_eq!(parse_iso8601("1970-01-01T00:00:00"), None);
    }
}
