//! The rules of verifying a signer's identity (extensions E2), as plain functions over
//! [`IdentityRecord`]: which code is checked, attempts and the lock ladder (extensions E8), when
//! a code email may go out, how long an emailed code and a grant are good.
//!
//! Nothing here reads a clock or a store, and nothing here sees a secret in the clear except the
//! code being checked: callers hash new secrets with [`digest`] and pass `now`. Counts and locks
//! live in the record, so they hold across processes like every other state.

use chrono::Duration;

use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::ids;
use crate::model::{AuthMethod, HashedSecret, IdentityRecord};

/// Wrong codes in a row that lock the link.
pub const MAX_FAILED_ATTEMPTS: u32 = 5;
/// How long the first lock lasts.
pub const LOCKOUT_MINUTES: i64 = 15;
/// The lock ladder (extensions E8), in minutes: the first lock lasts 15 minutes, the second an
/// hour, the third (`None`) until the sender unlocks the link or reassigns the signer. A right
/// code, an unlock or a reassignment starts the ladder again. At most 15 guesses per link
/// before the sender must act, where a fixed 15-minute lock allowed 480 a day.
pub const LOCK_LADDER: [Option<i64>; 3] = [Some(LOCKOUT_MINUTES), Some(60), None];
/// Code emails one signer may ask for in 24 hours.
pub const CODE_EMAILS_PER_DAY: usize = 10;
/// How long an emailed code is good, from the moment its email is sent.
pub const EMAIL_CODE_MINUTES: i64 = 10;
/// The least time between two code emails to one signer.
pub const CODE_EMAIL_INTERVAL_SECS: i64 = 60;
/// How long a browser that entered the right code may go on without entering it again.
pub const GRANT_HOURS: i64 = 12;
/// Grants kept per signer (several browsers); the oldest go first.
pub const MAX_GRANTS: usize = 5;
/// Digits of an emailed code.
pub const EMAIL_CODE_DIGITS: usize = 6;
/// Characters of an access code.
pub const ACCESS_CODE_CHARS: std::ops::RangeInclusive<usize> = 4..=32;

/// What a stored digest is of (`ids::salted_digest`'s purpose).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Secret {
    AccessCode,
    EmailCode,
    Grant,
}

/// The digest a secret is stored as, salted with this signer's salt.
pub fn digest(id: &IdentityRecord, what: Secret, secret: &str) -> String {
    let purpose = match what {
        Secret::AccessCode => "envelope.access_code.v1",
        Secret::EmailCode => "envelope.email_code.v1",
        Secret::Grant => "envelope.grant.v1",
    };
    ids::salted_digest(purpose, &id.salt, secret)
}

/// An access code as the sender may give it: 4 to 32 printable characters (no control
/// characters, no spaces at either end, which nobody could tell they must type).
pub fn check_access_code(param: &str, code: &str) -> Result<()> {
    let n = code.chars().count();
    if !ACCESS_CODE_CHARS.contains(&n) {
        return Err(Error::invalid(
            param,
            "must be 4 to 32 characters long".to_string(),
        ));
    }
    if code.chars().any(char::is_control) {
        return Err(Error::invalid(
            param,
            "must not contain control characters or line breaks",
        ));
    }
    if code.trim() != code {
        return Err(Error::invalid(param, "must not start or end with a space"));
    }
    Ok(())
}

/// Until when the link is locked, if it is now on a timed lock (see also [`lock`]).
pub fn locked(id: &IdentityRecord, now: Timestamp) -> Option<Timestamp> {
    id.locked_until.filter(|until| *until > now)
}

/// Whether the link is locked now, and until when: `Some(Some(t))` for a timed lock,
/// `Some(None)` until the sender acts, `None` when not locked.
pub fn lock(id: &IdentityRecord, now: Timestamp) -> Option<Option<Timestamp>> {
    if id.held {
        return Some(None);
    }
    locked(id, now).map(Some)
}

/// The lock that a change from `before` to `after` began, if it began one: its end, `None`
/// when the sender must lift it. For the `signer.locked` event and the audit trail.
pub fn lock_began(before: &IdentityRecord, after: &IdentityRecord) -> Option<Option<Timestamp>> {
    if after.held && !before.held {
        return Some(None);
    }
    after
        .locked_until
        .filter(|_| after.locked_until != before.locked_until)
        .map(Some)
}

/// The sender lifts a lock (`POST .../unlock`): codes are checked again, the count and the
/// ladder start again. Refused when the link is not locked.
pub fn unlock(id: &mut IdentityRecord, now: Timestamp) -> Result<()> {
    if lock(id, now).is_none() {
        return Err(Error::state(
            "This signer's link is not locked: there is nothing to unlock.",
        ));
    }
    id.held = false;
    id.locked_until = None;
    id.failed_attempts = 0;
    id.lock_step = 0;
    Ok(())
}

/// How many wrong codes may still be entered before the link locks.
pub fn attempts_left(id: &IdentityRecord, now: Timestamp) -> u32 {
    if lock(id, now).is_some() {
        return 0;
    }
    if id.locked_until.is_some() {
        // A lockout that ended starts the count again.
        return MAX_FAILED_ATTEMPTS;
    }
    MAX_FAILED_ATTEMPTS.saturating_sub(id.failed_attempts)
}

/// Checks a code the signer entered. Right: the failed count and the lock ladder start again,
/// `verified_at` is `now`, an emailed code is used up. Wrong: the count goes up and the fifth
/// wrong code locks the link for the next step of [`LOCK_LADDER`]. While locked, no code is
/// looked at. An expired (or used, or never sent) emailed code is refused without counting: it
/// reveals nothing.
///
/// The record changes on every outcome but `VerificationLocked` and `CodeExpired`: write it
/// whatever this returns.
pub fn enter_code(id: &mut IdentityRecord, given: &str, now: Timestamp) -> Result<()> {
    if let Some(until) = lock(id, now) {
        return Err(Error::VerificationLocked { until });
    }
    if id.locked_until.take().is_some() {
        id.failed_attempts = 0;
    }
    let (expected, what, given) = match id.method {
        AuthMethod::AccessCode => (
            id.access_code_hash.clone(),
            Secret::AccessCode,
            given.trim(),
        ),
        AuthMethod::EmailCode => (
            id.email_code
                .as_ref()
                .filter(|c| c.expires_at > now)
                .map(|c| c.hash.clone()),
            Secret::EmailCode,
            given.trim(),
        ),
    };
    let Some(expected) = expected else {
        return Err(Error::CodeExpired);
    };
    // People type emailed codes with spaces or a dash in the middle ("123 456").
    let given: String = match what {
        Secret::EmailCode => given
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '-')
            .collect(),
        _ => given.to_string(),
    };
    if !given.is_empty() && ids::same_digest(&digest(id, what, &given), &expected) {
        id.failed_attempts = 0;
        id.lock_step = 0;
        id.verified_at = Some(now);
        if what == Secret::EmailCode {
            id.email_code = None;
        }
        return Ok(());
    }
    id.failed_attempts += 1;
    if id.failed_attempts >= MAX_FAILED_ATTEMPTS {
        let step = (id.lock_step as usize).min(LOCK_LADDER.len() - 1);
        id.lock_step = id.lock_step.saturating_add(1);
        let until = LOCK_LADDER[step].map(|m| now + Duration::minutes(m));
        match until {
            Some(t) => id.locked_until = Some(t),
            None => id.held = true,
        }
        // Anything still emailed is of no use behind the lock.
        id.email_code = None;
        return Err(Error::VerificationLocked { until });
    }
    Err(Error::IncorrectCode {
        attempts_left: MAX_FAILED_ATTEMPTS - id.failed_attempts,
    })
}

/// Whether a code email may be asked for now; when not, the error says why (locked, the last
/// one went out less than a minute ago, or [`CODE_EMAILS_PER_DAY`] went out in the last 24
/// hours, with the seconds left).
pub fn may_request_code(id: &IdentityRecord, now: Timestamp) -> Result<()> {
    if id.method != AuthMethod::EmailCode {
        return Err(Error::state(
            "This signer verifies with an access code, not an emailed one.",
        ));
    }
    if let Some(until) = lock(id, now) {
        return Err(Error::VerificationLocked { until });
    }
    let day_ago = now - Duration::hours(24);
    let today: Vec<&Timestamp> = id.code_requests.iter().filter(|t| **t > day_ago).collect();
    if today.len() >= CODE_EMAILS_PER_DAY {
        let until = *today[today.len() - CODE_EMAILS_PER_DAY] + Duration::hours(24);
        return Err(Error::CodeDailyLimit { until });
    }
    if let Some(at) = id.code_requested_at {
        let next = at + Duration::seconds(CODE_EMAIL_INTERVAL_SECS);
        if now < next {
            let ms = (next - now).num_milliseconds();
            return Err(Error::CodeRecentlySent {
                retry_after_secs: (ms as u64).div_ceil(1000).max(1),
            });
        }
    }
    Ok(())
}

/// Asks for a code email now (the caller queues it in the same write). Only a signer's own
/// request does this (a POST from the signing page, extensions E8): opening a link never
/// sends a code, so the link scanners of mail systems send none.
pub fn request_code(id: &mut IdentityRecord, now: Timestamp) -> Result<()> {
    may_request_code(id, now)?;
    id.code_requested_at = Some(now);
    let day_ago = now - Duration::hours(24);
    id.code_requests.retain(|t| *t > day_ago);
    id.code_requests.push(now);
    Ok(())
}

/// Whether an emailed code asked for is still on its way or usable: asked for less than a
/// code's life ago and not used since. The page offers "Send me a code" otherwise.
pub fn code_outstanding(id: &IdentityRecord, now: Timestamp) -> bool {
    id.code_requested_at.is_some_and(|t| {
        now < t + Duration::minutes(EMAIL_CODE_MINUTES) && id.verified_at.is_none_or(|v| v < t)
    })
}

/// The first word of a name: all the code step shows of the signer before the code is right
/// (extensions E8), so that a stranger holding the link learns as little as possible.
pub fn first_name(name: &str) -> &str {
    name.split_whitespace().next().unwrap_or_default()
}

/// Records the digest of a code about to be emailed, good for [`EMAIL_CODE_MINUTES`] from
/// `now`; it replaces any earlier code. Refused (the email is canceled) when the request is
/// older than a code's life (a retried email would bring a code nobody waits for any more) or
/// the link is locked.
pub fn arm_code(id: &mut IdentityRecord, hash: String, now: Timestamp) -> Result<(), &'static str> {
    if id.method != AuthMethod::EmailCode {
        return Err("the signer no longer verifies by email");
    }
    if lock(id, now).is_some() {
        return Err("the signing link is locked");
    }
    let fresh = id
        .code_requested_at
        .is_some_and(|t| now < t + Duration::minutes(EMAIL_CODE_MINUTES));
    if !fresh {
        return Err("the code was asked for too long ago");
    }
    id.email_code = Some(HashedSecret {
        hash,
        expires_at: now + Duration::minutes(EMAIL_CODE_MINUTES),
    });
    Ok(())
}

/// Keeps the digest of a new grant, good for [`GRANT_HOURS`]; expired grants and all but the
/// newest [`MAX_GRANTS`] go.
pub fn add_grant(id: &mut IdentityRecord, hash: String, now: Timestamp) -> Timestamp {
    let expires_at = now + Duration::hours(GRANT_HOURS);
    id.grants.retain(|g| g.expires_at > now);
    id.grants.push(HashedSecret { hash, expires_at });
    let extra = id.grants.len().saturating_sub(MAX_GRANTS);
    id.grants.drain(..extra);
    expires_at
}

/// Whether `grant` is a live grant of this signer.
pub fn grant_valid(id: &IdentityRecord, grant: Option<&str>, now: Timestamp) -> bool {
    let Some(grant) = grant.filter(|g| !g.is_empty() && g.len() <= 128) else {
        return false;
    };
    let hash = digest(id, Secret::Grant, grant);
    id.grants
        .iter()
        .any(|g| g.expires_at > now && ids::same_digest(&g.hash, &hash))
}

/// Whether a signer with this check (if any) must still enter a code, given what the browser
/// holds.
pub fn needs_verification(
    id: Option<&IdentityRecord>,
    grant: Option<&str>,
    now: Timestamp,
) -> bool {
    id.is_some_and(|id| !grant_valid(id, grant, now))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t0() -> Timestamp {
        Timestamp::parse("2027-03-10T12:00:00.000Z").unwrap()
    }

    fn access(code: &str) -> IdentityRecord {
        let mut id = IdentityRecord::new(AuthMethod::AccessCode, "pepper".into());
        id.access_code_hash = Some(digest(&id, Secret::AccessCode, code));
        id
    }

    fn email_armed(code: &str, now: Timestamp) -> IdentityRecord {
        let mut id = IdentityRecord::new(AuthMethod::EmailCode, "salt".into());
        request_code(&mut id, now).unwrap();
        let hash = digest(&id, Secret::EmailCode, code);
        arm_code(&mut id, hash, now).unwrap();
        id
    }

    #[test]
    fn access_code_shapes() {
        let cases = [
            ("1234", true),
            ("abc", false),
            ("x".repeat(32).as_str(), true),
            ("x".repeat(33).as_str(), false),
            ("Zoë-ß!", true),
            ("12\n34", false),
            ("12\u{7}34", false),
            (" 1234", false),
            ("1234 ", false),
            ("12 34", true),
        ]
        .map(|(c, ok)| (c.to_string(), ok));
        for (code, ok) in cases {
            assert_eq!(
                check_access_code("auth.access_code", &code).is_ok(),
                ok,
                "{code:?}"
            );
        }
    }

    #[test]
    fn right_and_wrong_access_codes_and_the_lockout() {
        let now = t0();
        let mut id = access("s3cret");
        let e = enter_code(&mut id, "nope", now).unwrap_err();
        assert!(
            matches!(e, Error::IncorrectCode { attempts_left: 4 }),
            "{e}"
        );
        assert!(e.to_string().contains("4 attempts left"), "{e}");
        enter_code(&mut id, " s3cret ", now).unwrap();
        assert_eq!(id.failed_attempts, 0, "a right code starts the count again");
        assert_eq!(id.verified_at, Some(now));
        // Case matters for access codes.
        assert!(enter_code(&mut id, "S3CRET", now).is_err());
        for left in [3, 2, 1] {
            let e = enter_code(&mut id, "x", now).unwrap_err();
            assert!(matches!(e, Error::IncorrectCode { attempts_left } if attempts_left == left));
        }
        let until = now + Duration::minutes(15);
        let e = enter_code(&mut id, "x", now).unwrap_err();
        assert!(
            matches!(e, Error::VerificationLocked { until: Some(u) } if u == until),
            "{e}"
        );
        assert_eq!(attempts_left(&id, now), 0);
        // While locked, even the right code is not looked at, and nothing counts.
        let later = now + Duration::minutes(14);
        assert!(matches!(
            enter_code(&mut id, "s3cret", later),
            Err(Error::VerificationLocked { .. })
        ));
        assert_eq!(id.failed_attempts, 5);
        // The lock ends on time and the count starts again.
        let after = now + Duration::minutes(15);
        assert_eq!(locked(&id, after), None);
        assert_eq!(attempts_left(&id, after), 5);
        let e = enter_code(&mut id, "x", after).unwrap_err();
        assert!(matches!(e, Error::IncorrectCode { attempts_left: 4 }));
        enter_code(&mut id, "s3cret", after).unwrap();
        assert_eq!(id.verified_at, Some(after));
    }

    #[test]
    fn emailed_codes_expire_are_used_once_and_forgive_spaces() {
        let now = t0();
        let mut id = email_armed("123456", now);
        enter_code(&mut id, "123 456", now + Duration::minutes(9)).unwrap();
        assert_eq!(id.email_code, None, "used up");
        assert!(matches!(
            enter_code(&mut id, "123456", now + Duration::minutes(9)),
            Err(Error::CodeExpired)
        ));

        let mut id = email_armed("123456", now);
        let e = enter_code(&mut id, "123456", now + Duration::minutes(10)).unwrap_err();
        assert!(matches!(e, Error::CodeExpired), "valid 10 minutes: {e}");
        assert_eq!(id.failed_attempts, 0, "an expired code does not count");

        let mut id = IdentityRecord::new(AuthMethod::EmailCode, "salt".into());
        assert!(matches!(
            enter_code(&mut id, "000000", now),
            Err(Error::CodeExpired)
        ));
    }

    #[test]
    fn code_emails_at_most_once_a_minute() {
        let now = t0();
        let mut id = IdentityRecord::new(AuthMethod::EmailCode, "salt".into());
        assert!(!code_outstanding(&id, now));
        request_code(&mut id, now).unwrap();
        assert!(
            code_outstanding(&id, now + Duration::seconds(61)),
            "one is on its way"
        );
        let e = request_code(&mut id, now + Duration::seconds(30)).unwrap_err();
        assert!(
            matches!(
                e,
                Error::CodeRecentlySent {
                    retry_after_secs: 30
                }
            ),
            "{e}"
        );
        request_code(&mut id, now + Duration::seconds(60)).unwrap();
        // Once the code is past its life, the page offers to send one again.
        assert!(!code_outstanding(&id, now + Duration::minutes(11)));
        // A used code is not outstanding either.
        id.verified_at = Some(now + Duration::seconds(90));
        assert!(!code_outstanding(&id, now + Duration::seconds(91)));
        // Locked: no email.
        id.locked_until = Some(now + Duration::hours(1));
        assert!(matches!(
            request_code(&mut id, now + Duration::minutes(30)),
            Err(Error::VerificationLocked { .. })
        ));
        id.locked_until = None;
        id.held = true;
        assert!(matches!(
            request_code(&mut id, now + Duration::minutes(30)),
            Err(Error::VerificationLocked { until: None })
        ));
        // Access codes are never emailed.
        assert!(request_code(&mut access("1234"), now).is_err());
    }

    #[test]
    fn ten_code_emails_a_day() {
        let now = t0();
        let mut id = IdentityRecord::new(AuthMethod::EmailCode, "salt".into());
        // (minutes after t0, allowed?): ten a minute apart, then the eleventh waits until the
        // first of the ten is 24 hours old.
        let cases: Vec<(i64, bool)> = (0..10)
            .map(|m| (m, true))
            .chain([
                (10, false),
                (60 * 24 - 1, false),
                (60 * 24, true),
                (60 * 24 + 1, true),
            ])
            .collect();
        for (minutes, allowed) in cases {
            let at = now + Duration::minutes(minutes);
            let r = request_code(&mut id, at);
            assert_eq!(r.is_ok(), allowed, "minute {minutes}: {r:?}");
            if !allowed {
                let e = r.unwrap_err();
                let Error::CodeDailyLimit { until } = e else {
                    panic!("minute {minutes}: {e}")
                };
                assert_eq!(
                    until,
                    now + Duration::hours(24),
                    "when the first is a day old"
                );
            }
        }
        assert!(id.code_requests.len() <= CODE_EMAILS_PER_DAY);
    }

    #[test]
    fn the_lock_ladder() {
        let now = t0();
        let mut id = access("s3cret");
        // (minutes after t0 when the round starts, the lock it ends with).
        let ladder = [
            (0, Some(Duration::minutes(15))),
            (15, Some(Duration::hours(1))),
            (75, None),
        ];
        for (start, lock_for) in ladder {
            let at = now + Duration::minutes(start);
            assert_eq!(
                lock(&id, at),
                None,
                "round at minute {start} starts unlocked"
            );
            let before = id.clone();
            for left in [4, 3, 2, 1] {
                let e = enter_code(&mut id, "x", at).unwrap_err();
                assert!(
                    matches!(e, Error::IncorrectCode { attempts_left } if attempts_left == left)
                );
            }
            let e = enter_code(&mut id, "x", at).unwrap_err();
            let until = lock_for.map(|d| at + d);
            assert!(
                matches!(e, Error::VerificationLocked { until: u } if u == until),
                "{e}"
            );
            assert_eq!(lock_began(&before, &id), Some(until));
            assert_eq!(lock(&id, at), Some(until));
            // Nothing is looked at while locked, not even the right code.
            let mid = at + Duration::minutes(14);
            assert!(matches!(
                enter_code(&mut id, "s3cret", mid),
                Err(Error::VerificationLocked { .. })
            ));
        }
        // The third lock does not end by itself.
        let much_later = now + Duration::days(30);
        assert_eq!(lock(&id, much_later), Some(None));
        assert_eq!(attempts_left(&id, much_later), 0);
        assert!(enter_code(&mut id, "s3cret", much_later).is_err());
        assert_eq!(lock_began(&id.clone(), &id), None, "no new lock");
        // The sender unlocks: the count and the ladder start again.
        unlock(&mut id, much_later).unwrap();
        assert!(
            unlock(&mut id, much_later).is_err(),
            "nothing left to unlock"
        );
        assert_eq!(attempts_left(&id, much_later), 5);
        for _ in 0..5 {
            let _ = enter_code(&mut id, "x", much_later);
        }
        assert_eq!(
            lock(&id, much_later),
            Some(Some(much_later + Duration::minutes(15)))
        );
        // A right code after a lock ends starts the ladder again too.
        let after = much_later + Duration::minutes(15);
        enter_code(&mut id, "s3cret", after).unwrap();
        assert_eq!(id.lock_step, 0);
    }

    #[test]
    fn the_code_step_shows_a_first_name_only() {
        for (name, first) in [
            ("Zoë Ann Smith", "Zoë"),
            ("  Jean-Luc  Picard ", "Jean-Luc"),
            ("Prince", "Prince"),
            ("", ""),
        ] {
            assert_eq!(first_name(name), first, "{name:?}");
        }
    }

    #[test]
    fn arming_needs_a_fresh_request() {
        let now = t0();
        let mut id = IdentityRecord::new(AuthMethod::EmailCode, "salt".into());
        assert!(
            arm_code(&mut id, "h".into(), now).is_err(),
            "never asked for"
        );
        request_code(&mut id, now).unwrap();
        assert!(arm_code(&mut id, "h".into(), now + Duration::minutes(10)).is_err());
        arm_code(&mut id, "h".into(), now + Duration::minutes(9)).unwrap();
        assert_eq!(
            id.email_code.as_ref().unwrap().expires_at,
            now + Duration::minutes(19)
        );
    }

    #[test]
    fn grants_live_twelve_hours_and_are_bounded() {
        let now = t0();
        let mut id = access("1234");
        assert!(needs_verification(Some(&id), None, now));
        assert!(!needs_verification(None, None, now));
        let g = "grant-secret";
        let hash = digest(&id, Secret::Grant, g);
        add_grant(&mut id, hash, now);
        assert!(grant_valid(&id, Some(g), now + Duration::hours(11)));
        assert!(!grant_valid(&id, Some(g), now + Duration::hours(12)));
        assert!(!grant_valid(&id, Some("other"), now));
        assert!(!grant_valid(&id, Some(""), now));
        assert!(!needs_verification(Some(&id), Some(g), now));
        for n in 0..MAX_GRANTS {
            let h = digest(&id, Secret::Grant, &format!("g{n}"));
            add_grant(&mut id, h, now);
        }
        assert_eq!(id.grants.len(), MAX_GRANTS);
        assert!(!grant_valid(&id, Some(g), now), "the oldest went first");
        assert!(grant_valid(&id, Some("g0"), now));
        // A stored digest is not the secret, and nothing shows in Debug.
        let debug = format!("{id:?}");
        assert!(
            !debug.contains(&id.grants[0].hash) && !debug.contains("pepper"),
            "{debug}"
        );
    }
}
