//! The two outboxes: work that a committed change leaves behind, sent after the commit and
//! retried on a schedule.
//!
//! | outbox | what it sends | where the work waits |
//! |---|---|---|
//! | [`email`]: [`EmailWorker`], [`EmailSettings`] | the emails queued in envelope records, through the [`Mailer`](crate::Mailer) | `EnvelopeRecord::next_email_at` |
//! | [`webhook`]: [`WebhookWorker`], [`WorkerSettings`] | webhook deliveries, signed, through the [`WebhookSink`](crate::WebhookSink) | the deliveries written with their events |
//!
//! Both are service-level workers that drive the store: they claim work with leases or
//! compare-and-set writes, so several processes on one store never send the same work twice,
//! and record every outcome through the store. The seams they send through (`mail`, `webhook`)
//! only transport; they must never claim, retry or record anything themselves.

mod email;
mod webhook;

pub(crate) use email::InFlight;
pub use email::{EmailDailyLimits, EmailSettings, EmailWorker};
pub use webhook::{WebhookWorker, WorkerSettings};
