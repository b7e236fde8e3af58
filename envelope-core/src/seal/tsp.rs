//! RFC 3161 timestamps of the signature value (PAdES B-T): the `TimeStampReq`, the checks on the
//! `TimeStampResp`, and an in-process authority for tests and embedding.
//!
//! The transport is a seam ([`TimestampAuthority`]): the server sends the request over HTTP,
//! tests answer in process. This module checks that the token is granted and is for this
//! signature (message imprint and nonce) and that its `genTime` is a time (with or without
//! fractions of a second: `gen_time.rs`); whether the authority is trusted is the validator's
//! question, as for any PAdES signature. Every fault of an answer is [`SealError::Timestamp`],
//! every fault of the transport [`SealError::Unavailable`]: either way the caller may seal
//! without a timestamp ([`super::Sealer::sign_without_timestamp`]).

use std::sync::atomic::{AtomicU64, Ordering};

use ::cms::content_info::ContentInfo;
use ::cms::signed_data::SignedData;
use async_trait::async_trait;
use chrono::Timelike;
use der::asn1::{Int, ObjectIdentifier as Oid, OctetString};
use der::{Decode, Encode, Sequence};
use sha2::{Digest, Sha256};
use spki::AlgorithmIdentifierOwned;
use x509_cert::ext::Extensions;
use x509_cert::ext::pkix::name::GeneralName;

use super::SealError;
use super::cms::{self, ID_CT_TST_INFO, SHA256};
use super::gen_time::GenTime;
use super::identity::SigningIdentity;
use crate::clock::{Clock, SystemClock};
use crate::error::BoxError;

/// Carries a DER `TimeStampReq` to a timestamp authority and brings back its DER
/// `TimeStampResp`.
///
/// Contract: one exchange per call, no retries hidden inside (the caller decides); transport
/// failures (connection, HTTP status other than 200, wrong content type) are errors, the
/// response body is returned as it is.
#[async_trait]
pub trait TimestampAuthority: Send + Sync + std::fmt::Debug + 'static {
    /// Sends one DER `TimeStampReq` and returns the DER `TimeStampResp` as received; `Err` for a
    /// transport failure.
    async fn exchange(&self, request: Vec<u8>) -> Result<Vec<u8>, BoxError>;
}

#[derive(Debug, Clone, Sequence)]
struct MessageImprint {
    hash_algorithm: AlgorithmIdentifierOwned,
    hashed_message: OctetString,
}

#[derive(Debug, Sequence)]
struct TimeStampReq {
    version: u8,
    message_imprint: MessageImprint,
    #[asn1(optional = "true")]
    req_policy: Option<Oid>,
    #[asn1(optional = "true")]
    nonce: Option<Int>,
    #[asn1(default = "Default::default")]
    cert_req: bool,
}

#[derive(Debug, Sequence)]
struct PkiStatusInfo {
    status: u8,
    #[asn1(optional = "true")]
    status_string: Option<Vec<String>>,
    #[asn1(optional = "true")]
    fail_info: Option<der::asn1::BitString>,
}

#[derive(Debug, Sequence)]
struct TimeStampResp {
    status: PkiStatusInfo,
    #[asn1(optional = "true")]
    time_stamp_token: Option<ContentInfo>,
}

#[derive(Debug, Sequence)]
struct Accuracy {
    #[asn1(optional = "true")]
    seconds: Option<Int>,
    #[asn1(context_specific = "0", tag_mode = "IMPLICIT", optional = "true")]
    millis: Option<Int>,
    #[asn1(context_specific = "1", tag_mode = "IMPLICIT", optional = "true")]
    micros: Option<Int>,
}

#[derive(Debug, Sequence)]
struct TstInfo {
    version: u8,
    policy: Oid,
    message_imprint: MessageImprint,
    serial_number: Int,
    /// Read by hand: `der`'s `GeneralizedTime` refuses the fractions RFC 3161 allows.
    gen_time: GenTime,
    #[asn1(optional = "true")]
    accuracy: Option<Accuracy>,
    #[asn1(default = "Default::default")]
    ordering: bool,
    #[asn1(optional = "true")]
    nonce: Option<Int>,
    #[asn1(context_specific = "0", tag_mode = "EXPLICIT", optional = "true")]
    tsa: Option<GeneralName>,
    #[asn1(context_specific = "1", tag_mode = "IMPLICIT", optional = "true")]
    extensions: Option<Extensions>,
}

fn imprint(digest: [u8; 32]) -> Result<MessageImprint, SealError> {
    Ok(MessageImprint {
        hash_algorithm: cms::sha256_algorithm(),
        hashed_message: OctetString::new(digest.to_vec())?,
    })
}

/// A positive INTEGER from 8 random bytes.
fn nonce() -> Result<Int, SealError> {
    let mut b = [0u8; 8];
    rand::fill(&mut b);
    positive_int(&b)
}

/// The minimal DER INTEGER for the unsigned big-endian `bytes` (no superfluous leading zero
/// byte, one added when the high bit is set).
fn positive_int(bytes: &[u8]) -> Result<Int, SealError> {
    let first = bytes
        .iter()
        .position(|&b| b != 0)
        .unwrap_or(bytes.len() - 1);
    let mut v = Vec::with_capacity(bytes.len() + 1);
    if bytes[first] & 0x80 != 0 {
        v.push(0);
    }
    v.extend_from_slice(&bytes[first..]);
    Ok(Int::new(&v)?)
}

/// Asks `tsa` for a token over `signature` (the SignerInfo's signature value) and returns the
/// token (a DER `ContentInfo`) once it is checked to be granted and for this signature.
pub(crate) async fn timestamp(
    tsa: &dyn TimestampAuthority,
    signature: &[u8],
) -> Result<Vec<u8>, SealError> {
    timestamp_digest(tsa, Sha256::digest(signature).into()).await
}

/// Asks `tsa` for a token whose message imprint is `digest` (SHA-256), and returns the token (a
/// DER `ContentInfo`) once it is checked to be granted, for this digest and this request (its
/// nonce). A document timestamp (PAdES B-LTA) is such a token over the SHA-256 of a
/// `/ByteRange` (`pdf::PreparedSeal::digest` of a `pdf::prepare_document_timestamp`).
pub async fn timestamp_digest(
    tsa: &dyn TimestampAuthority,
    digest: [u8; 32],
) -> Result<Vec<u8>, SealError> {
    let message_imprint = imprint(digest)?;
    let nonce = nonce()?;
    let req = TimeStampReq {
        version: 1,
        message_imprint: message_imprint.clone(),
        req_policy: None,
        nonce: Some(nonce.clone()),
        cert_req: true,
    }
    .to_der()?;
    let resp = tsa
        .exchange(req)
        .await
        .map_err(|source| SealError::Unavailable { source })?;
    let bad = |m: &str| SealError::Timestamp(m.to_string());
    let resp = TimeStampResp::from_der(&resp).map_err(|_| bad("not a TimeStampResp"))?;
    if resp.status.status > 1 {
        let text = resp.status.status_string.unwrap_or_default().join("; ");
        return Err(SealError::Timestamp(format!(
            "status {} {text}",
            resp.status.status
        )));
    }
    let token = resp
        .time_stamp_token
        .ok_or_else(|| bad("granted without a token"))?;
    let sd: SignedData = token
        .content
        .decode_as()
        .map_err(|_| bad("the token is not SignedData"))?;
    if sd.encap_content_info.econtent_type != ID_CT_TST_INFO {
        return Err(bad("the token does not hold a TSTInfo"));
    }
    let econtent = sd
        .encap_content_info
        .econtent
        .ok_or_else(|| bad("the token has no content"))?;
    let tst_der: OctetString = econtent
        .decode_as()
        .map_err(|_| bad("the token's content is not an OCTET STRING"))?;
    let tst = TstInfo::from_der(tst_der.as_bytes()).map_err(|_| bad("unreadable TSTInfo"))?;
    if let Err(why) = tst.gen_time.instant() {
        return Err(SealError::Timestamp(format!(
            "the token's genTime {:?} is not a time RFC 3161 allows: {why}",
            tst.gen_time.shown()
        )));
    }
    if tst.message_imprint.hash_algorithm.oid != SHA256
        || tst.message_imprint.hashed_message != message_imprint.hashed_message
    {
        return Err(bad("the token is for other data"));
    }
    if tst.nonce.as_ref() != Some(&nonce) {
        return Err(bad("the token's nonce does not match the request"));
    }
    token
        .to_der()
        .map_err(|_| bad("the token cannot be encoded again"))
}

/// A timestamp authority in process: it grants every well-formed request, signing with its own
/// identity (see [`SigningIdentity::generate_timestamp_authority`]) at the time of its clock
/// (the system's unless [`Self::with_clock`]), to the second unless
/// [`Self::with_fractional_seconds`]. For tests and local development; [`Self::respond`] also
/// serves an HTTP stub.
pub struct LocalTimestampAuthority {
    identity: SigningIdentity,
    serial: AtomicU64,
    clock: std::sync::Arc<dyn Clock>,
    fractional_seconds: bool,
}

impl std::fmt::Debug for LocalTimestampAuthority {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalTimestampAuthority")
            .field("identity", &self.identity)
            .finish_non_exhaustive()
    }
}

/// A test policy OID (under the example arc of RFC 7229's private testing space).
const TEST_POLICY: Oid = Oid::new_unwrap("1.3.6.1.4.1.57264.1.1");

impl LocalTimestampAuthority {
    /// An authority that signs with `identity` at the system clock's time.
    pub fn new(identity: SigningIdentity) -> Self {
        LocalTimestampAuthority {
            identity,
            serial: AtomicU64::new(1),
            clock: std::sync::Arc::new(SystemClock),
            fractional_seconds: false,
        }
    }

    /// Stamps tokens with this clock's time (a test's `ManualClock`).
    pub fn with_clock(mut self, clock: std::sync::Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Gives `genTime` to the millisecond, as certomancer and many public TSAs do
    /// (`20261128030000.123Z`; DER, so no trailing zeros, and no fraction on a whole second).
    pub fn with_fractional_seconds(mut self) -> Self {
        self.fractional_seconds = true;
        self
    }

    /// The DER `TimeStampResp` for a DER `TimeStampReq`: a token, or status 2 (rejection) for a
    /// request it cannot read.
    pub fn respond(&self, request: &[u8]) -> Vec<u8> {
        let now = self.clock.now();
        let at = if self.fractional_seconds {
            now.datetime()
        } else {
            now.datetime().with_nanosecond(0).unwrap_or(now.datetime())
        };
        self.respond_at(request, GenTime::at(at))
    }

    /// [`Self::respond`] with this `genTime`, whatever it says.
    fn respond_at(&self, request: &[u8], gen_time: GenTime) -> Vec<u8> {
        self.try_respond(request, gen_time).unwrap_or_else(|_| {
            TimeStampResp {
                status: PkiStatusInfo {
                    status: 2,
                    status_string: Some(vec!["bad request".into()]),
                    fail_info: None,
                },
                time_stamp_token: None,
            }
            .to_der()
            .unwrap_or_default()
        })
    }

    fn try_respond(&self, request: &[u8], gen_time: GenTime) -> Result<Vec<u8>, SealError> {
        let req = TimeStampReq::from_der(request)?;
        let serial = self.serial.fetch_add(1, Ordering::Relaxed);
        let tst = TstInfo {
            version: 1,
            policy: TEST_POLICY,
            message_imprint: req.message_imprint,
            serial_number: positive_int(&serial.to_be_bytes())?,
            gen_time,
            accuracy: None,
            ordering: false,
            nonce: req.nonce,
            tsa: None,
            extensions: None,
        }
        .to_der()?;
        let digest: [u8; 32] = Sha256::digest(&tst).into();
        let info = cms::signer_info(&self.identity, ID_CT_TST_INFO, &digest)?;
        let token = cms::signed_data(&self.identity, info, ID_CT_TST_INFO, Some(tst))?;
        Ok(TimeStampResp {
            status: PkiStatusInfo {
                status: 0,
                status_string: None,
                fail_info: None,
            },
            time_stamp_token: Some(ContentInfo::from_der(&token)?),
        }
        .to_der()?)
    }
}

#[async_trait]
impl TimestampAuthority for LocalTimestampAuthority {
    async fn exchange(&self, request: Vec<u8>) -> Result<Vec<u8>, BoxError> {
        Ok(self.respond(&request))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Replay(Vec<u8>);

    #[async_trait]
    impl TimestampAuthority for Replay {
        async fn exchange(&self, _: Vec<u8>) -> Result<Vec<u8>, BoxError> {
            Ok(self.0.clone())
        }
    }

    fn tsa() -> LocalTimestampAuthority {
        let id = SigningIdentity::generate_timestamp_authority("Test TSA").expect("tsa identity");
        LocalTimestampAuthority::new(id.identity)
    }

    /// The certificates a seal carries: the sealing chain, then the TSA's from its signature
    /// timestamp; a document timestamp token carries the TSA's; garbage is an error.
    #[tokio::test]
    async fn a_seal_names_its_chain_and_its_timestamp_authoritys() {
        use crate::seal::{LocalSealer, Sealer, certificates_in};
        let seal = SigningIdentity::generate_development("Seal").expect("identity");
        let tsa_id = SigningIdentity::generate_timestamp_authority("Test TSA").expect("tsa");
        let der_of = |pem: &str| der::pem::decode_vec(pem.as_bytes()).expect("PEM").1;
        let (seal_der, tsa_der) = (der_of(&seal.cert_pem), der_of(&tsa_id.cert_pem));
        let authority: std::sync::Arc<dyn TimestampAuthority> =
            std::sync::Arc::new(LocalTimestampAuthority::new(tsa_id.identity));

        let again = SigningIdentity::from_pem(&seal.key_pem, &seal.cert_pem, None).expect("PEM");
        let plain = LocalSealer::new(again);
        assert!(plain.timestamp_authority().is_none());
        let cms = plain.sign([7; 32]).await.expect("B-B");
        assert_eq!(certificates_in(&cms).unwrap(), vec![seal_der.clone()]);

        let stamped = LocalSealer::new(seal.identity).with_timestamps(authority.clone());
        assert!(stamped.timestamp_authority().is_some());
        let cms = stamped.sign([7; 32]).await.expect("B-T");
        assert_eq!(
            certificates_in(&cms).unwrap(),
            vec![seal_der.clone(), tsa_der.clone()]
        );
        let without = stamped.sign_without_timestamp([7; 32]).await.expect("B-B");
        assert_eq!(certificates_in(&without).unwrap(), vec![seal_der]);

        let token = timestamp_digest(authority.as_ref(), [9; 32])
            .await
            .expect("token");
        assert_eq!(certificates_in(&token).unwrap(), vec![tsa_der]);

        for junk in [&b""[..], b"\x30\x03\x02\x01\x01", &token[..token.len() / 2]] {
            assert!(certificates_in(junk).is_err(), "{junk:?}");
        }
    }

    #[tokio::test]
    async fn a_granted_token_for_this_signature_is_accepted() {
        let authority = tsa();
        // Several rounds: nonces and serials of every leading byte encode minimally.
        for _ in 0..20 {
            let token = timestamp(&authority, b"signature bytes")
                .await
                .expect("token");
            let ci = ContentInfo::from_der(&token).expect("content info");
            assert_eq!(ci.content_type, cms::ID_SIGNED_DATA);
        }
    }

    #[tokio::test]
    async fn tokens_carry_the_time_of_the_authoritys_clock() {
        let at = crate::clock::Timestamp::parse("2031-05-06T07:08:09.000Z").unwrap();
        let authority = tsa().with_clock(std::sync::Arc::new(crate::clock::ManualClock::new(at)));
        let token = timestamp(&authority, b"signature bytes")
            .await
            .expect("token");
        let sd: SignedData = ContentInfo::from_der(&token)
            .unwrap()
            .content
            .decode_as()
            .unwrap();
        let tst: OctetString = sd.encap_content_info.econtent.unwrap().decode_as().unwrap();
        let tst = TstInfo::from_der(tst.as_bytes()).unwrap();
        assert_eq!(tst.gen_time.instant().unwrap(), at.datetime());
        assert_eq!(tst.gen_time.shown(), "20310506070809Z");
    }

    /// The `genTime` of a token, as a TSA sent it.
    fn gen_time_of(token: &[u8]) -> GenTime {
        let sd: SignedData = ContentInfo::from_der(token)
            .unwrap()
            .content
            .decode_as()
            .unwrap();
        let tst: OctetString = sd.encap_content_info.econtent.unwrap().decode_as().unwrap();
        TstInfo::from_der(tst.as_bytes()).unwrap().gen_time
    }

    /// An authority that grants every request with this `genTime`, as written.
    #[derive(Debug)]
    struct AtTime(LocalTimestampAuthority, &'static str);

    #[async_trait]
    impl TimestampAuthority for AtTime {
        async fn exchange(&self, request: Vec<u8>) -> Result<Vec<u8>, BoxError> {
            Ok(self.0.respond_at(&request, GenTime::raw(self.1)))
        }
    }

    #[tokio::test]
    async fn tokens_with_fractional_seconds_are_accepted_as_they_came() {
        for gen_time in [
            "20261128030000Z",
            "20261128030000.5Z",
            "20261128030000.123456Z",
        ] {
            let token = timestamp(&AtTime(tsa(), gen_time), b"signature bytes")
                .await
                .unwrap_or_else(|e| panic!("{gen_time}: {e}"));
            // Kept byte for byte: the validator reads the TSA's own signed bytes.
            assert_eq!(gen_time_of(&token).shown(), gen_time);
        }
    }

    #[tokio::test]
    async fn a_token_whose_gen_time_is_no_time_is_refused_with_the_reason() {
        for (gen_time, reason) in [
            ("20261128030000+0100", "offset"),
            ("20261128030000.Z", "without digits"),
            ("20261340030000Z", "impossible date"),
            ("tomorrow", "too short"),
        ] {
            match timestamp(&AtTime(tsa(), gen_time), b"signature bytes").await {
                Err(SealError::Timestamp(m)) => {
                    assert!(
                        m.contains("genTime") && m.contains(reason),
                        "{gen_time}: {m}"
                    )
                }
                other => panic!("{gen_time}: {other:?}"),
            }
        }
    }

    #[tokio::test]
    async fn with_fractional_seconds_the_authority_gives_milliseconds() {
        let at = crate::clock::Timestamp::parse("2031-05-06T07:08:09.120Z").unwrap();
        let clock = std::sync::Arc::new(crate::clock::ManualClock::new(at));
        let authority = tsa().with_clock(clock).with_fractional_seconds();
        let token = timestamp(&authority, b"signature bytes")
            .await
            .expect("token");
        let gen_time = gen_time_of(&token);
        assert_eq!(gen_time.shown(), "20310506070809.12Z");
        assert_eq!(gen_time.instant().unwrap(), at.datetime());
    }

    #[test]
    fn integers_are_minimal() {
        for (input, der) in [
            (&[0u8, 0, 1][..], &[2u8, 1, 1][..]),
            (&[0, 0x80], &[2, 2, 0, 0x80]),
            (&[0, 0, 0], &[2, 1, 0]),
            (&[0x7f, 0], &[2, 2, 0x7f, 0]),
        ] {
            assert_eq!(positive_int(input).unwrap().to_der().unwrap(), der);
        }
    }

    #[tokio::test]
    async fn tokens_for_other_requests_and_rejections_are_refused() {
        let authority = tsa();
        // A token answering another request (other imprint, other nonce).
        let other = TimeStampReq {
            version: 1,
            message_imprint: imprint(Sha256::digest(b"other").into()).unwrap(),
            req_policy: None,
            nonce: Some(nonce().unwrap()),
            cert_req: true,
        };
        let replay = Replay(authority.respond(&other.to_der().unwrap()));
        assert!(matches!(
            timestamp(&replay, b"mine").await,
            Err(SealError::Timestamp(_))
        ));
        let rejected = Replay(authority.respond(b"not a request"));
        let err = timestamp(&rejected, b"mine").await.unwrap_err();
        assert!(err.to_string().contains("status 2"), "{err}");
        let garbage = Replay(b"garbage".to_vec());
        assert!(matches!(
            timestamp(&garbage, b"mine").await,
            Err(SealError::Timestamp(_))
        ));
    }
}
