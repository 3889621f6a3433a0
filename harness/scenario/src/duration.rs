//! Durations as scenario files write them: `250ms`, `2s`, `1m`.

use std::time::Duration;

/// A unit and what `<n><unit>` means (`None`: too long).
type Unit = (&'static str, fn(u64) -> Option<Duration>);

/// The units a duration may have.
pub(crate) const UNITS: [Unit; 3] = [
    ("ms", |n| Some(Duration::from_millis(n))),
    ("s", |n| Some(Duration::from_secs(n))),
    ("m", |n| n.checked_mul(60).map(Duration::from_secs)),
];

/// Parse `<digits><unit>` with a unit of [`UNITS`]: `ms`, `s` or `m`.
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
    if unit.is_empty() {
        return Err(format!(
            "duration {text:?} has no unit (write it like 250ms, 2s or 1m)"
        ));
    }
    let (_, make) = UNITS.iter().find(|(u, _)| *u == unit).ok_or_else(bad)?;
    make(n).ok_or_else(bad)
}

/// The duration syntax as a regular expression (for the file schema).
pub(crate) fn pattern() -> String {
    let units: Vec<&str> = UNITS.iter().map(|(u, _)| *u).collect();
    format!("^[0-9]+({})$", units.join("|"))
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
        assert_eq!(pattern(), "^[0-9]+(ms|s|m)$");
    }
}
