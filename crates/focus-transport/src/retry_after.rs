//! Reading how long a server asks us to wait: `Retry-After` (seconds or an
//! HTTP date, RFC 9110 §10.2.3) and the millisecond variant `retry-after-ms`
//! that OpenAI-style APIs send.

use focus_core::civil_date::days_from_civil;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The delay the response headers ask for: `retry-after-ms` when present and
/// valid (it is more precise), else `Retry-After`. `None` when neither is usable.
pub fn retry_after_from_headers(headers: &[(String, String)]) -> Option<Duration> {
    let find = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    };
    if let Some(ms) = find("retry-after-ms").and_then(parse_non_negative) {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    find("retry-after").and_then(|v| parse_retry_after(v, SystemTime::now()))
}

/// Parses a `Retry-After` value: a number of seconds (a fraction is accepted, as
/// some servers send one) or an HTTP date, which is turned into the time left
/// from `now` (zero if it is already past).
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    if let Some(seconds) = parse_non_negative(value) {
        return Some(Duration::from_secs_f64(seconds));
    }
    let at = parse_http_date(value.trim())?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// A finite, non-negative decimal number of reasonable size (at most a day, so a
/// broken header cannot park a client for years).
fn parse_non_negative(value: &str) -> Option<f64> {
    let value = value.trim();
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let n: f64 = value.parse().ok()?;
    (n.is_finite() && n >= 0.0).then_some(n.min(86_400.0))
}

/// Parses the IMF-fixdate form `Sun, 06 Nov 1994 08:49:37 GMT` (the only form
/// senders may generate; the obsolete forms are not accepted).
fn parse_http_date(text: &str) -> Option<SystemTime> {
    let (_weekday, rest) = text.split_once(", ")?;
    let parts: Vec<&str> = rest.split(' ').collect();
    let [day, month, year, time, "GMT"] = parts[..] else {
        return None;
    };
    let day: u32 = day.parse().ok()?;
    let month = 1 + [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .iter()
    .position(|m| *m == month)? as u32;
    // Four digits, as IMF-fixdate says: a longer year from a broken server would
    // overflow the day arithmetic below.
    if year.len() != 4 {
        return None;
    }
    let year: i64 = year.parse().ok()?;
    let clock: Vec<u64> = time
        .split(':')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let [hour, minute, second] = clock[..] else {
        return None;
    };
    if !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + (hour * 3600 + minute * 60 + second) as i64;
    u64::try_from(seconds)
        .ok()
        .map(|s| UNIX_EPOCH + Duration::from_secs(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(name: &str, value: &str) -> Vec<(String, String)> {
        vec![(name.to_string(), value.to_string())]
    }

    #[test]
    fn seconds_and_fractions() {
        let now = SystemTime::now();
        assert_eq!(parse_retry_after("7", now), Some(Duration::from_secs(7)));
        assert_eq!(
            parse_retry_after(" 1.5 ", now),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(parse_retry_after("-3", now), None);
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("", now), None);
        assert_eq!(
            parse_retry_after("99999999999", now),
            Some(Duration::from_secs(86_400))
        );
    }

    #[test]
    fn http_dates() {
        let date = "Sun, 06 Nov 1994 08:49:37 GMT";
        assert_eq!(
            parse_http_date(date),
            Some(UNIX_EPOCH + Duration::from_secs(784_111_777))
        );
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777 - 30);
        assert_eq!(parse_retry_after(date, now), Some(Duration::from_secs(30)));
        let later = UNIX_EPOCH + Duration::from_secs(784_111_777 + 30);
        assert_eq!(parse_retry_after(date, later), Some(Duration::ZERO));
        assert_eq!(parse_http_date("Sun, 06 Foo 1994 08:49:37 GMT"), None);
        assert_eq!(parse_http_date("Sun, 06 Nov 1994 08:49:37 PST"), None);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    }

    #[test]
    fn absurd_years_are_rejected_not_overflowed() {
        for date in [
            "Sun, 06 Nov 99999999999999 08:49:37 GMT",
            "Sun, 06 Jan -9223372036854775808 08:49:37 GMT",
            "Sun, 06 Nov 9223372036854775807 08:49:37 GMT",
        ] {
            assert_eq!(parse_http_date(date), None, "{date}");
            assert_eq!(parse_retry_after(date, SystemTime::now()), None);
        }
    }

    #[test]
    fn header_preference() {
        let both = vec![
            ("Retry-After".to_string(), "9".to_string()),
            ("retry-after-ms".to_string(), "250".to_string()),
        ];
        assert_eq!(
            retry_after_from_headers(&both),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            retry_after_from_headers(&header("RETRY-AFTER", "2")),
            Some(Duration::from_secs(2))
        );
        assert_eq!(retry_after_from_headers(&header("x", "2")), None);
    }
}
