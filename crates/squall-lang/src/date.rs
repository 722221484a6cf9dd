//! Dates and status codes as written in scenario files.
//!
//! Dates appear in `epoch "..."` and in `retry_after "..."`; squall reads
//! the HTTP date format (IMF-fixdate, `Wed, 14 Jan 2026 09:00:02 GMT`) and
//! RFC 3339 in UTC (`2026-01-14T09:00:02Z`). Both become Unix milliseconds.

/// Days from 1970-01-01 to the given civil date (proleptic Gregorian).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ => {
            if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 {
                29
            } else {
                28
            }
        }
    }
}

fn to_ms(y: i64, mo: i64, d: i64, h: i64, mi: i64, s: i64) -> Option<i64> {
    if !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    Some(((days_from_civil(y, mo, d) * 24 + h) * 60 + mi) * 60_000 + s * 1000)
}

fn num(s: &str) -> Option<i64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Parses an HTTP date or an RFC 3339 UTC date into Unix milliseconds.
pub fn parse_date(text: &str) -> Option<i64> {
    let t = text.trim();
    if let Some(ms) = parse_rfc3339(t) {
        return Some(ms);
    }
    // IMF-fixdate: `Wed, 14 Jan 2026 09:00:02 GMT`
    let rest = t.split_once(", ").map_or(t, |(_, r)| r);
    let parts: Vec<&str> = rest.split_whitespace().collect();
    if parts.len() != 5 || parts[4] != "GMT" {
        return None;
    }
    let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let mo = months.iter().position(|m| *m == parts[1])? as i64 + 1;
    let d = num(parts[0])?;
    let y = num(parts[2])?;
    let hms: Vec<&str> = parts[3].split(':').collect();
    if hms.len() != 3 {
        return None;
    }
    to_ms(y, mo, d, num(hms[0])?, num(hms[1])?, num(hms[2])?)
}

fn parse_rfc3339(t: &str) -> Option<i64> {
    let t = t.strip_suffix('Z').or_else(|| t.strip_suffix("+00:00"))?;
    let (date, time) = t.split_once('T')?;
    let d: Vec<&str> = date.split('-').collect();
    let h: Vec<&str> = time.split(':').collect();
    if d.len() != 3 || h.len() != 3 {
        return None;
    }
    let (sec, frac) = h[2].split_once('.').unwrap_or((h[2], ""));
    let base = to_ms(
        num(d[0])?,
        num(d[1])?,
        num(d[2])?,
        num(h[0])?,
        num(h[1])?,
        num(sec)?,
    )?;
    let ms = if frac.is_empty() {
        0
    } else {
        let digits: String = frac.chars().chain(std::iter::repeat('0')).take(3).collect();
        num(&digits)?
    };
    Some(base + ms)
}

/// Parses a status code: decimal (`503`) or hexadecimal (`0x58`).
pub fn parse_status(code: &str) -> Option<u32> {
    match code.strip_prefix("0x") {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => code.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        // 2026-01-14T09:00:02Z: 20467 days after 1970-01-01.
        let want = (20_467 * 86_400 + 9 * 3600 + 2) * 1000;
        assert_eq!(parse_date("2026-01-14T09:00:02Z"), Some(want));
        assert_eq!(parse_date("Wed, 14 Jan 2026 09:00:02 GMT"), Some(want));
        assert_eq!(parse_date("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            parse_date("2024-02-29T00:00:00.250Z"),
            Some((19_782 * 86_400) * 1000 + 250)
        );
        assert_eq!(parse_date("2023-02-29T00:00:00Z"), None);
        assert_eq!(parse_date("tomorrow"), None);
        assert_eq!(parse_date("Wed, 14 Foo 2026 09:00:02 GMT"), None);
    }

    #[test]
    fn statuses() {
        assert_eq!(parse_status("503"), Some(503));
        assert_eq!(parse_status("0x58"), Some(88));
        assert_eq!(parse_status("0xZZ"), None);
    }
}
