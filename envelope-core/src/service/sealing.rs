//! Which identity seals which mode's documents, decided once when the service is built.
//!
//! Sealing is the embedder's choice, never an accident: a builder given a sealer uses it for
//! live documents; one told `unsealed()` seals nothing; one told neither seals with an ephemeral
//! development identity and says so in a warning. Test mode never seals with the live identity
//! (a test key must not be able to make a document that passes for a live contract): it gets
//! the test sealer it was given, or an ephemeral identity of its own whose subject says
//! "test mode".
//!
//! This module only chooses; sealing itself is `complete.rs` and [`crate::seal`].

use std::sync::Arc;

use crate::clock::Timestamp;
use crate::seal::{LocalSealer, Sealer, SigningIdentity};

/// Common name of the ephemeral identity that seals when the builder was told nothing: made at
/// build, gone with the process, trusted by no validator.
pub const DEVELOPMENT_SEAL: &str = "envelope development seal (not trusted)";

/// Common name of the ephemeral identity that seals test-mode documents when no test sealer was
/// given.
pub const TEST_MODE_SEAL: &str = "envelope test mode seal (not trusted)";

/// What the builder was told about sealing live documents.
#[derive(Default)]
pub(crate) enum Sealing {
    /// Nothing: an ephemeral development identity, with a warning.
    #[default]
    Default,
    /// `unsealed()`.
    Unsealed,
    /// `sealer(..)`.
    With(Arc<dyn Sealer>),
}

type Chosen = Option<Arc<dyn Sealer>>;

/// The live sealer and the test sealer. `now` dates the ephemeral certificates (the service's
/// clock, so that a test's clock in the past still finds them valid).
pub(crate) fn choose(live: Sealing, test: Chosen, now: Timestamp) -> (Chosen, Chosen) {
    let live = match live {
        Sealing::With(s) => Some(s),
        Sealing::Unsealed => None,
        Sealing::Default => {
            let made = ephemeral(DEVELOPMENT_SEAL, now);
            if let Some(s) = &made {
                tracing::warn!(
                    sha256_fingerprint = %s.certificate().sha256_fingerprint,
                    "no sealer given: signed documents are sealed with an ephemeral development \
                     identity that no validator trusts and that ends with this process; give \
                     SigningServiceBuilder::sealer your identity, or call unsealed()"
                );
            }
            made
        }
    };
    let test = match (test, &live) {
        (Some(t), Some(l))
            if t.certificate().sha256_fingerprint == l.certificate().sha256_fingerprint =>
        {
            tracing::error!(
                sha256_fingerprint = %l.certificate().sha256_fingerprint,
                "the test sealer is the live sealer's identity: test-mode documents are sealed \
                 with an ephemeral test identity instead"
            );
            ephemeral(TEST_MODE_SEAL, now)
        }
        (Some(t), _) => Some(t),
        (None, Some(_)) => ephemeral(TEST_MODE_SEAL, now),
        (None, None) => None,
    };
    (live, test)
}

/// A sealer with a new self-signed identity named `common_name`, or `None` (logged) in the
/// unlikely case that the key cannot be made: documents then go unsealed, never sealed by
/// another mode's identity.
fn ephemeral(common_name: &str, now: Timestamp) -> Chosen {
    match SigningIdentity::generate_development_at(common_name, now) {
        Ok(dev) => Some(Arc::new(LocalSealer::new(dev.identity))),
        Err(e) => {
            tracing::error!(error = %e, common_name, "could not make a sealing identity: documents go unsealed");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{Clock, SystemClock};

    fn given(name: &str) -> Arc<dyn Sealer> {
        let dev = SigningIdentity::generate_development(name).unwrap();
        Arc::new(LocalSealer::new(dev.identity.development(false)))
    }

    fn subject(s: &Chosen) -> Option<String> {
        s.as_ref().map(|s| s.certificate().subject.clone())
    }

    #[test]
    fn each_choice_gives_the_documented_sealers() {
        let now = SystemClock.now();
        let live = given("Acme live seal");
        let test = given("Acme test seal");
        let cn = |name: &str| Some(format!("O=Envelope development certificate,CN={name}"));
        // (live choice, test sealer) -> (live subject, test subject)
        let cases: Vec<(Sealing, Chosen, Option<String>, Option<String>)> = vec![
            (
                Sealing::Default,
                None,
                cn(DEVELOPMENT_SEAL),
                cn(TEST_MODE_SEAL),
            ),
            (Sealing::Unsealed, None, None, None),
            (
                Sealing::Unsealed,
                Some(test.clone()),
                None,
                cn("Acme test seal"),
            ),
            (
                Sealing::With(live.clone()),
                None,
                cn("Acme live seal"),
                cn(TEST_MODE_SEAL),
            ),
            (
                Sealing::With(live.clone()),
                Some(test.clone()),
                cn("Acme live seal"),
                cn("Acme test seal"),
            ),
            // The live identity given as the test one too: never used for test mode.
            (
                Sealing::With(live.clone()),
                Some(live.clone()),
                cn("Acme live seal"),
                cn(TEST_MODE_SEAL),
            ),
        ];
        for (i, (sealing, test, want_live, want_test)) in cases.into_iter().enumerate() {
            let (l, t) = choose(sealing, test, now);
            assert_eq!(
                (subject(&l), subject(&t)),
                (want_live, want_test),
                "case {i}"
            );
            if let (Some(l), Some(t)) = (&l, &t) {
                assert_ne!(
                    l.certificate().sha256_fingerprint,
                    t.certificate().sha256_fingerprint,
                    "case {i}: test mode shares the live identity"
                );
            }
        }
    }

    #[test]
    fn ephemeral_identities_say_they_are_for_development() {
        let (l, t) = choose(Sealing::Default, None, SystemClock.now());
        let (l, t) = (l.unwrap(), t.unwrap());
        assert!(l.certificate().development && t.certificate().development);
        assert!(t.certificate().subject.contains("test mode"));
        assert!(l.certificate().subject.contains("(not trusted)"));
    }
}
