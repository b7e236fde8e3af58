//! Verifying a signer's identity behind a signing link (extensions E2): the `auth` parameter of
//! a signer, entering a code, asking for an emailed code, and arming that code when its email
//! goes out.
//!
//! A right code earns a *grant*: a random secret handed to the signer's browser (the signing
//! page keeps it in a cookie), of which the record keeps only a salted digest, good for
//! [`rules::identity::GRANT_HOURS`]. Opening the link, the document, signing and declining all
//! take the grant; without a live one a signer with `auth` gets
//! [`LinkState::VerificationRequired`] or [`Error::VerificationRequired`], never the document.
//! The rules themselves (attempts, lockout, expiry, the rate of code emails) are
//! `rules/identity.rs`.
//!
//! This module must never log or return a code, and stores none in the clear.

use serde_json::Value;

use super::{ClientInfo, MAX_ATTEMPTS, check_link, record_client, unknown_link};
use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::ids;
use crate::mail::EmailKind;
use crate::model::reach;
use crate::model::{AuthMethod, EnvelopeRecord, EventType, IdentityRecord, LockEntry};
use crate::rules::identity::{self as rule, Secret};
use crate::service::SigningService;
use crate::service::email_content::{self as content, Context};
use crate::service::events;
use crate::service::notify::Rendered;
use crate::service::params::Obj;
use crate::store::StoreError;

/// How a signer must prove who they are (`auth` of a signer entry or of a reassignment).
#[derive(Clone, PartialEq, Eq)]
pub enum SignerAuth {
    /// A code the sender gives the signer out of band (4 to 32 characters). Stored hashed.
    AccessCode(String),
    /// A 6-digit code emailed to the signer when they open the link.
    EmailCode,
}

impl std::fmt::Debug for SignerAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SignerAuth::AccessCode(_) => f.write_str("AccessCode([redacted])"),
            SignerAuth::EmailCode => f.write_str("EmailCode"),
        }
    }
}

impl SignerAuth {
    /// `{"method": "access_code", "access_code": "..."}` or `{"method": "email_code"}` at `path`
    /// (`signers.0.auth`, `auth`); errors name the member (`signers.0.auth.access_code`).
    pub fn parse(path: &str, v: &Value) -> Result<SignerAuth> {
        let mut o = Obj::new(path, v)?;
        let method = o.required_string("method")?;
        let auth = match method.as_str() {
            "access_code" => SignerAuth::AccessCode(o.required_string("access_code")?),
            "email_code" => SignerAuth::EmailCode,
            _ => {
                return Err(Error::invalid(
                    o.at("method"),
                    "must be access_code or email_code",
                ));
            }
        };
        o.finish()?;
        auth.validate(path)?;
        Ok(auth)
    }

    /// Checks the access code (also for values built in Rust); `path` is the `auth` member's.
    pub fn validate(&self, path: &str) -> Result<()> {
        match self {
            SignerAuth::AccessCode(code) => {
                rule::check_access_code(&format!("{path}.access_code"), code)
            }
            SignerAuth::EmailCode => Ok(()),
        }
    }

    /// The authentication method this check uses.
    pub fn method(&self) -> AuthMethod {
        match self {
            SignerAuth::AccessCode(_) => AuthMethod::AccessCode,
            SignerAuth::EmailCode => AuthMethod::EmailCode,
        }
    }

    /// What the record keeps: a fresh salt, and the access code's digest only.
    pub(crate) fn to_record(&self) -> IdentityRecord {
        let mut id = IdentityRecord::new(self.method(), ids::random_base62(22));
        if let SignerAuth::AccessCode(code) = self {
            id.access_code_hash = Some(rule::digest(&id, Secret::AccessCode, code));
        }
        id
    }
}

/// What a signer's browser gets for the right code: the secret to present on every later
/// request of this link (`grant` of `open_signing_link`, `signing_document`, `sign`, `decline`),
/// until `expires_at`. Redacted in `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct VerificationGrant {
    /// The one-time code or token to give the signer.
    pub secret: String,
    /// When the code stops being accepted.
    pub expires_at: Timestamp,
}

impl std::fmt::Debug for VerificationGrant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VerificationGrant")
            .field("secret", &"[redacted]")
            .field("expires_at", &self.expires_at)
            .finish()
    }
}

/// Where a signer's identity check stands, for the page that asks for the code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verification {
    /// The authentication method required of the signer.
    pub method: AuthMethod,
    /// Wrong codes that may still be entered before the link locks.
    pub attempts_left: u32,
    /// Set while the link is locked for a time.
    pub locked_until: Option<Timestamp>,
    /// The link is locked until the sender unlocks it or reassigns the signer (extensions E8).
    pub held: bool,
    /// `email_code`: when a code email was last asked for (`None`: never).
    pub code_requested_at: Option<Timestamp>,
    /// `email_code`: a code asked for is on its way or still usable. When not, the page offers
    /// to send one: no code is emailed unless the signer asks (extensions E8).
    pub code_outstanding: bool,
    /// `email_code`: from when a new code may be asked for (`None`: now).
    pub next_code_at: Option<Timestamp>,
}

impl Verification {
    pub(crate) fn of(id: &IdentityRecord, now: Timestamp) -> Verification {
        let next_code_at = id
            .code_requested_at
            .map(|t| t + chrono::Duration::seconds(rule::CODE_EMAIL_INTERVAL_SECS))
            .filter(|t| *t > now && id.method == AuthMethod::EmailCode);
        Verification {
            method: id.method,
            attempts_left: rule::attempts_left(id, now),
            locked_until: rule::locked(id, now),
            held: id.held,
            code_requested_at: id.code_requested_at,
            code_outstanding: id.method == AuthMethod::EmailCode && rule::code_outstanding(id, now),
            next_code_at,
        }
    }
}

/// Refuses a signer with `auth` whose browser holds no live grant.
pub(super) fn check_grant(
    rec: &EnvelopeRecord,
    i: usize,
    grant: Option<&str>,
    now: Timestamp,
) -> Result<()> {
    if rule::needs_verification(rec.signers[i].identity.as_ref(), grant, now) {
        return Err(Error::VerificationRequired);
    }
    Ok(())
}

impl SigningService {
    /// Checks a code the signer entered (extensions E2). The right code returns a
    /// [`VerificationGrant`] for the browser; a wrong one [`Error::IncorrectCode`] with the
    /// attempts left, the fifth in a row [`Error::VerificationLocked`] (the next step of the
    /// lock ladder, `rules::identity::LOCK_LADDER`, extensions E8); an emailed code that expired
    /// or was used [`Error::CodeExpired`]. The count and the lock are written to the record, so
    /// they hold across processes; each lock is in the signer's record for the audit trail and
    /// emits `signer.locked`.
    pub async fn verify_signer(
        &self,
        token: &str,
        code: &str,
        client: &ClientInfo,
    ) -> Result<VerificationGrant> {
        // Longer than any code: not worth a digest, and counts like any wrong code.
        let code = if code.len() > 256 { "" } else { code };
        for _ in 0..MAX_ATTEMPTS {
            let (t, current) = self.resolve_token(token).await?;
            let i = current.signer_index(&t.signer).ok_or_else(unknown_link)?;
            let now = self.now();
            check_link(&current, &t, i, now)?;
            let mut next = current.clone();
            let Some(id) = next.signers[i].identity.as_mut() else {
                return Err(Error::state("This signer has no identity check."));
            };
            let before = current.signers[i].identity.clone();
            let outcome = rule::enter_code(id, code, now);
            let began = before.as_ref().and_then(|b| rule::lock_began(b, id));
            let grant = match &outcome {
                Ok(()) => {
                    let secret = ids::new_token();
                    let hash = rule::digest(id, Secret::Grant, &secret);
                    let expires_at = rule::add_grant(id, hash, now);
                    record_client(&mut next, i, client);
                    Some(VerificationGrant { secret, expires_at })
                }
                Err(_) => None,
            };
            if next == current {
                return Err(outcome.err().unwrap_or(Error::VerificationRequired));
            }
            let mut events = Vec::new();
            if let Some(until) = began {
                let s = &mut next.signers[i];
                let entry = LockEntry::Locked { at: now, until };
                reach::record_lock(&mut s.locks, &mut s.locks_not_kept, entry);
                let mut ev = events::record(&next, EventType::SignerLocked, Some(i), now);
                ev.event.data.until = Some(until);
                events.push(ev);
            }
            next.version = current.version + 1;
            match self.inner.store.update_envelope(&next, &events, None).await {
                Ok(()) => {
                    return match grant {
                        Some(g) => Ok(g),
                        None => Err(outcome.err().unwrap_or(Error::VerificationRequired)),
                    };
                }
                Err(StoreError::Conflict) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(Error::Internal("verifying kept conflicting".into()))
    }

    /// "Send me a code" (extensions E2, `email_code`): queues a code email to the signer, at
    /// most once a minute ([`Error::CodeRecentlySent`] with the seconds to wait) and
    /// `rules::identity::CODE_EMAILS_PER_DAY` times in 24 hours ([`Error::CodeDailyLimit`]),
    /// not while the link is locked. This is the only way a code is emailed: the signer's own
    /// request from the page, never the opening of a link (extensions E8). The code is made
    /// when the email is sent (see `render_code`).
    pub async fn send_signer_code(&self, token: &str, client: &ClientInfo) -> Result<()> {
        for _ in 0..MAX_ATTEMPTS {
            let (t, current) = self.resolve_token(token).await?;
            let i = current.signer_index(&t.signer).ok_or_else(unknown_link)?;
            let now = self.now();
            check_link(&current, &t, i, now)?;
            let mut next = current.clone();
            let Some(id) = next.signers[i].identity.as_mut() else {
                return Err(Error::state("This signer has no identity check."));
            };
            rule::request_code(id, now)?;
            record_client(&mut next, i, client);
            if self.write_code_request(&current, next, now).await? {
                return Ok(());
            }
        }
        Err(Error::Internal("asking for a code kept conflicting".into()))
    }

    /// Writes a change that asked for a code email, with that email queued; `false` on a
    /// conflict (the caller starts over).
    pub(super) async fn write_code_request(
        &self,
        current: &EnvelopeRecord,
        mut next: EnvelopeRecord,
        now: Timestamp,
    ) -> Result<bool> {
        let emails = self.queue_emails(Some(current), &mut next, now);
        next.version = current.version + 1;
        match self.inner.store.update_envelope(&next, &[], None).await {
            Ok(()) => {
                self.dispatch_emails(&next, emails);
                Ok(true)
            }
            Err(StoreError::Conflict) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// The message of a queued code email. The code is made here, at send time, and its digest
    /// written to the record *before* the message leaves, so the code works as soon as it
    /// arrives and the record never holds it in the clear. A send that then fails leaves a
    /// digest nobody has the code of; the retry makes a new code. A request older than a
    /// code's life, a locked link or a signer who can no longer sign cancels the email.
    pub(crate) async fn render_code(
        &self,
        rec: &EnvelopeRecord,
        recipient: &str,
        now: Timestamp,
    ) -> Result<Rendered> {
        let code = ids::random_digits(rule::EMAIL_CODE_DIGITS);
        let scope = rec.scope();
        for _ in 0..MAX_ATTEMPTS {
            let Some(current) = self.inner.store.get_envelope(&scope, &rec.id).await? else {
                return Ok(Rendered::Cancel("the envelope is gone"));
            };
            let Some(i) = current.signer_index(recipient) else {
                return Ok(Rendered::Cancel(
                    "the recipient is no longer on the envelope",
                ));
            };
            if !crate::rules::actionable(&current, now).contains(&i) {
                return Ok(Rendered::Cancel("the signer can no longer sign"));
            }
            let mut next = current.clone();
            let Some(id) = next.signers[i].identity.as_mut() else {
                return Ok(Rendered::Cancel("the signer has no identity check"));
            };
            let hash = rule::digest(id, Secret::EmailCode, &code);
            if let Err(why) = rule::arm_code(id, hash, now) {
                return Ok(Rendered::Cancel(why));
            }
            next.version = current.version + 1;
            match self.inner.store.update_envelope(&next, &[], None).await {
                Ok(()) => {
                    let s = &next.signers[i].signer;
                    let ctx = Context {
                        service: &self.inner.settings.service_name,
                        signer: &s.name,
                        document: &next.name,
                        lang: crate::i18n::Lang::for_email(s.locale.as_ref()),
                    };
                    let c = content::code(&ctx, &code, rule::EMAIL_CODE_MINUTES);
                    return Ok(Rendered::Send(crate::mail::Email {
                        kind: EmailKind::Code,
                        to: crate::mail::Mailbox {
                            name: s.name.clone(),
                            email: s.email.clone(),
                        },
                        subject: c.subject,
                        text: c.text,
                        html: Some(c.html),
                        attachments: vec![],
                        envelope: next.id.clone(),
                        mode: next.mode,
                    }));
                }
                Err(StoreError::Conflict) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(Error::Internal("arming a code kept conflicting".into()))
    }
}
