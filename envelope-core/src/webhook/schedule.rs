//! The retry schedule of webhook deliveries, as data (decisions.md: `1m,5m,30m,2h,6h,12h,24h,24h`
//! by default; `--webhook-retry-schedule 1s,2s,5s` shrinks it for tests and development).

use std::fmt;
use std::str::FromStr;

use chrono::Duration;

/// Delays between attempts: after the first attempt fails, retry after `delays[0]`, and so on;
/// when the last delay has been used, the delivery is `failed`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetrySchedule {
    delays: Vec<Duration>,
}

impl Default for RetrySchedule {
    fn default() -> Self {
        "1m,5m,30m,2h,6h,12h,24h,24h"
            .parse()
            .expect("the default schedule parses")
    }
}

impl RetrySchedule {
    /// A schedule with these delays between attempts; an empty list means a single attempt and no
    /// retry.
    pub fn new(delays: Vec<Duration>) -> Self {
        RetrySchedule { delays }
    }

    /// The delay before attempt number `attempts + 1`, after `attempts` failed attempts
    /// (counting from 1); `None` when no retry is left.
    pub fn next_delay(&self, attempts: u32) -> Option<Duration> {
        let i = usize::try_from(attempts).ok()?.checked_sub(1)?;
        self.delays.get(i).copied()
    }

    /// Total attempts a delivery gets: the first plus one per delay.
    pub fn max_attempts(&self) -> u32 {
        self.delays.len() as u32 + 1
    }
}

/// Why a schedule did not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid retry schedule '{0}': expected comma-separated durations like 1m,5m,30m,2h (units s, m, h, d)"
)]
pub struct ScheduleError(String);

impl FromStr for RetrySchedule {
    type Err = ScheduleError;
    fn from_str(s: &str) -> Result<Self, ScheduleError> {
        let err = || ScheduleError(s.chars().take(100).collect());
        let mut delays = Vec::new();
        for part in s.split(',').map(str::trim) {
            if part.is_empty() {
                return Err(err());
            }
            let (num, unit) = part.split_at(part.len() - 1);
            let n: i64 = num.parse().map_err(|_| err())?;
            if !(1..=10_000).contains(&n) {
                return Err(err());
            }
            delays.push(match unit {
                "s" => Duration::seconds(n),
                "m" => Duration::minutes(n),
                "h" => Duration::hours(n),
                "d" => Duration::days(n),
                _ => return Err(err()),
            });
        }
        if delays.len() > 50 {
            return Err(err());
        }
        Ok(RetrySchedule { delays })
    }
}

impl fmt::Display for RetrySchedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .delays
            .iter()
            .map(|d| {
                let s = d.num_seconds();
                if s % 86_400 == 0 {
                    format!("{}d", s / 86_400)
                } else if s % 3600 == 0 {
                    format!("{}h", s / 3600)
                } else if s % 60 == 0 {
                    format!("{}m", s / 60)
                } else {
                    format!("{s}s")
                }
            })
            .collect();
        f.write_str(&parts.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_the_spec_schedule() {
        let s = RetrySchedule::default();
        assert_eq!(s.max_attempts(), 9);
        assert_eq!(s.next_delay(1), Some(Duration::minutes(1)));
        assert_eq!(s.next_delay(3), Some(Duration::minutes(30)));
        assert_eq!(s.next_delay(8), Some(Duration::hours(24)));
        assert_eq!(s.next_delay(9), None);
        assert_eq!(s.next_delay(0), None);
        assert_eq!(s.to_string(), "1m,5m,30m,2h,6h,12h,1d,1d");
    }

    #[test]
    fn parsing() {
        let s: RetrySchedule = "1s, 2s,5s".parse().unwrap();
        assert_eq!(s.max_attempts(), 4);
        for bad in ["", "1", "1x", "0s", "-1s", "1s,,2s", "m"] {
            assert!(bad.parse::<RetrySchedule>().is_err(), "{bad}");
        }
    }
}
