//! Signing and verifying webhook bodies (Stripe's `t=...,v1=...` scheme).

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

type HmacSha256 = Hmac<Sha256>;

/// Hex HMAC-SHA256 of `"<t>.<body>"` under `secret`.
pub fn sign(secret: &str, timestamp: i64, body: &[u8]) -> String {
    let mut mac =
        HmacSha256::new_from_slice(secret.as_bytes()).expect("HMAC takes keys of any length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    crate::ids::hex(&mac.finalize().into_bytes())
}

/// The header value for one or more secrets (several during a secret rotation).
pub fn signature_header(secrets: &[&str], timestamp: i64, body: &[u8]) -> String {
    let mut h = format!("t={timestamp}");
    for s in secrets {
        h.push_str(",v1=");
        h.push_str(&sign(s, timestamp, body));
    }
    h
}

/// Why a signature was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    /// The header has no `t=` timestamp (or one that is not a whole number), no `v1=` signature,
    /// or a part that is not `key=value`.
    #[error("the signature header is malformed")]
    Malformed,
    /// The header's timestamp is further than the tolerance from now, in either direction (a
    /// replayed or delayed request).
    #[error("the timestamp is outside the tolerance")]
    TimestampOutOfTolerance,
    /// No `v1=` signature of the header is the HMAC of the body under the secret.
    #[error("no signature matches")]
    NoMatch,
}

/// Verifies `header` for `body` under `secret`, refusing timestamps further than `tolerance_secs`
/// from `now_unix`. Use it in receivers on the raw request body, before parsing it.
///
/// ```
/// use envelope_core::webhook::{SignatureError, signature_header, verify};
///
/// let secret = "whsec_test";
/// let body = br#"{"id":"evt_1","type":"envelope.completed"}"#;
/// // What the service sends in `Service-Signature` (here made with the same secret).
/// let header = signature_header(&[secret], 1_700_000_000, body);
///
/// // The receiver checks the raw body against the header, within 5 minutes.
/// assert_eq!(verify(body, &header, secret, 300, 1_700_000_060), Ok(()));
/// // A changed body, another secret, or an old timestamp is refused.
/// assert_eq!(verify(b"{}", &header, secret, 300, 1_700_000_060), Err(SignatureError::NoMatch));
/// assert_eq!(verify(body, &header, "whsec_other", 300, 1_700_000_060), Err(SignatureError::NoMatch));
/// assert_eq!(
///     verify(body, &header, secret, 300, 1_700_000_900),
///     Err(SignatureError::TimestampOutOfTolerance)
/// );
/// ```
pub fn verify(
    body: &[u8],
    header: &str,
    secret: &str,
    tolerance_secs: i64,
    now_unix: i64,
) -> Result<(), SignatureError> {
    let mut timestamp = None;
    let mut candidates = Vec::new();
    for part in header.split(',') {
        let (k, v) = part
            .trim()
            .split_once('=')
            .ok_or(SignatureError::Malformed)?;
        match k {
            "t" => timestamp = Some(v.parse::<i64>().map_err(|_| SignatureError::Malformed)?),
            "v1" => candidates.push(v),
            _ => {} // other schemes are ignored, as Stripe's verifiers do
        }
    }
    let t = timestamp.ok_or(SignatureError::Malformed)?;
    if candidates.is_empty() {
        return Err(SignatureError::Malformed);
    }
    if (now_unix - t).abs() > tolerance_secs {
        return Err(SignatureError::TimestampOutOfTolerance);
    }
    let expected = sign(secret, t, body);
    if candidates
        .iter()
        .any(|c| bool::from(c.as_bytes().ct_eq(expected.as_bytes())))
    {
        Ok(())
    } else {
        Err(SignatureError::NoMatch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_answer() {
        // Computed independently with:
        // printf '1700000000.{"id":"evt_1"}' | openssl dgst -sha256 -hmac whsec_test
        let sig = sign("whsec_test", 1_700_000_000, br#"{"id":"evt_1"}"#);
        assert_eq!(
            sig,
            "c89214b5b5da833daed6f0b8c5bb6bd58cea9022bd80ccc78230f3942d632925"
        );
    }

    #[test]
    fn verify_accepts_own_signature_and_rejects_tampering() {
        let body = br#"{"id":"evt_1"}"#;
        let h = signature_header(&["whsec_a"], 1000, body);
        assert_eq!(verify(body, &h, "whsec_a", 300, 1100), Ok(()));
        assert_eq!(
            verify(b"{}", &h, "whsec_a", 300, 1100),
            Err(SignatureError::NoMatch)
        );
        assert_eq!(
            verify(body, &h, "whsec_b", 300, 1100),
            Err(SignatureError::NoMatch)
        );
        assert_eq!(
            verify(body, &h, "whsec_a", 300, 2000),
            Err(SignatureError::TimestampOutOfTolerance)
        );
        assert_eq!(
            verify(body, "garbage", "whsec_a", 300, 1000),
            Err(SignatureError::Malformed)
        );
        assert_eq!(
            verify(body, "t=1000", "whsec_a", 300, 1000),
            Err(SignatureError::Malformed)
        );
    }

    #[test]
    fn rotation_header_carries_both_signatures() {
        let body = b"x";
        let h = signature_header(&["whsec_new", "whsec_old"], 5, body);
        assert_eq!(verify(body, &h, "whsec_new", 300, 5), Ok(()));
        assert_eq!(verify(body, &h, "whsec_old", 300, 5), Ok(()));
    }
}
