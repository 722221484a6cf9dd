//! UTC timestamps as the attempt log prints them: `YYYY-MM-DD HH:MM:SS.mmm`,
//! the form SQLite's date functions read (`strftime('%H:%M', created_at)`,
//! `datetime(created_at, '-1 hour')`) and that sorts as text in time order.

/// The civil date of `days` after 1970-01-01 (proleptic Gregorian).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// `ms` Unix milliseconds as `YYYY-MM-DD HH:MM:SS.mmm` (UTC).
pub fn utc_text(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let rest = ms.rem_euclid(86_400_000);
    let (y, mo, d) = civil_from_days(days);
    let (h, mi, s, milli) = (
        rest / 3_600_000,
        rest / 60_000 % 60,
        rest / 1000 % 60,
        rest % 1000,
    );
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}.{milli:03}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_what_the_language_reads() {
        let back = |text: &str| squall_lang::date::parse_date(text).map(utc_text);
        assert_eq!(
            back("2026-01-14T09:00:02Z").as_deref(),
            Some("2026-01-14 09:00:02.000")
        );
        assert_eq!(
            back("Wed, 14 Jan 2026 09:00:02 GMT").as_deref(),
            Some("2026-01-14 09:00:02.000")
        );
        assert_eq!(
            back("2024-02-29T23:59:59.250Z").as_deref(),
            Some("2024-02-29 23:59:59.250")
        );
        assert_eq!(utc_text(0), "1970-01-01 00:00:00.000");
        assert_eq!(utc_text(86_400_000 * 365 + 1), "1971-01-01 00:00:00.001");
        assert_eq!(utc_text(-1), "1969-12-31 23:59:59.999");
    }
}
