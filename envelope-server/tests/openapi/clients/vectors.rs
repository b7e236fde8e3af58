//! clients/webhook-vectors.json, the cases that the TypeScript and Python verifiers are
//! unit-tested on, checked against envelope-core's own signing and verifying: the clients are
//! held to the implementation, not to a copy of it.

use envelope_core::webhook::{SignatureError, sign, verify};
use serde_json::Value;

use super::clients_dir;

#[test]
fn webhook_vectors_are_envelope_cores_answers() {
    let text = std::fs::read_to_string(clients_dir().join("webhook-vectors.json")).unwrap();
    let vectors: Value = serde_json::from_str(&text).unwrap();
    let str_of = |v: &Value, k: &str| v[k].as_str().unwrap().to_string();
    let signatures = vectors["signatures"].as_array().unwrap();
    assert!(!signatures.is_empty());
    for v in signatures {
        let got = sign(
            &str_of(v, "secret"),
            v["timestamp"].as_i64().unwrap(),
            str_of(v, "body").as_bytes(),
        );
        assert_eq!(got, str_of(v, "signature"), "{}", str_of(v, "name"));
    }
    let cases = vectors["verifications"].as_array().unwrap();
    assert!(cases.len() > 10);
    let results = ["ok", "malformed", "timestamp_out_of_tolerance", "no_match"];
    for v in cases {
        let got = match verify(
            str_of(v, "body").as_bytes(),
            &str_of(v, "header"),
            &str_of(v, "secret"),
            v["tolerance"].as_i64().unwrap(),
            v["now"].as_i64().unwrap(),
        ) {
            Ok(()) => "ok",
            Err(SignatureError::Malformed) => "malformed",
            Err(SignatureError::TimestampOutOfTolerance) => "timestamp_out_of_tolerance",
            Err(SignatureError::NoMatch) => "no_match",
        };
        let want = str_of(v, "result");
        assert!(results.contains(&want.as_str()), "unknown result {want}");
        assert_eq!(got, want, "{}", str_of(v, "name"));
    }
    // Every outcome is among the cases, so each verifier is shown to give each one.
    for r in results {
        assert!(
            cases.iter().any(|v| v["result"] == r),
            "no case ends in {r}"
        );
    }
}
