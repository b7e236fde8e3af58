//! The original's SHA-256 state, kept when it is uploaded (`StoredFile::sha256_state`), lets the
//! signed copy's seal feed only the update (docs/PDF.md, "Sealing"). Whatever the record holds (a
//! good state, none as in records written before it, one of other bytes), the signed copy's
//! recorded SHA-256 is the plain SHA-256 of `original ++ update`, the seal's `/ByteRange` digest
//! is that of the file's bytes, and no view shows the state.

use std::sync::Arc;

use envelope_core::clock::ManualClock;
use envelope_core::mail::MemoryMailer;
use envelope_core::model::{EnvelopeRecord, Sha256State};
use envelope_core::service::{AuthContext, CreateEnvelopeParams, FileKind, Params, Upload};
use envelope_core::store::EnvelopeStore;
use envelope_core::{MemoryBlobStore, MemoryStore, SigningService, Timestamp};
use envelope_testkit::textpdf;
use serde_json::json;
use sha2::{Digest, Sha256};

struct Setup {
    store: Arc<MemoryStore>,
    svc: SigningService,
    ctx: AuthContext,
}

async fn setup() -> Setup {
    let store = Arc::new(MemoryStore::new());
    let svc = SigningService::builder()
        .store(store.clone())
        .blobs(Arc::new(MemoryBlobStore::new()))
        .mailer(Arc::new(MemoryMailer::new()))
        .clock(Arc::new(ManualClock::new(
            Timestamp::parse("2027-03-10T12:00:00.000Z").unwrap(),
        )))
        .build();
    let acct = svc.admin().create_account("Acme").await.unwrap();
    let ctx = svc.authenticate(&acct.test_key.secret).await.unwrap();
    Setup { store, svc, ctx }
}

/// The one-page client contract grown past the size from which states are kept, by `extra`
/// bytes more (so that its length falls where the test wants it against 64-byte blocks).
fn large_original(extra: usize) -> Vec<u8> {
    textpdf::padded(&textpdf::client_contract(), (1 << 20) + extra, 11)
}

async fn create(s: &Setup, pdf: &[u8]) -> EnvelopeRecord {
    let params = CreateEnvelopeParams::parse(
        Params::json(json!({
            "signers": [{"name": "Zoë Client", "email": "client@example.com"}],
        }))
        .unwrap(),
        Some(Upload {
            file_name: "contract.pdf".into(),
            bytes: pdf.to_vec().into(),
        }),
        &s.svc.settings().limits,
    )
    .unwrap();
    let env = s.svc.create_envelope(&s.ctx, params).await.unwrap();
    let view = serde_json::to_string(&env).unwrap();
    assert!(!view.contains("sha256_state"), "the view shows the state");
    record(s, &env.id).await
}

async fn record(s: &Setup, id: &envelope_core::ids::EnvelopeId) -> EnvelopeRecord {
    s.store
        .get_envelope(&s.ctx.scope(), id)
        .await
        .unwrap()
        .unwrap()
}

/// Completes the envelope and returns the signed copy's bytes (as a download gives them) after
/// checking them against the record: the recorded SHA-256 is the plain one of those bytes, and
/// the seal's digest (its CMS message digest) is that of the `/ByteRange`.
async fn complete(s: &Setup, rec: &EnvelopeRecord) -> Vec<u8> {
    s.svc.test_complete(&s.ctx, &rec.id).await.unwrap();
    let done = record(s, &rec.id).await;
    assert!(
        done.original.sha256_state.is_none(),
        "the state leaves the record once the copy is sealed"
    );
    let signed = done.signed.as_ref().expect("signed copy");
    let link = s
        .svc
        .envelope_file_link(&s.ctx, &rec.id, FileKind::Signed)
        .await
        .unwrap();
    let token = link.url.rsplit('/').next().unwrap();
    let (_, whole) = s.svc.open_file_link(token).await.unwrap();
    let original_len = rec.original.size as usize;
    assert_eq!(signed.size as usize, whole.len());
    assert_eq!(hex(&Sha256::digest(&whole)), signed.sha256);
    let [a, b] = byte_range(&whole[original_len..], original_len);
    let ranges = Sha256::new_with_prefix(&whole[..a])
        .chain_update(&whole[b..])
        .finalize();
    let message_digest = [&[0x04, 0x20][..], &ranges[..]].concat();
    let cms = unhex(&whole[a + 1..b - 1]);
    assert!(
        cms.windows(34).any(|w| w == message_digest),
        "the CMS signs the digest of the ranges"
    );
    whole.to_vec()
}

/// `[a, b]` of the seal's `/ByteRange [0 a b c]` in `update` (the file's offsets).
fn byte_range(update: &[u8], base: usize) -> [usize; 2] {
    let text = String::from_utf8_lossy(update);
    let at = text.find("/ByteRange [0 ").expect("a ByteRange") + "/ByteRange [0 ".len();
    let nums: Vec<usize> = text[at..]
        .split(']')
        .next()
        .unwrap()
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect();
    assert_eq!(nums[1] + nums[2], base + update.len());
    [nums[0], nums[1]]
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(digits: &[u8]) -> Vec<u8> {
    digits
        .chunks_exact(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap())
        .collect()
}

/// Originals whose lengths fall just before, on and just after 64-byte block boundaries, each
/// sealed from its kept state: the stored state describes the upload, and the signed copy's
/// digests are those of its bytes.
#[tokio::test]
async fn a_kept_state_seals_to_the_plain_digest_at_every_block_offset() {
    let s = setup().await;
    let base = large_original(0).len();
    for want in [63, 0, 1, 55, 56] {
        let extra = (want + 64 - base % 64) % 64;
        let pdf = large_original(extra);
        assert_eq!(
            pdf.len() % 64,
            want,
            "the padding moves the length byte for byte"
        );
        let rec = create(&s, &pdf).await;
        let state = rec.original.sha256_state.as_ref().expect("a state is kept");
        assert_eq!(state.len(), pdf.len() as u64);
        assert_eq!(rec.original.sha256, hex(&Sha256::digest(&pdf)));
        let whole = complete(&s, &rec).await;
        assert_eq!(&whole[..pdf.len()], &pdf[..]);
    }
}

/// A record written before states were kept, and one whose state is of other bytes of the same
/// length: both seal by hashing the original, to the same digests.
#[tokio::test]
async fn without_a_usable_state_the_seal_hashes_the_original() {
    let s = setup().await;
    let pdf = large_original(5);
    let mut other = pdf.clone();
    other[100] ^= 1;
    let (_, foreign) = Sha256State::of(&other);
    for state in [None, Some(foreign)] {
        let mut rec = create(&s, &pdf).await;
        assert!(rec.original.sha256_state.is_some());
        // As an older server wrote it, or as a store that mixed records up would give it.
        let stored = serde_json::to_value(&rec).unwrap();
        assert!(stored["original"].get("sha256_state").is_some());
        rec.original.sha256_state = state.clone();
        rec.version += 1;
        s.store.update_envelope(&rec, &[], None).await.unwrap();
        let whole = complete(&s, &rec).await;
        assert_eq!(&whole[..pdf.len()], &pdf[..]);
    }
}

/// Small originals keep no state (hashing them again costs less than the bytes in every record),
/// and their records read as before.
#[tokio::test]
async fn a_small_original_keeps_no_state() {
    let s = setup().await;
    let pdf = textpdf::client_contract();
    let rec = create(&s, &pdf).await;
    assert!(rec.original.sha256_state.is_none());
    let stored = serde_json::to_value(&rec).unwrap();
    assert!(stored["original"].get("sha256_state").is_none());
    complete(&s, &rec).await;
}
