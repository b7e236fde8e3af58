//! Events: the record of every transition, listed by the API and delivered to webhooks.

use serde::{Deserialize, Serialize};

use super::{BulkSend, Envelope, Mode};
use crate::clock::Timestamp;
use crate::ids::EventId;
use crate::ids::{AccountId, SignerId};

/// An event's `type`: which transition it records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EventType {
    /// `envelope.created`: an envelope was created as a draft.
    #[serde(rename = "envelope.created")]
    Created,
    /// `envelope.sent`: the envelope was sent to its signers.
    #[serde(rename = "envelope.sent")]
    Sent,
    /// `envelope.signer_viewed`: a signer opened the document; `data.signer` is who.
    #[serde(rename = "envelope.signer_viewed")]
    SignerViewed,
    /// `envelope.signer_completed`: a signer signed; `data.signer` is who.
    #[serde(rename = "envelope.signer_completed")]
    SignerCompleted,
    /// `envelope.signer_declined`: a signer declined; `data.signer` is who.
    #[serde(rename = "envelope.signer_declined")]
    SignerDeclined,
    /// `envelope.completed`: every signer signed and the signed PDF is ready.
    #[serde(rename = "envelope.completed")]
    Completed,
    /// `envelope.voided`: the sender voided the envelope.
    #[serde(rename = "envelope.voided")]
    Voided,
    /// An email to a signer could not be sent: its retry schedule is used up or the mail server
    /// refused it for good. `data.signer` is the recipient, `data.email` the email.
    #[serde(rename = "envelope.email_failed")]
    EmailFailed,
    /// A signer's place was handed to someone else (extensions E3); `data.previous` names who
    /// held it.
    #[serde(rename = "signer.reassigned")]
    SignerReassigned,
    /// Too many wrong codes locked a signer's link (extensions E8); `data.until` is when the
    /// lock ends, `null` when only the sender can lift it (`POST .../unlock` or a reassign).
    #[serde(rename = "signer.locked")]
    SignerLocked,
    /// `envelope.seal_upgraded`: a completed envelope's seals reached a higher PAdES level
    /// (extensions E10): what was missing at completion was added as a further incremental
    /// update; `object.seal` shows the level now.
    #[serde(rename = "envelope.seal_upgraded")]
    SealUpgraded,
    /// `envelope.corrected`: a sent envelope nobody had signed was changed (extensions E14);
    /// `data.changes` names what changed.
    #[serde(rename = "envelope.corrected")]
    Corrected,
    /// `bulk_send.completed`: every row of a bulk send was made into an envelope or failed
    /// (extensions E12); `data.object` is the bulk send.
    #[serde(rename = "bulk_send.completed")]
    BulkSendCompleted,
}

impl EventType {
    /// Every event type, in the order above.
    pub const ALL: [EventType; 13] = [
        EventType::Created,
        EventType::Sent,
        EventType::SignerViewed,
        EventType::SignerCompleted,
        EventType::SignerDeclined,
        EventType::Completed,
        EventType::Voided,
        EventType::EmailFailed,
        EventType::SignerReassigned,
        EventType::SignerLocked,
        EventType::SealUpgraded,
        EventType::Corrected,
        EventType::BulkSendCompleted,
    ];

    /// The wire `type`, e.g. `envelope.completed`.
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Created => "envelope.created",
            EventType::Sent => "envelope.sent",
            EventType::SignerViewed => "envelope.signer_viewed",
            EventType::SignerCompleted => "envelope.signer_completed",
            EventType::SignerDeclined => "envelope.signer_declined",
            EventType::Completed => "envelope.completed",
            EventType::Voided => "envelope.voided",
            EventType::EmailFailed => "envelope.email_failed",
            EventType::SignerReassigned => "signer.reassigned",
            EventType::SignerLocked => "signer.locked",
            EventType::SealUpgraded => "envelope.seal_upgraded",
            EventType::Corrected => "envelope.corrected",
            EventType::BulkSendCompleted => "bulk_send.completed",
        }
    }

    /// Reads a wire `type`; `None` for an unknown one.
    pub fn parse(s: &str) -> Option<EventType> {
        EventType::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

/// `data.signer` of signer events: `{id, role, name, email, order, status}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SignerRef {
    /// The signer's ID, `sgn_...`.
    pub id: SignerId,
    /// The signer's role, as named on the envelope or template.
    pub role: String,
    /// The signer's name.
    pub name: String,
    /// The signer's email address.
    pub email: String,
    /// The signer's position in the signing sequence.
    pub order: u32,
    /// Where the signer stands, right after the event.
    pub status: super::SignerStatus,
    /// What the recipient does (extensions E13): `signer`, `approver` or `viewer`.
    #[serde(default)]
    pub kind: super::SignerKind,
}

/// What an event's `data.object` is: the envelope of every `envelope.*` and `signer.*` event,
/// the bulk send of `bulk_send.completed` (extensions E12). Written as the object itself; each
/// says what it is in its own `object` member.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
// Nearly every event is about an envelope: boxing it would cost every event an allocation to
// save the few bulk send events some bytes.
#[allow(clippy::large_enum_variant)]
pub enum EventObject {
    /// The whole envelope as it was right after the event, metadata included.
    Envelope(Envelope),
    /// The bulk send as it was right after the event.
    BulkSend(BulkSend),
}

impl EventObject {
    /// The ID of the object, as the API writes it.
    pub fn id(&self) -> &str {
        match self {
            EventObject::Envelope(e) => e.id.as_str(),
            EventObject::BulkSend(b) => b.id.as_str(),
        }
    }

    /// The envelope, for an event about one.
    pub fn envelope(&self) -> Option<&Envelope> {
        match self {
            EventObject::Envelope(e) => Some(e),
            EventObject::BulkSend(_) => None,
        }
    }

    /// The bulk send, for `bulk_send.completed`.
    pub fn bulk_send(&self) -> Option<&BulkSend> {
        match self {
            EventObject::Envelope(_) => None,
            EventObject::BulkSend(b) => Some(b),
        }
    }
}

/// An event's `data`: the object, and what the event is about; keys that do not apply are left
/// out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventData {
    /// The object as it was right after the event: the envelope, or the bulk send of
    /// `bulk_send.completed`.
    pub object: EventObject,
    /// The signer a signer event (or an `envelope.email_failed` about a signer) is about.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub signer: Option<SignerRef>,
    /// The carbon-copy recipient an `envelope.email_failed` event is about.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cc: Option<super::CcRecipient>,
    /// Who held the signer's place before a `signer.reassigned` event.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub previous: Option<PreviousSigner>,
    /// What a correction changed (`envelope.corrected`, extensions E14): `signers.<role>.name`,
    /// `signers.<role>.email`, `fields`, `subject`, `message`, `metadata`, `expires_at`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub changes: Option<Vec<String>>,
    /// The email an `envelope.email_failed` event is about.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub email: Option<super::SignerEmail>,
    /// `signer.locked`: when the lock ends, `Some(None)` (written `null`) when only the sender
    /// can lift it. Absent from every other event.
    #[serde(
        skip_serializing_if = "Option::is_none",
        default,
        deserialize_with = "present"
    )]
    pub until: Option<Option<Timestamp>>,
}

/// Reads a key that is present as `Some`, even when its value is `null` (`until` of
/// `signer.locked`); a missing key stays `None` through `default`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<Timestamp>>, D::Error> {
    Option::<Timestamp>::deserialize(d).map(Some)
}

/// `data.previous` of `signer.reassigned`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreviousSigner {
    /// The previous signer's name.
    pub name: String,
    /// The previous signer's email address.
    pub email: String,
}

/// The wire event (interface.md 2.5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// The event's ID, `evt_...`.
    pub id: EventId,
    /// Always `event`.
    pub object: String,
    /// The event type; the wire key is `type`.
    #[serde(rename = "type")]
    pub kind: EventType,
    /// `true` for live-mode events.
    pub livemode: bool,
    /// When the event happened.
    pub created_at: Timestamp,
    /// The envelope and what the event is about.
    pub data: EventData,
}

/// An event as stored: the wire event plus its owner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventRecord {
    /// The owning account's ID, `acct_...`.
    pub account: AccountId,
    /// Test or live: the mode of the envelope it is about.
    pub mode: Mode,
    /// The wire event.
    pub event: Event,
}

impl EventRecord {
    /// The event's ID, `evt_...`.
    pub fn id(&self) -> &EventId {
        &self.event.id
    }

    /// Clears the personal data of the snapshot and of the email the event is about, as live
    /// retention does to the envelope's record ([`super::EnvelopeRecord::erase_personal_data`]).
    /// True when anything changed (a store rewrites only those events).
    pub fn erase_personal_data(&mut self) -> bool {
        let before = self.event.data.clone();
        let data = &mut self.event.data;
        if let EventObject::Envelope(object) = &mut data.object {
            object.erase_personal_data();
        }
        if let Some(e) = &mut data.email {
            e.last_error = None;
        }
        *data != before
    }
}

#[cfg(test)]
mod until_tests {
    use super::*;

    #[test]
    fn until_is_null_only_when_present() {
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct U {
            #[serde(
                skip_serializing_if = "Option::is_none",
                default,
                deserialize_with = "present"
            )]
            until: Option<Option<Timestamp>>,
        }
        for (u, json) in [
            (U { until: None }, "{}"),
            (U { until: Some(None) }, r#"{"until":null}"#),
            (
                U {
                    until: Some(Timestamp::parse("2027-03-10T12:00:00.000Z")),
                },
                r#"{"until":"2027-03-10T12:00:00.000Z"}"#,
            ),
        ] {
            assert_eq!(serde_json::to_string(&u).unwrap(), json);
            assert_eq!(serde_json::from_str::<U>(json).unwrap(), u);
        }
    }
}
