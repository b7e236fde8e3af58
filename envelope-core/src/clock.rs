//! Time: the [`Clock`] seam and the [`Timestamp`] wire type.
//!
//! Everything in the core asks a [`Clock`] for the time, never the system directly, so tests can
//! drive expiry, reminders, rate-limit windows and link lifetimes without sleeping.

use std::fmt;
use std::sync::Mutex;

use chrono::{DateTime, Duration, SecondsFormat, TimeZone, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A source of the current time.
///
/// Contract: `now` is cheap, never fails, and is monotonic enough for ordering within one process
/// (a clock that jumps backwards may make expiry and rate-limit windows late, never early).
pub trait Clock: Send + Sync + 'static {
    /// The current time, truncated to milliseconds like every [`Timestamp`].
    fn now(&self) -> Timestamp;
}

/// The wall clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp::from(Utc::now())
    }
}

/// A clock that only moves when told to; for tests and simulations.
#[derive(Debug)]
pub struct ManualClock(Mutex<Timestamp>);

impl ManualClock {
    /// A clock that reads `start` until it is advanced or set.
    pub fn new(start: Timestamp) -> Self {
        ManualClock(Mutex::new(start))
    }
    /// Moves the clock forward.
    pub fn advance(&self, by: Duration) {
        let mut t = self.0.lock().unwrap_or_else(|e| e.into_inner());
        *t = *t + by;
    }
    /// Moves the clock to `to`, forward or backward.
    pub fn set(&self, to: Timestamp) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = to;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        *self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A UTC instant with millisecond precision; serializes as ISO 8601 with milliseconds and `Z`
/// (`2026-11-21T13:30:15.123Z`), the format of every timestamp on the wire.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(DateTime<Utc>);

impl Timestamp {
    /// Milliseconds since the Unix epoch.
    pub fn from_millis(ms: i64) -> Option<Timestamp> {
        Utc.timestamp_millis_opt(ms).single().map(Timestamp)
    }
    /// Milliseconds since the Unix epoch; the inverse of [`Timestamp::from_millis`].
    pub fn millis(self) -> i64 {
        self.0.timestamp_millis()
    }
    /// Whole seconds since the Unix epoch (the fraction is dropped).
    pub fn unix_seconds(self) -> i64 {
        self.0.timestamp()
    }
    /// The instant as a `chrono` UTC date and time, for calendar arithmetic and formatting.
    pub fn datetime(self) -> DateTime<Utc> {
        self.0
    }
    /// The wire form.
    pub fn to_rfc3339(self) -> String {
        self.0.to_rfc3339_opts(SecondsFormat::Millis, true)
    }
    /// Parses an RFC 3339 timestamp with any offset, converted to UTC and truncated to
    /// milliseconds; `None` when `s` is not RFC 3339.
    pub fn parse(s: &str) -> Option<Timestamp> {
        DateTime::parse_from_rfc3339(s)
            .ok()
            .map(|d| Timestamp::from(d.with_timezone(&Utc)))
    }
}

impl From<DateTime<Utc>> for Timestamp {
    fn from(d: DateTime<Utc>) -> Self {
        // Truncate to milliseconds so that what is stored equals what is shown.
        Timestamp(
            Utc.timestamp_millis_opt(d.timestamp_millis())
                .single()
                .unwrap_or(d),
        )
    }
}

impl std::ops::Add<Duration> for Timestamp {
    type Output = Timestamp;
    fn add(self, rhs: Duration) -> Timestamp {
        Timestamp(self.0 + rhs)
    }
}

impl std::ops::Sub<Duration> for Timestamp {
    type Output = Timestamp;
    fn sub(self, rhs: Duration) -> Timestamp {
        Timestamp(self.0 - rhs)
    }
}

impl std::ops::Sub for Timestamp {
    type Output = Duration;
    fn sub(self, rhs: Timestamp) -> Duration {
        self.0 - rhs.0
    }
}

impl fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_rfc3339())
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_rfc3339())
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_rfc3339())
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Rfc3339;
        impl serde::de::Visitor<'_> for Rfc3339 {
            type Value = Timestamp;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an RFC 3339 timestamp")
            }
            // Borrowed when the input allows: no String per timestamp.
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Timestamp, E> {
                Timestamp::parse(s).ok_or_else(|| E::custom("expected an RFC 3339 timestamp"))
            }
        }
        d.deserialize_str(Rfc3339)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_format_has_milliseconds_and_z() {
        let t = Timestamp::from_millis(1_700_000_000_123).unwrap();
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            "\"2023-11-14T22:13:20.123Z\""
        );
        let zero = Timestamp::from_millis(1_700_000_000_000).unwrap();
        assert_eq!(zero.to_rfc3339(), "2023-11-14T22:13:20.000Z");
        let back: Timestamp = serde_json::from_str("\"2023-11-14T22:13:20.123Z\"").unwrap();
        assert_eq!(back, t);
    }

    #[test]
    fn sub_millisecond_precision_is_dropped() {
        let d = Utc.timestamp_nanos(1_700_000_000_123_456_789);
        assert_eq!(Timestamp::from(d).millis(), 1_700_000_000_123);
    }

    #[test]
    fn manual_clock_moves_only_when_told() {
        let c = ManualClock::new(Timestamp::from_millis(0).unwrap());
        assert_eq!(c.now().millis(), 0);
        c.advance(Duration::seconds(61));
        assert_eq!(c.now().millis(), 61_000);
    }
}
