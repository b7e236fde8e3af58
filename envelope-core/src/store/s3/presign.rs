//! Presigned `GET` URLs (AWS Signature Version 4 in the query string), with the response
//! overrides S3 honours: `response-content-type` and `response-content-disposition`.
//!
//! object_store 0.13's `Signer::signed_url` signs a bare object URL and gives no way to add
//! query parameters before the signature, which covers the whole query: adding the overrides
//! afterwards would make S3 refuse the URL. So the URL of `signed_url` serves only as the
//! object's address (endpoint, path or virtual-hosted style, encoded key) and is signed here,
//! following <https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html>.
//! The known answer of AWS's own example is a unit test below.

use std::time::Duration;

use chrono::{DateTime, Utc};
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

use crate::ids::hex;

/// The credential that signs: access key, secret key and the session token if any.
pub(super) struct Credential<'a> {
    pub key_id: &'a str,
    pub secret_key: &'a str,
    pub token: Option<&'a str>,
}

/// `address` (an object's URL, its query ignored) as a `GET` URL that works for `expires_in`
/// from `at`, with `extra` query parameters under the signature.
pub(super) fn presign_get(
    address: &url::Url,
    extra: &[(&str, &str)],
    credential: &Credential<'_>,
    region: &str,
    at: DateTime<Utc>,
    expires_in: Duration,
) -> url::Url {
    let date = at.format("%Y%m%d").to_string();
    let stamp = at.format("%Y%m%dT%H%M%SZ").to_string();
    let scope = format!("{date}/{region}/s3/aws4_request");
    let mut params: Vec<(String, String)> = vec![
        ("X-Amz-Algorithm".into(), "AWS4-HMAC-SHA256".into()),
        (
            "X-Amz-Credential".into(),
            format!("{}/{scope}", credential.key_id),
        ),
        ("X-Amz-Date".into(), stamp.clone()),
        ("X-Amz-Expires".into(), expires_in.as_secs().to_string()),
        ("X-Amz-SignedHeaders".into(), "host".into()),
    ];
    if let Some(token) = credential.token {
        params.push(("X-Amz-Security-Token".into(), token.into()));
    }
    params.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let mut encoded: Vec<(String, String)> = params
        .iter()
        .map(|(k, v)| (uri_encode(k), uri_encode(v)))
        .collect();
    encoded.sort();
    let query = encoded
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&");
    let host = &address[url::Position::BeforeHost..url::Position::AfterPort];
    // S3 takes the path as it is sent (already encoded once), unlike other AWS services.
    let canonical = format!(
        "GET\n{}\n{query}\nhost:{host}\n\nhost\nUNSIGNED-PAYLOAD",
        address.path()
    );
    let to_sign = format!(
        "AWS4-HMAC-SHA256\n{stamp}\n{scope}\n{}",
        hex(&Sha256::digest(canonical.as_bytes()))
    );
    let mut key = hmac(format!("AWS4{}", credential.secret_key).as_bytes(), &date);
    for part in [region, "s3", "aws4_request"] {
        key = hmac(&key, part);
    }
    let signature = hex(&hmac(&key, &to_sign));
    let mut url = address.clone();
    url.set_fragment(None);
    url.set_query(Some(&format!("{query}&X-Amz-Signature={signature}")));
    url
}

fn hmac(key: &[u8], data: &str) -> Vec<u8> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes keys of any length");
    mac.update(data.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

/// SigV4's encoding of a query key or value: every byte but `A-Z a-z 0-9 - _ . ~` as `%XX`.
fn uri_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: Credential<'static> = Credential {
        key_id: "AKIAIOSFODNN7EXAMPLE",
        secret_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        token: None,
    };

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    /// AWS's example of a presigned GET
    /// (<https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html>).
    #[test]
    fn the_known_answer_of_aws_example() {
        let url = presign_get(
            &url::Url::parse("https://examplebucket.s3.amazonaws.com/test.txt").unwrap(),
            &[],
            &EXAMPLE,
            "us-east-1",
            at("2013-05-24T00:00:00Z"),
            Duration::from_secs(86400),
        );
        assert_eq!(
            url.as_str(),
            "https://examplebucket.s3.amazonaws.com/test.txt?\
             X-Amz-Algorithm=AWS4-HMAC-SHA256&\
             X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&\
             X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&\
             X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"
        );
    }

    /// The overrides are under the signature, encoded as the canonical query encodes them
    /// (so the URL sent is the query signed), and a session token is carried.
    #[test]
    fn overrides_and_tokens_are_signed() {
        let with_token = Credential {
            token: Some("tok/en=="),
            ..EXAMPLE
        };
        // The same object and overrides, signed at `time`.
        let sign_at = |time: &str| {
            presign_get(
                &url::Url::parse("http://127.0.0.1:9000/bucket/pre/blob_x").unwrap(),
                &[
                    ("response-content-type", "application/pdf"),
                    (
                        "response-content-disposition",
                        "attachment; filename=\"a b.pdf\"; filename*=UTF-8''a%20b.pdf",
                    ),
                ],
                &with_token,
                "eu-central-1",
                at(time),
                Duration::from_secs(300),
            )
        };
        let url = sign_at("2026-11-26T23:00:00Z");
        let q = url.query().unwrap();
        assert!(q.contains("response-content-type=application%2Fpdf"), "{q}");
        assert!(
            q.contains("response-content-disposition=attachment%3B%20filename%3D%22a%20b.pdf%22"),
            "{q}"
        );
        assert!(q.contains("X-Amz-Security-Token=tok%2Fen%3D%3D"), "{q}");
        assert!(q.contains("X-Amz-Expires=300"), "{q}");
        assert_eq!(url.host_str(), Some("127.0.0.1"));
        assert_eq!(url.path(), "/bucket/pre/blob_x");
        // The signature botocore (the AWS SDK for Python, 1.x) gives the same request.
        let botocore = sign_at("2026-11-26T23:23:11Z");
        assert!(
            botocore.query().unwrap().ends_with(
                "&X-Amz-Signature=15c132b7d8e3584426f97a809e101beb44df470b067c87fc546f9e51d1957d1e"
            ),
            "{botocore}"
        );
        // Any change of what is signed changes the signature.
        let other = presign_get(
            &url::Url::parse("http://127.0.0.1:9000/bucket/pre/blob_x").unwrap(),
            &[("response-content-type", "text/html")],
            &with_token,
            "eu-central-1",
            at("2026-11-26T23:00:00Z"),
            Duration::from_secs(300),
        );
        let sig = |u: &url::Url| u.query().unwrap().rsplit_once('=').unwrap().1.to_string();
        assert_ne!(sig(&url), sig(&other));
    }
}
