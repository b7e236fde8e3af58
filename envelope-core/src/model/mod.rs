//! Domain records and their wire views.
//!
//! A `*Record` is what a [`crate::Store`] keeps: the whole state, internal parts included (owning
//! account, version, blob references, signer IP addresses). A view (`Envelope`, `Template`, ...) is
//! exactly the wire shape of interface.md and decisions.md, built from a record with `view()`.
//! Nothing here does I/O.

pub mod account;
mod attachment;
mod builder;
pub mod bulk_send;
pub mod email;
pub mod envelope;
pub mod event;
pub mod identity;
pub mod reach;
mod seal_level;
mod sha256_state;
pub mod template;
pub mod webhook;

use serde::{Deserialize, Serialize};

use crate::ids::AccountId;

pub use account::{Account, AccountView, ApiKey, Balance, KeyView, SigningCertificateView};
pub use attachment::{AttachedFile, AttachmentView};
pub use builder::BuilderTarget;
pub use bulk_send::{BulkFailure, BulkRow, BulkSend, BulkSendRecord, BulkSendStatus};
pub use email::{EmailFailure, EmailKind, EmailRecord, EmailStatus, SignerEmail};
pub(crate) use envelope::declined_reason;
pub use envelope::{
    CcRecipient, Changed, Correction, Delivery, Delta, DocumentView, Envelope, EnvelopeFiles,
    EnvelopeRecord, EnvelopeStatus, InPerson, MoreDocument, Reassignment, Signer, SignerKind,
    SignerRecord, SignerStatus, SignerValue, StoredFile,
};
pub use event::{Event, EventData, EventObject, EventRecord, EventType, PreviousSigner, SignerRef};
pub use identity::{AuthMethod, HashedSecret, IdentityRecord, SignerAuthView};
pub use reach::{IssuedLink, LinkVia, LinksNotKept, LockEntry};
pub use seal_level::{EnvelopeSeal, SealLevel, SealRecord};
pub use sha256_state::Sha256State;
pub use template::{Template, TemplateRecord};
pub use webhook::{
    Delivery as WebhookDelivery, DeliveryAttempt, DeliveryNext, DeliveryStatus, DueDelivery,
    EndpointStatus, WebhookEndpoint, WebhookEndpointRecord,
};

/// Test or live. Every piece of data belongs to one mode, chosen by the key that made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Made with a test key: nothing is emailed for real and the data is never live.
    Test,
    /// Made with a live key.
    Live,
}

impl Mode {
    /// The wire value: `test` or `live`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Test => "test",
            Mode::Live => "live",
        }
    }
    /// Whether this is `live` mode.
    pub fn is_live(self) -> bool {
        self == Mode::Live
    }
    /// Reads `test` or `live`; `None` for anything else.
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "test" => Some(Mode::Test),
            "live" => Some(Mode::Live),
            _ => None,
        }
    }
}

/// The partition every query runs in: one account, one mode.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Scope {
    /// The account's ID, `acct_...`.
    pub account: AccountId,
    /// Test or live data of that account.
    pub mode: Mode,
}

/// The list object of interface.md 2.3.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct List<T> {
    /// Always `list`.
    pub object: String,
    /// The path the list was read from, e.g. `/v1/envelopes`.
    pub url: String,
    /// Whether more items follow the last one in `data` (ask again with `starting_after`).
    pub has_more: bool,
    /// The items of this page, in the list's order.
    pub data: Vec<T>,
}

impl<T> List<T> {
    /// A `list` object of `data`, read from `url`.
    pub fn new(url: &str, data: Vec<T>, has_more: bool) -> Self {
        List {
            object: "list".into(),
            url: url.into(),
            has_more,
            data,
        }
    }
}

/// `{id, object, deleted: true}`, the answer to a DELETE.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Deleted {
    /// The ID of the deleted object.
    pub id: String,
    /// The type of the deleted object, e.g. `webhook_endpoint`.
    pub object: String,
    /// Always `true`.
    pub deleted: bool,
}
