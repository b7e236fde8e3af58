//! Time: the [`Clock`] seam and the [`Timestamp`] wire type.
//!
//! Everything in the core asks a [`Clock`] for the time, never the system directly, so tests can
//! drive expiry, reminders, rate-limit windows and link lifetimes without sleeping.

use std::fmt;
use std::sync::Mutex;

use chrono::{DateTime, Datelike, Duration, NaiveDate, SecondsFormat, TimeZone, Timelike, Utc};
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
        match self.wire_form() {
            Some(b) => b.iter().map(|&c| char::from(c)).collect(),
            None => self.0.to_rfc3339_opts(SecondsFormat::Millis, true),
        }
    }
    /// Parses an RFC 3339 timestamp with any offset, converted to UTC and truncated to
    /// milliseconds; `None` when `s` is not RFC 3339.
    pub fn parse(s: &str) -> Option<Timestamp> {
        if let Some(t) = Timestamp::parse_wire_form(s.as_bytes()) {
            return Some(t);
        }
        DateTime::parse_from_rfc3339(s)
            .ok()
            .map(|d| Timestamp::from(d.with_timezone(&Utc)))
    }

    /// The wire form written digit by digit (`YYYY-MM-DDTHH:MM:SS.mmmZ`), for the years 0 to
    /// 9999 outside a leap second; `None` otherwise, for chrono to write.
    ///
    /// Every stored record and every answer carries several timestamps, and chrono's general
    /// formatter and parser (kept for every other form) cost measurably more on them
    /// (`benches/records.rs`; figures in docs/PERFORMANCE.md). The calendar stays chrono's:
    /// this only moves digits.
    fn wire_form(self) -> Option<[u8; 24]> {
        let d = self.0;
        let (year, nanos) = (d.year(), d.nanosecond());
        if !(0..=9999).contains(&year) || nanos >= 1_000_000_000 {
            return None;
        }
        let mut b = *b"0000-00-00T00:00:00.000Z";
        let mut put = |at: usize, width: usize, mut v: u32| {
            for i in (at..at + width).rev() {
                b[i] = b'0' + (v % 10) as u8;
                v /= 10;
            }
        };
        put(0, 4, year as u32);
        put(5, 2, d.month());
        put(8, 2, d.day());
        put(11, 2, d.hour());
        put(14, 2, d.minute());
        put(17, 2, d.second());
        put(20, 3, nanos / 1_000_000);
        Some(b)
    }

    /// Reads exactly the wire form (what [`Timestamp::wire_form`] writes); `None` for anything
    /// else, which [`Timestamp::parse`] then hands to chrono's RFC 3339 parser. Dates that do
    /// not exist (a 30 February) are `None` here and refused there.
    fn parse_wire_form(s: &[u8]) -> Option<Timestamp> {
        const SHAPE: &[u8; 24] = b"dddd-dd-ddTdd:dd:dd.dddZ";
        if s.len() != SHAPE.len() {
            return None;
        }
        for (&c, &want) in s.iter().zip(SHAPE) {
            let fits = match want {
                b'd' => c.is_ascii_digit(),
                _ => c == want,
            };
            if !fits {
                return None;
            }
        }
        let num = |at: usize, width: usize| {
            s[at..at + width]
                .iter()
                .fold(0u32, |v, c| v * 10 + u32::from(c - b'0'))
        };
        let date = NaiveDate::from_ymd_opt(num(0, 4) as i32, num(5, 2), num(8, 2))?;
        let time = date.and_hms_milli_opt(num(11, 2), num(14, 2), num(17, 2), num(20, 3))?;
        Some(Timestamp(time.and_utc()))
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
        match self.wire_form() {
            // No `String` per timestamp: the digits are on the stack.
            Some(b) => s.serialize_str(std::str::from_utf8(&b).map_err(serde::ser::Error::custom)?),
            None => s.serialize_str(&self.to_rfc3339()),
        }
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

    /// chrono's own formatter and parser: what the wire form's fast paths must equal.
    fn by_chrono(t: Timestamp) -> String {
        t.0.to_rfc3339_opts(SecondsFormat::Millis, true)
    }
    fn parsed_by_chrono(s: &str) -> Option<Timestamp> {
        DateTime::parse_from_rfc3339(s)
            .ok()
            .map(|d| Timestamp::from(d.with_timezone(&Utc)))
    }

    proptest::proptest! {
        /// From before year 0 to after year 9999, so that both fallbacks run too.
        #[test]
        fn wire_form_is_chronos(ms in -62_200_000_000_000i64..253_500_000_000_000i64) {
            let t = Timestamp::from_millis(ms).unwrap();
            let s = t.to_rfc3339();
            proptest::prop_assert_eq!(&s, &by_chrono(t));
            proptest::prop_assert_eq!(serde_json::to_string(&t).unwrap(), format!("\"{s}\""));
            // Read back as chrono reads it. Outside the years 0 to 9999 chrono writes a sign and
            // more digits than RFC 3339 allows and reads none back: the same `None` both ways.
            let covered = (0..=9999).contains(&t.0.year());
            proptest::prop_assert_eq!(Timestamp::parse(&s), parsed_by_chrono(&s));
            if covered {
                proptest::prop_assert_eq!(Timestamp::parse(&s), Some(t));
            }
            // The fast paths, not only chrono's, ran for the years they cover.
            proptest::prop_assert_eq!(t.wire_form().is_some(), covered);
            proptest::prop_assert_eq!(Timestamp::parse_wire_form(s.as_bytes()).is_some(), covered);
        }

        /// Any digits in the wire form's shape, real dates or not, read as chrono reads them.
        #[test]
        fn wire_shaped_strings_read_as_chrono_reads_them(
            y in 0u32..10000, mo in 0u32..14, d in 0u32..33,
            h in 0u32..26, mi in 0u32..62, sec in 0u32..62, milli in 0u32..1000,
        ) {
            let s = format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{sec:02}.{milli:03}Z");
            proptest::prop_assert_eq!(Timestamp::parse(&s), parsed_by_chrono(&s), "{}", s);
        }
    }

    /// The years the property above reaches only by chance (about 1 run in 13 drew one):
    /// written by chrono, and read back exactly as chrono reads them.
    #[test]
    fn years_outside_the_wire_form_are_chronos() {
        for ms in [
            253_402_300_800_000i64, // 10000-01-01T00:00:00.000Z
            253_450_000_000_000,
            -62_167_219_200_001, // the last millisecond of year -1
        ] {
            let t = Timestamp::from_millis(ms).unwrap();
            let s = t.to_rfc3339();
            assert_eq!(s, by_chrono(t));
            assert!(t.wire_form().is_none(), "{s}");
            assert_eq!(Timestamp::parse(&s), parsed_by_chrono(&s), "{s}");
            assert_eq!(serde_json::to_string(&t).unwrap(), format!("\"{s}\""));
        }
    }

    #[test]
    fn wire_form_edges_read_as_chrono_reads_them() {
        for s in [
            "2024-02-29T23:59:59.999Z",
            "2023-02-29T00:00:00.000Z", // no such day
            "2026-04-31T00:00:00.000Z",
            "2016-12-31T23:59:60.000Z", // a leap second: chrono's path
            "2026-11-27T24:00:00.000Z",
            "0000-01-01T00:00:00.000Z",
            "9999-12-31T23:59:59.999Z",
            "2026-11-27T13:01:38.123z",
            "2026-11-27t13:01:38.123Z",
            "2026-11-27T13:01:38.123+01:00",
            "2026-11-27T13:01:38Z",
            "2026-11-27T13:01:38.1234Z",
            "2026-11-27T13:01:38.12Z",
            "+2026-11-27T13:01:38.12Z",
            "2026-1a-27T13:01:38.123Z",
            "",
        ] {
            assert_eq!(Timestamp::parse(s), parsed_by_chrono(s), "{s}");
        }
        // Sub-millisecond and leap-second instants (made by arithmetic) print as chrono prints them.
        let t = Timestamp::from_millis(1_700_000_000_123).unwrap() + Duration::nanoseconds(999_999);
        assert_eq!(t.to_rfc3339(), by_chrono(t));
        assert_eq!(t.to_rfc3339(), "2023-11-14T22:13:20.123Z");
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
