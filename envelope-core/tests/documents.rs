//! Several documents in one envelope (extensions E5) through the service: tags found in every
//! document with keys numbered on, the signer's fields and frames per document, one signed copy
//! per document holding only its own values, the signature page on the last document, and
//! explicit fields naming their document.

use envelope_testkit::pdf as support;

use envelope_core::SigningService;
use envelope_core::ids::EnvelopeId;
use envelope_core::model::{EnvelopeStatus, SignerValue};
use envelope_core::service::{
    AuthContext, ClientInfo, CreateEnvelopeParams, Download, FileKind, Params, SignInput, Upload,
};
use serde_json::{Value, json};
use support::simple_pdf;

fn upload(name: &str, bytes: Vec<u8>) -> Upload {
    Upload {
        file_name: name.into(),
        bytes: bytes.into(),
    }
}

async fn service() -> (SigningService, AuthContext) {
    let svc = SigningService::builder().build();
    let acct = svc.admin().create_account("Acme").await.unwrap();
    let ctx = svc.authenticate(&acct.test_key.secret).await.unwrap();
    (svc, ctx)
}

fn params(body: Value, files: Vec<Upload>) -> envelope_core::Result<CreateEnvelopeParams> {
    let limits = envelope_core::service::Limits::default();
    CreateEnvelopeParams::parse_parts(Params::json(body)?, files, &limits)
}

fn token(url: &str) -> String {
    url.rsplit('/').next().unwrap().to_string()
}

/// What `svc` serves as the file `kind` of document `n`.
async fn file(
    svc: &SigningService,
    ctx: &AuthContext,
    id: &EnvelopeId,
    kind: FileKind,
    n: u32,
) -> Vec<u8> {
    let link = svc
        .envelope_document_link(ctx, id, kind, Some(n))
        .await
        .unwrap();
    let (_, bytes) = svc.open_file_link(&token(&link.url)).await.unwrap();
    bytes.to_vec()
}

fn text_of(pdf: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("doc.pdf");
    std::fs::write(&path, pdf).unwrap();
    let out = std::process::Command::new("pdftotext")
        .arg(&path)
        .arg("-")
        .output()
        .expect("pdftotext: run scripts/install-test-deps.sh");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test]
async fn each_document_is_signed_on_its_own() {
    let (svc, ctx) = service().await;
    let a = simple_pdf(&["Contract", "Client: {{signature:Client}}"]);
    let b = simple_pdf(&["Annex", "{{signature:Client}}   {{text:Client:company}}"]);
    let c = simple_pdf(&["Schedule", "Client: {{signature:Client}}"]);
    let p = params(
        json!({"signers": [{"name": "Ada Lovelace", "email": "ada@example.com"}],
               "delivery": "embedded"}),
        vec![
            upload("contract.pdf", a.clone()),
            upload("annex.pdf", b.clone()),
            upload("schedule.pdf", c.clone()),
        ],
    )
    .unwrap();
    let env = svc.create_envelope(&ctx, p).await.unwrap();
    let names: Vec<(u32, &str, Option<u32>)> = env
        .documents
        .iter()
        .map(|d| (d.index, d.name.as_str(), d.page_count))
        .collect();
    assert_eq!(
        names,
        [
            (1, "contract.pdf", Some(1)),
            (2, "annex.pdf", Some(1)),
            (3, "schedule.pdf", Some(1))
        ]
    );

    let link = svc.signing_url(&ctx, &env.id, None).await.unwrap();
    let t = token(&link.url);
    let session = svc
        .open_signing_link(&t, None, &ClientInfo::default())
        .await
        .unwrap();
    let keys: Vec<(&str, u32)> = session
        .fields
        .iter()
        .map(|f| (f.key.as_str(), f.document))
        .collect();
    assert_eq!(
        keys,
        [
            ("Client_signature", 1),
            ("Client_signature_2", 2),
            ("company", 2),
            ("Client_signature_3", 3)
        ]
    );
    // Each frame shows its own document; there is no fourth.
    let (name, shown) = svc.signing_document_n(&t, None, 2).await.unwrap();
    assert_eq!(name, "annex.pdf");
    assert!(shown.starts_with(&b));
    let e = svc.signing_document_n(&t, None, 4).await.unwrap_err();
    assert_eq!(e.code(), "resource_missing");

    let mut input = SignInput {
        consent: true,
        ..SignInput::default()
    };
    for (key, who) in [
        ("Client_signature", "Ada One"),
        ("Client_signature_2", "Ada Two"),
        ("Client_signature_3", "Ada Three"),
    ] {
        input
            .values
            .insert(key.into(), SignerValue::Typed(who.into()));
    }
    input.values.insert(
        "company".into(),
        SignerValue::Text("Analytical Engines".into()),
    );
    let e = svc
        .envelope_file(&ctx, &env.id, FileKind::Archive, None)
        .await
        .unwrap_err();
    assert_eq!(e.code(), "file_not_ready");
    let done = svc
        .sign(&t, None, input, &ClientInfo::default())
        .await
        .unwrap();
    assert_eq!(done.status, EnvelopeStatus::Completed);

    for (n, original, mine, others) in [
        (1, &a, "Ada One", ["Ada Two", "Ada Three"]),
        (2, &b, "Ada Two", ["Ada One", "Ada Three"]),
        (3, &c, "Ada Three", ["Ada One", "Ada Two"]),
    ] {
        assert_eq!(
            &file(&svc, &ctx, &env.id, FileKind::Original, n).await,
            original
        );
        let signed = file(&svc, &ctx, &env.id, FileKind::Signed, n).await;
        assert!(signed.starts_with(original), "document {n}");
        let text = text_of(&signed);
        assert!(text.contains(mine), "document {n}: {text}");
        for other in others {
            assert!(!text.contains(other), "document {n} holds {other}: {text}");
        }
    }
    let annex = text_of(&file(&svc, &ctx, &env.id, FileKind::Signed, 2).await);
    assert!(annex.contains("Analytical Engines"), "{annex}");

    // The same files without links, and the archive of them all.
    let (name, bytes) = svc
        .envelope_file(&ctx, &env.id, FileKind::Signed, Some(3))
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    assert_eq!(name, "schedule-signed.pdf");
    assert_eq!(bytes, file(&svc, &ctx, &env.id, FileKind::Signed, 3).await);
    let download = svc
        .envelope_file(&ctx, &env.id, FileKind::Archive, None)
        .await
        .unwrap();
    assert!(matches!(download, Download::Archive { .. }));
    let (name, zip) = download.collect().await.unwrap();
    assert_eq!(name, "contract-signed.zip");
    let reader = async_zip::base::read::mem::ZipFileReader::new(zip.to_vec())
        .await
        .unwrap();
    let names: Vec<&str> = reader
        .file()
        .entries()
        .iter()
        .map(|e| e.filename().as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "contract-signed.pdf",
            "annex-signed.pdf",
            "schedule-signed.pdf",
            "contract-audit-trail.pdf"
        ]
    );
    let e = svc
        .envelope_document_link(&ctx, &env.id, FileKind::Signed, Some(4))
        .await
        .unwrap_err();
    assert_eq!(
        (e.code(), e.param().as_deref()),
        ("parameter_invalid", Some("document"))
    );
}

#[tokio::test]
async fn the_signature_page_goes_on_the_last_document() {
    let (svc, ctx) = service().await;
    let a = simple_pdf(&["Terms"]);
    let b = simple_pdf(&["Annex"]);
    let p = params(
        json!({"signers": [{"name": "Ada Lovelace", "email": "ada@example.com"}],
               "signature_page": true}),
        vec![
            upload("terms.pdf", a.clone()),
            upload("annex.pdf", b.clone()),
        ],
    )
    .unwrap();
    let env = svc.create_envelope(&ctx, p).await.unwrap();
    svc.test_complete(&ctx, &env.id).await.unwrap();
    let pages = |pdf: &[u8]| {
        envelope_core::pdf::inspect(pdf, &Default::default())
            .unwrap()
            .page_count
    };
    let first = file(&svc, &ctx, &env.id, FileKind::Signed, 1).await;
    let last = file(&svc, &ctx, &env.id, FileKind::Signed, 2).await;
    assert_eq!((pages(&first), pages(&last)), (1, 2));
    assert!(text_of(&last).contains("Ada Lovelace"));
}

#[tokio::test]
async fn explicit_fields_name_a_document_of_the_envelope() {
    let (svc, ctx) = service().await;
    let docs = || {
        vec![
            upload("a.pdf", simple_pdf(&["A {{signature:Client}}"])),
            upload("b.pdf", simple_pdf(&["B"])),
        ]
    };
    let field = |document: Value| {
        json!({"signers": [{"name": "Ada", "email": "ada@example.com"}],
               "fields": [{"type": "text", "role": "Client", "key": "note", "page": 1,
                           "x": 72, "y": 72, "width": 100, "height": 20,
                           "document": document}]})
    };
    let env = svc
        .create_envelope(&ctx, params(field(json!(2)), docs()).unwrap())
        .await
        .unwrap();
    assert_eq!(env.documents.len(), 2);
    let e = svc
        .create_envelope(&ctx, params(field(json!(3)), docs()).unwrap())
        .await
        .unwrap_err();
    assert_eq!(e.param().as_deref(), Some("fields.0.document"));
    for bad in [json!(0), json!(11), json!("2"), json!(1.5)] {
        let e = svc
            .create_envelope(&ctx, params(field(bad.clone()), docs()).unwrap())
            .await
            .unwrap_err();
        assert_eq!(e.param().as_deref(), Some("fields.0.document"), "{bad}");
    }
}

/// A blob store that counts whole reads and streamed reads.
#[derive(Default)]
struct CountingBlobs {
    inner: envelope_core::store::MemoryBlobStore,
    whole: std::sync::atomic::AtomicUsize,
    streamed: std::sync::atomic::AtomicUsize,
}

#[async_trait::async_trait]
impl envelope_core::BlobStore for CountingBlobs {
    async fn put(
        &self,
        key: &str,
        bytes: bytes::Bytes,
        at: envelope_core::clock::Timestamp,
    ) -> envelope_core::store::StoreResult<()> {
        self.inner.put(key, bytes, at).await
    }
    async fn get(&self, key: &str) -> envelope_core::store::StoreResult<Option<bytes::Bytes>> {
        self.whole.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.inner.get(key).await
    }
    async fn get_stream(
        &self,
        key: &str,
    ) -> envelope_core::store::StoreResult<Option<envelope_core::store::BlobStream>> {
        self.streamed
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.inner.get_stream(key).await
    }
    async fn list(
        &self,
        after: Option<&str>,
        limit: usize,
    ) -> envelope_core::store::StoreResult<Vec<envelope_core::store::BlobInfo>> {
        self.inner.list(after, limit).await
    }
    async fn delete(&self, key: &str) -> envelope_core::store::StoreResult<bool> {
        self.inner.delete(key).await
    }
}

#[tokio::test]
async fn a_signers_document_is_stamped_once_per_version_and_read_as_it_is_sent() {
    use std::sync::atomic::Ordering::SeqCst;
    let blobs = std::sync::Arc::new(CountingBlobs::default());
    let svc = SigningService::builder().blobs(blobs.clone()).build();
    let acct = svc.admin().create_account("Acme").await.unwrap();
    let ctx = svc.authenticate(&acct.test_key.secret).await.unwrap();
    let original = simple_pdf(&[
        "Contract",
        "Client: {{signature:Client}}",
        "Provider: {{signature:Provider}}",
    ]);
    let p = params(
        json!({"signers": [
                   {"name": "Ada Lovelace", "email": "ada@example.com", "role": "Client"},
                   {"name": "Paul Provider", "email": "paul@example.com", "role": "Provider"}],
               "delivery": "embedded"}),
        vec![upload("contract.pdf", original.clone())],
    )
    .unwrap();
    let env = svc.create_envelope(&ctx, p).await.unwrap();
    let client = token(
        &svc.signing_url(&ctx, &env.id, Some("Client"))
            .await
            .unwrap()
            .url,
    );
    let provider = token(
        &svc.signing_url(&ctx, &env.id, Some("Provider"))
            .await
            .unwrap()
            .url,
    );

    // Eight readers at once: one whole read of the original (to stamp this version's update),
    // then every reader streams it.
    let (whole, streamed) = (blobs.whole.load(SeqCst), blobs.streamed.load(SeqCst));
    let bodies =
        futures_util::future::join_all((0..8).map(|_| svc.signing_document_body(&client, None, 1)))
            .await;
    let mut shown = Vec::new();
    for body in bodies {
        let (name, body) = body.unwrap();
        assert_eq!(name, "contract.pdf");
        let size = body.size();
        let bytes = body.collect().await.unwrap();
        assert_eq!(bytes.len() as u64, size);
        shown.push(bytes);
    }
    assert!(shown.iter().all(|b| *b == shown[0]));
    assert!(shown[0].starts_with(&original) && shown[0].len() > original.len());
    assert_eq!(blobs.whole.load(SeqCst) - whole, 1, "stamped once");
    assert_eq!(blobs.streamed.load(SeqCst) - streamed, 8);
    // The same version again (the other link of the same envelope too): kept, not stamped.
    let (_, again) = svc.signing_document_n(&provider, None, 1).await.unwrap();
    assert_eq!(again, shown[0]);
    assert_eq!(blobs.whole.load(SeqCst) - whole, 1);

    // A new version (the client signed) shows the client's signature to the provider.
    let mut input = SignInput {
        consent: true,
        ..SignInput::default()
    };
    input.values.insert(
        "Client_signature".into(),
        SignerValue::Typed("Ada One".into()),
    );
    svc.sign(&client, None, input, &ClientInfo::default())
        .await
        .unwrap();
    let (_, after) = svc.signing_document_n(&provider, None, 1).await.unwrap();
    assert!(after.starts_with(&original));
    assert!(text_of(&after).contains("Ada One"), "{}", text_of(&after));
    assert!(!text_of(&shown[0]).contains("Ada One"));
}
