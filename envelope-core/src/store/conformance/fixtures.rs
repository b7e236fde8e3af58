//! Records for the conformance suite: valid, distinct, and tagged with fresh random IDs so that
//! clauses can share one store without seeing each other's rows.

use std::collections::BTreeMap;

use crate::clock::Timestamp;
use crate::ids::{self, AccountId, ApiKeyId};
use crate::model::{
    Account, ApiKey, Delivery, EndpointStatus, EnvelopeRecord, EnvelopeStatus, Event, EventData,
    EventRecord, EventType, Mode, Scope, Signer, SignerRecord, SignerStatus, SignerValue,
    StoredFile, TemplateRecord, WebhookEndpointRecord,
};
use crate::store::{BuilderToken, FileLink, SigningToken, Store};

/// A fixed instant plus `ms` milliseconds.
pub fn t(ms: i64) -> Timestamp {
    Timestamp::from_millis(1_767_225_600_000 + ms).expect("valid timestamp")
}

/// The mode that is not `m`: live for test, test for live.
pub fn other_mode(m: Mode) -> Mode {
    match m {
        Mode::Test => Mode::Live,
        Mode::Live => Mode::Test,
    }
}

/// An account with a fresh ID, a name full of characters that need escaping, `allowance` live
/// signatures a month and no storage quota. Not inserted.
pub fn account(allowance: u32) -> Account {
    Account {
        id: AccountId::new(),
        name: "Acme \"Widgets\" & Sons".into(),
        monthly_allowance: allowance,
        created_at: t(0),
        storage_quota: None,
        test_email_daily_limit: None,
        live_email_daily_limit: None,
    }
}

/// An unrevoked key of `account` in `mode`, with a fresh ID and the digest of a fresh secret.
/// Not inserted.
pub fn api_key(account: &AccountId, mode: Mode) -> ApiKey {
    let secret = format!("sk_{}_{}", mode.as_str(), ids::new_token());
    ApiKey {
        id: ApiKeyId::new(),
        account: account.clone(),
        mode,
        prefix: secret[..12].into(),
        hash: ids::digest(&secret),
        created_at: t(1),
        revoked_at: None,
    }
}

/// Inserts a fresh account (no keys) and returns its test scope.
pub async fn new_scope(store: &dyn Store, allowance: u32) -> Scope {
    let a = account(allowance);
    store.insert_account(&a, &[]).await.expect("insert account");
    Scope {
        account: a.id,
        mode: Mode::Test,
    }
}

fn file(name: &str) -> StoredFile {
    StoredFile {
        blob: format!("blob_{}", ids::random_base62(32)),
        file_name: name.into(),
        size: 1234,
        sha256: ids::sha256_hex(name.as_bytes()),
        delta: None,
        sha256_state: None,
    }
}

/// A version 1 template of `scope`, not archived, with two roles, two pages of different sizes,
/// no fields and a fresh file blob. Not inserted.
pub fn template(scope: &Scope) -> TemplateRecord {
    TemplateRecord {
        id: ids::TemplateId::new(),
        account: scope.account.clone(),
        mode: scope.mode,
        version: 1,
        name: "NDA".into(),
        description: Some("Mutual, 2 years — ünïcode".into()),
        roles: vec!["client".into(), "witness".into()],
        fields: vec![],
        page_count: 2,
        page_sizes: vec![(612.0, 792.0), (595.28, 841.89)],
        created_at: t(10),
        updated_at: t(10),
        archived: false,
        file: file("nda.pdf"),
    }
}

/// A version 1 draft envelope of `scope`, made from no template, with one pending signer (who
/// has a value), metadata, sender data and a fresh original blob. Not inserted.
pub fn envelope(scope: &Scope) -> EnvelopeRecord {
    let signer = SignerRecord {
        signer: Signer {
            id: ids::SignerId::new(),
            role: "client".into(),
            name: "Ada".into(),
            email: "ada@example.com".into(),
            order: 1,
            status: SignerStatus::Pending,
            viewed_at: None,
            signed_at: None,
            declined_at: None,
            decline_reason: None,
            auth: None,
            locale: None,
            last_email: None,
            kind: Default::default(),
            in_person: None,
        },
        sent_at: None,
        last_reminded_at: None,
        consented_at: None,
        ip_address: Some("192.0.2.1".into()),
        user_agent: None,
        values: BTreeMap::from([("sig".into(), SignerValue::Typed("Ada".into()))]),
        reassignments: vec![],
        identity: None,
        links: Vec::new(),
        links_not_kept: Default::default(),
        acted_via: None,
        locks: Vec::new(),
        locks_not_kept: 0,
    };
    EnvelopeRecord {
        id: ids::EnvelopeId::new(),
        account: scope.account.clone(),
        mode: scope.mode,
        version: 1,
        status: EnvelopeStatus::Draft,
        name: "Lease".into(),
        template: None,
        delivery: Delivery::Email,
        signing_order: false,
        signers: vec![signer],
        cc: vec![],
        metadata: BTreeMap::from([("order".into(), "42".into())]),
        void_reason: None,
        created_at: t(20),
        sent_at: None,
        completed_at: None,
        voided_at: None,
        expires_at: None,
        expires_in_days: Some(30),
        subject: None,
        message: Some("Please sign".into()),
        fields: vec![],
        data: BTreeMap::from([("check".into(), SignerValue::Checkbox(true))]),
        signature_page: true,
        original: file("lease.pdf"),
        signed: None,
        audit_trail: None,
        page_count: Some(1),
        more_documents: vec![],
        emails: vec![],
        files_deleted_at: None,
        seal: None,
        corrections: Vec::new(),
        bulk_send: None,
    }
}

/// The next version of `e`, as a writer that read `e` would produce it.
pub fn next(e: &EnvelopeRecord) -> EnvelopeRecord {
    let mut n = e.clone();
    n.version += 1;
    n
}

/// An event of type `kind` about `e`, in `e`'s scope, with a fresh ID.
pub fn event(e: &EnvelopeRecord, kind: EventType) -> EventRecord {
    EventRecord {
        account: e.account.clone(),
        mode: e.mode,
        event: Event {
            id: ids::EventId::new(),
            object: "event".into(),
            kind,
            livemode: e.mode.is_live(),
            created_at: t(30),
            data: EventData {
                object: crate::model::EventObject::Envelope(e.view()),
                signer: None,
                previous: None,
                changes: None,
                cc: None,
                email: None,
                until: None,
            },
        },
    }
}

/// A webhook endpoint of `scope` with status `status`, subscribed to the event types `events`,
/// with a fresh ID and secret. Not inserted.
pub fn endpoint(scope: &Scope, events: &[&str], status: EndpointStatus) -> WebhookEndpointRecord {
    WebhookEndpointRecord {
        id: ids::WebhookEndpointId::new(),
        account: scope.account.clone(),
        mode: scope.mode,
        url: "https://example.com/hook".into(),
        events: events.iter().map(|s| s.to_string()).collect(),
        description: None,
        status,
        secret: format!("{}{}", ids::WEBHOOK_SECRET, ids::new_token()),
        created_at: t(5),
        previous_secret: None,
        previous_secret_expires_at: None,
    }
}

/// A signing link for the first signer of `e`, valid for a day, stored by the digest of a fresh
/// token. Not inserted.
pub fn signing_token(e: &EnvelopeRecord) -> SigningToken {
    SigningToken {
        token_hash: ids::digest(&ids::new_token()),
        account: e.account.clone(),
        mode: e.mode,
        envelope: e.id.clone(),
        signer: e.signers[0].signer.id.clone(),
        created_at: t(40),
        expires_at: t(86_400_000),
        // Stored with the token's document, so a round trip shows it is kept (extensions E8).
        issued_via: Some(crate::model::LinkVia::Api),
    }
}

/// A download link valid for an hour to a fresh blob stored as a delta (it names its base
/// blob), stored by the digest of a fresh token. Not inserted.
pub fn file_link() -> FileLink {
    FileLink {
        token_hash: ids::digest(&ids::new_token()),
        blob: format!("blob_{}", ids::random_base62(32)),
        file_name: "signed.pdf".into(),
        expires_at: t(3_600_000),
        // A signed copy stored as a delta: the link names the blob it follows too.
        base: Some(format!("blob_{}", ids::random_base62(32))),
        archive: None,
        content_type: None,
    }
}

/// A builder link to envelope `e` (extensions E11), valid for an hour, with a locale and a
/// return URL so that a round trip shows they are kept. Not inserted.
pub fn builder_token(e: &EnvelopeRecord) -> BuilderToken {
    BuilderToken {
        token_hash: ids::digest(&ids::new_token()),
        account: e.account.clone(),
        mode: e.mode,
        key_hash: ids::digest("sk_test_conformance"),
        target: crate::model::BuilderTarget::Envelope(e.id.clone()),
        locale: Some("de-CH".into()),
        return_url: Some("https://app.example.com/done?x=1&y=\"2\"".into()),
        created_at: t(40),
        expires_at: t(3_600_040),
    }
}
