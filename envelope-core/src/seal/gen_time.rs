//! The `genTime` of an RFC 3161 `TSTInfo`, read by hand.
//!
//! RFC 3161 (2.4.2) lets a timestamp authority give fractions of a second
//! (`20261128030000.123Z`), and many do (certomancer by default, several public TSAs). `der`'s
//! `GeneralizedTime` is the X.509 profile (RFC 5280: `YYYYMMDDHHMMSSZ`, no fraction) and refuses
//! them, so `genTime` is decoded as its raw characters here and read on its own.
//!
//! What is read: `YYYYMMDDHHMMSS`, an optional `.` and one or more digits, then `Z` (DER, X.690
//! 11.7: the time is UTC, seconds are present, the decimal sign is a full stop). DER also forbids
//! trailing zeros in the fraction; a TSA that writes them (`.120Z`) still means one instant, so
//! they are accepted. Everything else is refused with the reason: local times and offsets
//! (`+0100`, which DER does not allow and RFC 3161 forbids), missing seconds, impossible dates,
//! non-digits. Digits past the ninth of the fraction are read and dropped (nanoseconds are kept).
//! Nothing here panics on any input.

use chrono::{DateTime, NaiveDate, Utc};
use der::{DecodeValue, EncodeValue, FixedTag, Header, Length, Reader, Tag, Writer};

/// Most characters of a `genTime` read: 14 digits, a point, a fraction far past nanoseconds and
/// `Z`. A longer one is refused before it is copied.
const MAX_LEN: usize = 64;

/// A `genTime` as the token holds it (so that a token decoded and encoded again keeps its bytes);
/// `GenTime::instant` reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct GenTime(Vec<u8>);

impl GenTime {
    /// The DER form of `at`, to the millisecond: `YYYYMMDDHHMMSS.fffZ` without the fraction's
    /// trailing zeros, and without a fraction on a whole second.
    pub(super) fn at(at: DateTime<Utc>) -> GenTime {
        let mut text = at.format("%Y%m%d%H%M%S").to_string();
        let millis = at.timestamp_subsec_millis();
        if millis > 0 {
            let fraction = format!("{millis:03}");
            text.push('.');
            text.push_str(fraction.trim_end_matches('0'));
        }
        text.push('Z');
        GenTime(text.into_bytes())
    }

    /// `text` as it would arrive (tests build tokens with any `genTime`, malformed ones too).
    #[cfg(test)]
    pub(super) fn raw(text: &str) -> GenTime {
        GenTime(text.as_bytes().to_vec())
    }

    /// The instant it names, or why it names none (a short phrase for an error message).
    pub(super) fn instant(&self) -> Result<DateTime<Utc>, &'static str> {
        parse(&self.0)
    }

    /// The characters received, for an error message: lossy, and at most `MAX_LEN` of them.
    pub(super) fn shown(&self) -> String {
        String::from_utf8_lossy(&self.0[..self.0.len().min(MAX_LEN)]).into_owned()
    }
}

fn parse(b: &[u8]) -> Result<DateTime<Utc>, &'static str> {
    if b.len() < 15 {
        return Err("too short: RFC 3161 times have the seconds and end in Z");
    }
    if b.len() > MAX_LEN {
        return Err("too long");
    }
    let (digits, rest) = b.split_at(14);
    if !digits.iter().all(u8::is_ascii_digit) {
        return Err("not YYYYMMDDHHMMSS");
    }
    let n = |at: usize, len: usize| {
        digits[at..at + len]
            .iter()
            .fold(0u32, |v, d| v * 10 + u32::from(d - b'0'))
    };
    let (year, month, day) = (n(0, 4), n(4, 2), n(6, 2));
    let (hour, minute, second) = (n(8, 2), n(10, 2), n(12, 2));
    let (fraction, zone) = match rest.split_first() {
        Some((b'.', tail)) => {
            let end = tail
                .iter()
                .position(|c| !c.is_ascii_digit())
                .unwrap_or(tail.len());
            if end == 0 {
                return Err("a decimal point without digits");
            }
            (&tail[..end], &tail[end..])
        }
        _ => (&[][..], rest),
    };
    match zone {
        b"Z" => {}
        [] => return Err("a local time: RFC 3161 times are UTC and end in Z"),
        [b'+' | b'-', ..] => return Err("a time zone offset: RFC 3161 times end in Z"),
        [b',', ..] => return Err("a comma for the decimal point"),
        _ => return Err("characters after the time"),
    }
    // The first nine digits of the fraction, as nanoseconds.
    let nanos = (0..9).fold(0u32, |v, i| {
        v * 10 + fraction.get(i).map_or(0, |d| u32::from(d - b'0'))
    });
    // A leap second (second 60) reads as the end of second 59, as chrono represents it.
    let (second, nanos) = if second == 60 {
        (59, nanos + 1_000_000_000)
    } else {
        (second, nanos)
    };
    let year = i32::try_from(year).map_err(|_| "an impossible year")?;
    NaiveDate::from_ymd_opt(year, month, day)
        .ok_or("an impossible date")?
        .and_hms_nano_opt(hour, minute, second, nanos)
        .map(|t| t.and_utc())
        .ok_or("an impossible time of day")
}

impl<'a> DecodeValue<'a> for GenTime {
    fn decode_value<R: Reader<'a>>(reader: &mut R, header: Header) -> der::Result<Self> {
        if usize::try_from(header.length)? > MAX_LEN {
            return Err(Self::TAG.value_error());
        }
        Ok(GenTime(reader.read_vec(header.length)?))
    }
}

impl EncodeValue for GenTime {
    fn value_len(&self) -> der::Result<Length> {
        Length::try_from(self.0.len())
    }

    fn encode_value(&self, writer: &mut impl Writer) -> der::Result<()> {
        writer.write(&self.0)
    }
}

impl FixedTag for GenTime {
    const TAG: Tag = Tag::GeneralizedTime;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Result<(i64, u32), &'static str> {
        GenTime::raw(text)
            .instant()
            .map(|t| (t.timestamp(), t.timestamp_subsec_nanos()))
    }

    /// 2026-11-28T03:00:00Z.
    const BASE: i64 = 1_795_834_800;

    #[test]
    fn the_forms_rfc_3161_allows_are_read() {
        for (text, seconds, nanos) in [
            ("20261128030000Z", BASE, 0),
            ("20261128030000.5Z", BASE, 500_000_000),
            ("20261128030000.123Z", BASE, 123_000_000),
            ("20261128030000.123456Z", BASE, 123_456_000),
            ("20261128030000.000000001Z", BASE, 1),
            // Past nanoseconds: read, and the excess dropped.
            ("20261128030000.1234567891234Z", BASE, 123_456_789),
            // Trailing zeros (not DER, still one instant).
            ("20261128030000.120Z", BASE, 120_000_000),
            ("20261128030059Z", BASE + 59, 0),
            ("19700101000000Z", 0, 0),
            ("20240229235959.999Z", 1_709_251_199, 999_000_000),
            // A leap second: the end of second 59.
            ("20161231235960Z", 1_483_228_799, 0),
        ] {
            let got = at(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(got.0, seconds, "{text}");
            assert_eq!(got.1 % 1_000_000_000, nanos, "{text}");
        }
    }

    #[test]
    fn other_forms_are_refused_with_the_reason() {
        for (text, reason) in [
            ("", "too short"),
            ("202611280300Z", "too short"),
            ("2026112803000Z", "too short"),
            ("20261128030000", "too short"),
            ("20261128030000.", "without digits"),
            ("20261128030000.Z", "without digits"),
            ("20261128030000,5Z", "comma"),
            ("20261128030000+0100", "offset"),
            ("20261128030000.5-0500", "offset"),
            ("20261128030000.5", "local time"),
            ("20261128030000ZZ", "after the time"),
            ("20261128030000.5Zjunk", "after the time"),
            ("2026112803000aZ", "not YYYYMMDDHHMMSS"),
            ("2026-11-28T03:00:00Z", "not YYYYMMDDHHMMSS"),
            ("20261328030000Z", "impossible date"),
            ("20250229030000Z", "impossible date"),
            ("20261128250000Z", "impossible time"),
            ("20261128036000Z", "impossible time"),
            ("20261128030061Z", "impossible time"),
            (
                "20261128030000.55555555555555555555555555555555555555555555555555Z",
                "too long",
            ),
        ] {
            let err = at(text).expect_err(text);
            assert!(err.contains(reason), "{text}: {err}");
        }
        // Bytes that are not text at all.
        assert!(GenTime(vec![0xff; 15]).instant().is_err());
        assert!(
            GenTime(b"2026112803\xc3\xa9000Z".to_vec())
                .instant()
                .is_err()
        );
    }

    #[test]
    fn the_der_form_of_an_instant_has_no_trailing_zeros() {
        for (millis, text) in [
            (0, "20261128030000Z"),
            (500, "20261128030000.5Z"),
            (120, "20261128030000.12Z"),
            (123, "20261128030000.123Z"),
            (7, "20261128030000.007Z"),
        ] {
            let t = DateTime::from_timestamp_millis(BASE * 1000 + millis).unwrap();
            let g = GenTime::at(t);
            assert_eq!(g.shown(), text);
            assert_eq!(g.instant().unwrap(), t, "{text} reads back");
        }
    }

    #[test]
    fn it_round_trips_through_der_byte_for_byte() {
        use der::{Decode, Encode};
        for text in ["20261128030000Z", "20261128030000.120Z", "garbage"] {
            let der = GenTime::raw(text).to_der().unwrap();
            assert_eq!(der[0], 0x18, "GeneralizedTime tag");
            assert_eq!(GenTime::from_der(&der).unwrap(), GenTime::raw(text));
        }
        // A length past the bound is refused before anything is copied.
        let mut long = vec![0x18, 0x81, 200];
        long.extend(std::iter::repeat_n(b'1', 200));
        assert!(GenTime::from_der(&long).is_err());
    }
}
