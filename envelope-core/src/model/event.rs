//! Events: the record of every transition, listed by the API and delivered to webhooks.

use serde::{Deserialize, Serialize};

use super::{Envelope, Mode};
use crate::clock::Timestamp;
use crate::ids::EventId;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EventType {
    #[serde(rename = "envelope.created")]
    Created,
    #[serde(rename = "envelope.sent")]
    Sent,
    #[serde(rename = "envelope.signer_viewed")]
    SignerViewed,
    #[serde(rename = "envelope.signer_completed")]
    SignerCompleted,
    #[serde(rename = "envelope.signer_declined")]
    SignerDeclined,
    #[serde(rename = "envelope.completed")]
    Completed,
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
}

impl EventType {
    pub const ALL: [EventType; 9] = [
        EventType::Created,
        EventType::Sent,
        EventType::SignerViewed,
        EventType::SignerCompleted,
        EventType::SignerDeclined,
        EventType::Completed,
        EventType::Voided,
        EventType::EmailFailed,
        EventType::SignerReassigned,
    ];

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
        }
    }

    pub fn parse(s: &str) -> Option<EventType> {
        EventType::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

/// `data.signer` of signer events: `{id, role, name, email, order, status}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SignerRef {
    pub id: String,
    pub role: String,
    pub name: String,
    pub email: String,
    pub order: u32,
    pub status: super::SignerStatus,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventData {
    /// The whole envelope as it was right after the event, metadata included.
    pub object: Envelope,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub signer: Option<SignerRef>,
    /// The carbon-copy recipient an `envelope.email_failed` event is about.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cc: Option<super::CcRecipient>,
    /// Who held the signer's place before a `signer.reassigned` event.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub previous: Option<PreviousSigner>,
    /// The email an `envelope.email_failed` event is about.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub email: Option<super::SignerEmail>,
}

/// `data.previous` of `signer.reassigned`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreviousSigner {
    pub name: String,
    pub email: String,
}

/// The wire event (interface.md 2.5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub id: EventId,
    pub object: String,
    #[serde(rename = "type")]
    pub kind: EventType,
    pub livemode: bool,
    pub created_at: Timestamp,
    pub data: EventData,
}

/// An event as stored: the wire event plus its owner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventRecord {
    pub account: String,
    pub mode: Mode,
    pub event: Event,
}

impl EventRecord {
    pub fn id(&self) -> &str {
        &self.event.id
    }
}
