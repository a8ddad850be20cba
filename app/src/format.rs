//! Small display helpers shared by the pages.

/// A span of time as people read it: `42 s`, `3 min 5 s`, `2 h 10 min`.
pub fn duration(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}

/// `YYYY-MM-DD HH:MM:SS UTC` for an epoch time in seconds.
pub fn timestamp(epoch: f64) -> String {
    let secs = epoch.floor() as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Epoch seconds of 00:00:00 UTC on a `YYYY-MM-DD` date, or None if it is not one.
#[cfg(any(feature = "ssr", test))] // the server reads /repls dates
pub fn date_to_epoch(date: &str) -> Option<f64> {
    let mut parts = date.trim().splitn(3, '-');
    let y: i64 = parts.next()?.parse().ok()?;
    let m: i64 = parts.next()?.parse().ok()?;
    let d: i64 = parts.next()?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm), the inverse of civil_from_days.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(((era * 146_097 + doe - 719_468) * 86_400) as f64)
}

/// Days since 1970-01-01 to a (year, month, day) in the proleptic Gregorian calendar.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// A count with thousands separated by commas: 10000 → "10,000".
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_are_grouped_in_thousands() {
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(999), "999");
        assert_eq!(super::thousands(1_000), "1,000");
        assert_eq!(super::thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn formats_epoch_as_utc() {
        assert_eq!(super::timestamp(0.0), "1970-01-01 00:00:00 UTC");
        assert_eq!(super::timestamp(1_795_331_833.75), "2026-11-22 07:17:13 UTC");
    }

    #[test]
    fn dates_read_as_utc_midnight() {
        assert_eq!(super::date_to_epoch("1970-01-01"), Some(0.0));
        assert_eq!(super::date_to_epoch("2026-11-22"), Some(1_795_305_600.0));
        assert_eq!(super::timestamp(super::date_to_epoch("2024-02-29").unwrap()), "2024-02-29 00:00:00 UTC");
        assert_eq!(super::date_to_epoch("2026-13-01"), None);
        assert_eq!(super::date_to_epoch("yesterday"), None);
    }
}
