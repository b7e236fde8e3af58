//! Optimistic concurrency for edits (extensions E11): the version a caller last read, checked
//! against the record a write is about to change.
//!
//! Every write raises a record's `version`, so the version a caller read names exactly what it
//! saw. An edit that carries a [`Precondition`] applies only while the record is still at one of
//! the versions named; otherwise it is [`Error::EditConflict`] and nothing is written. The check
//! is made inside each write's retry loop against the record just loaded, never against an
//! earlier read. This module knows nothing of how a front end spells the versions (HTTP's
//! `ETag` and `If-Match` live in the server).

use crate::error::{Error, Result};

/// What an edit requires of the record's current version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Precondition {
    /// Any existing record (HTTP's `If-Match: *`).
    Any,
    /// The record must be at one of these versions. An empty list matches nothing: a caller
    /// that named only versions no record can have (weak or foreign tags) gets a conflict.
    Versions(Vec<u64>),
}

impl Precondition {
    /// `Ok` when a record at `current` meets the precondition; else
    /// [`Error::EditConflict`] naming `resource` (`"envelope"`, `"template"`) and `current`.
    pub fn check(&self, resource: &'static str, current: u64) -> Result<()> {
        match self {
            Precondition::Any => Ok(()),
            Precondition::Versions(v) if v.contains(&current) => Ok(()),
            Precondition::Versions(_) => Err(Error::EditConflict {
                resource,
                version: current,
            }),
        }
    }
}

/// Checks `p`, when there is one, against a record at `current`.
pub(crate) fn check(p: Option<&Precondition>, resource: &'static str, current: u64) -> Result<()> {
    p.map_or(Ok(()), |p| p.check(resource, current))
}

/// A value with the version of the record it was made from, for a front end to name as the
/// value's validator (HTTP's `ETag`) and a later edit to send back in a [`Precondition`].
#[derive(Debug, Clone, PartialEq)]
pub struct Versioned<T> {
    /// The value (a view, or its JSON).
    pub value: T,
    /// The record's version the value shows.
    pub version: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_precondition_matches_only_the_versions_it_names() {
        let cases: &[(Precondition, u64, bool)] = &[
            (Precondition::Any, 1, true),
            (Precondition::Any, 99, true),
            (Precondition::Versions(vec![3]), 3, true),
            (Precondition::Versions(vec![2, 4]), 4, true),
            (Precondition::Versions(vec![2, 4]), 3, false),
            (Precondition::Versions(vec![]), 1, false),
        ];
        for (p, current, ok) in cases {
            let got = p.check("envelope", *current);
            assert_eq!(got.is_ok(), *ok, "{p:?} at {current}");
            if let Err(e) = got {
                assert_eq!(e.code(), "edit_conflict");
                assert!(matches!(e, Error::EditConflict { version, .. } if version == *current));
            }
        }
        assert!(check(None, "template", 7).is_ok());
    }
}
