//! Durations as scenario files write them: `250ms`, `2s`, `1m`.

use std::time::Duration;

/// Parse `<digits><unit>` with unit `ms`, `s` or `m`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let digits_end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(digits_end);
    let bad = || format!("invalid duration {text:?} (write it like 250ms, 2s or 1m)");
    if digits.is_empty() {
        return Err(bad());
    }
    let n: u64 = digits.parse().map_err(|_| bad())?;
    match unit {
        "ms" => Ok(Duration::from_millis(n)),
        "s" => Ok(Duration::from_secs(n)),
        "m" => n.checked_mul(60).map(Duration::from_secs).ok_or_else(bad),
        "" => Err(format!(
            "duration {text:?} has no unit (write it like 250ms, 2s or 1m)"
        )),
        _ => Err(bad()),
    }
}

/// Format a duration the way scenario files write it.
pub fn format_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms % 60_000 == 0 && ms > 0 {
        format!("{}m", ms / 60_000)
    } else if ms % 1000 == 0 && ms > 0 {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("1m"), Ok(Duration::from_secs(60)));
        for bad in ["", "2", "s", "2 s", "1.5s", "2h", "-1s", "2sec"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert_eq!(format_duration(Duration::from_millis(300)), "300ms");
        assert_eq!(format_duration(Duration::from_secs(2)), "2s");
    }
}
