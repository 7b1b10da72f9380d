//! Durations as written in project files, and their canonical rendering.

use std::fmt;

/// A duration in milliseconds. Displays canonically: the largest unit among
/// d, h, m, s, ms that divides it (`3600s` → `1h`, `90m` stays `90m`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Duration(pub u64);

/// The longest duration a project file may write: under a million days,
/// the longest day-time interval Flink holds (six digits of days, as an
/// INTERVAL in SQL), and far inside the timestamp range, so that adding it
/// to any timestamp cannot overflow (docs/limits.md).
pub const MAX_DURATION: Duration = Duration(1_000_000 * 86_400_000 - 1);

const UNITS: [(&str, u64); 5] = [("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1_000), ("ms", 1)];

impl Duration {
    /// Parses `^[0-9]+(ms|s|m|h|d)$`.
    pub fn parse(s: &str) -> Option<Duration> {
        let digits_end = s.bytes().position(|b| !b.is_ascii_digit())?;
        if digits_end == 0 {
            return None;
        }
        let (n, unit) = s.split_at(digits_end);
        let factor = UNITS.iter().find(|(u, _)| *u == unit)?.1;
        n.parse::<u64>().ok()?.checked_mul(factor).map(Duration)
    }

    pub fn millis(self) -> u64 {
        self.0
    }

    /// The canonical (value, unit) pair.
    pub fn canonical_parts(self) -> (u64, &'static str) {
        if self.0 == 0 {
            return (0, "s");
        }
        for (unit, factor) in UNITS {
            if self.0 % factor == 0 {
                return (self.0 / factor, unit);
            }
        }
        unreachable!("ms divides everything")
    }
}

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (n, unit) = self.canonical_parts();
        write!(f, "{n}{unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_forms() {
        for (input, want) in [
            ("3600s", "1h"), ("60m", "1h"), ("24h", "1d"), ("48h", "2d"), ("120s", "2m"), ("1000ms", "1s"),
            ("300000ms", "5m"), ("5000ms", "5s"), ("90m", "90m"), ("1500ms", "1500ms"), ("61s", "61s"), ("0m", "0s"),
        ] {
            assert_eq!(Duration::parse(input).unwrap().to_string(), want, "{input}");
        }
        for bad in ["5 m", "5min", "1.5h", "-1s", "5", "1w", "5M", "", "m"] {
            assert_eq!(Duration::parse(bad), None, "{bad}");
        }
    }
}
