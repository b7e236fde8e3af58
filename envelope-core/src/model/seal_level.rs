//! The PAdES level each sealed document of an envelope reached (extensions E10): kept in the
//! record per document from completion on, shown on the envelope as `seal: {level,
//! target_level}`.

use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;

/// A PAdES baseline level (ETSI EN 319 142-1), lowest first, written as on the wire: `b-b`,
/// `b-t`, `b-lt`, `b-lta`. Each level holds everything of the ones below it, so the order is
/// the order of what a seal proves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum SealLevel {
    /// B-B: the signature alone; it shows who sealed and that nothing changed since.
    #[serde(rename = "b-b")]
    BB,
    /// B-T: with an RFC 3161 timestamp of the signature, which proves it existed by then.
    #[serde(rename = "b-t")]
    BT,
    /// B-LT: with the certificates and revocation answers a validator needs, in the document's
    /// Document Security Store.
    #[serde(rename = "b-lt")]
    BLt,
    /// B-LTA: with a document timestamp over all of it, renewable before its certificate
    /// expires.
    #[serde(rename = "b-lta")]
    BLta,
}

impl SealLevel {
    /// The wire value: `b-b`, `b-t`, `b-lt` or `b-lta`.
    pub fn as_str(self) -> &'static str {
        match self {
            SealLevel::BB => "b-b",
            SealLevel::BT => "b-t",
            SealLevel::BLt => "b-lt",
            SealLevel::BLta => "b-lta",
        }
    }

    /// The level's name as ETSI writes it, for people: `PAdES B-B`, `PAdES B-T`, ...
    pub fn name(self) -> &'static str {
        match self {
            SealLevel::BB => "PAdES B-B",
            SealLevel::BT => "PAdES B-T",
            SealLevel::BLt => "PAdES B-LT",
            SealLevel::BLta => "PAdES B-LTA",
        }
    }
}

impl std::str::FromStr for SealLevel {
    type Err = String;

    /// Reads a wire value (`b-b`, `b-t`, `b-lt`, `b-lta`); anything else is refused with a
    /// message that lists them.
    fn from_str(s: &str) -> Result<Self, String> {
        [
            SealLevel::BB,
            SealLevel::BT,
            SealLevel::BLt,
            SealLevel::BLta,
        ]
        .into_iter()
        .find(|l| l.as_str() == s)
        .ok_or_else(|| {
            format!(
                "unknown PAdES level '{}': expected b-b, b-t, b-lt or b-lta",
                s.chars().take(40).collect::<String>()
            )
        })
    }
}

/// What sealing an envelope reached, as its record keeps it: the level the service was set up to
/// reach, the level of each sealed file, and when the seal needs work again. Absent from records
/// of envelopes that are not completed, that were completed without a sealer, or that were
/// completed before levels were recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SealRecord {
    /// What the service was set up to reach when the envelope completed (`--pades-level`,
    /// capped by what its sealer can reach).
    pub target_level: SealLevel,
    /// The level each signed copy reached, in document order.
    pub documents: Vec<SealLevel>,
    /// The level the audit trail reached.
    pub audit_trail: SealLevel,
    /// Attempts the upgrade sweep made to bring files below target up to it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub upgrade_attempts: u32,
    /// When the upgrade sweep next tries (`--seal-retry-schedule`): set while a file is below
    /// target and the schedule is not used up, and while an attempt holds the envelope (its
    /// claim ends then). `None` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upgrade_due_at: Option<Timestamp>,
    /// For files at B-LTA: the earliest time a file's newest document timestamp stops being
    /// verifiable on its own (its TSA certificate's expiry). `seals renew` adds a new document
    /// timestamp before it. `None` when no file is at B-LTA.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive_expires_at: Option<Timestamp>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl SealRecord {
    /// A record of files sealed at these levels, with no sweep work planned yet.
    pub fn new(target_level: SealLevel, documents: Vec<SealLevel>, audit_trail: SealLevel) -> Self {
        SealRecord {
            target_level,
            documents,
            audit_trail,
            upgrade_attempts: 0,
            upgrade_due_at: None,
            archive_expires_at: None,
        }
    }

    /// True when some file is below the target level.
    pub fn below_target(&self) -> bool {
        self.level() < self.target_level
    }

    /// The lowest level over the signed copies and the audit trail: what the envelope can be
    /// said to have reached.
    pub fn level(&self) -> SealLevel {
        self.documents
            .iter()
            .copied()
            .fold(self.audit_trail, SealLevel::min)
    }

    /// `seal` of the wire envelope.
    pub fn view(&self) -> EnvelopeSeal {
        EnvelopeSeal {
            level: self.level(),
            target_level: self.target_level,
        }
    }
}

/// `seal` of the wire envelope (extensions E10): `null` until the envelope is completed (and for
/// envelopes completed unsealed, or before levels were recorded).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvelopeSeal {
    /// The lowest level reached over the envelope's signed copies and audit trail.
    pub level: SealLevel,
    /// The level the service is set up to reach (`--pades-level`). A `level` below it means a
    /// part could not be had (the timestamp authority or a revocation service was down); the
    /// upgrade sweep adds it later.
    pub target_level: SealLevel,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_written_as_on_the_wire_and_ordered_by_what_they_prove() {
        let all = [
            SealLevel::BB,
            SealLevel::BT,
            SealLevel::BLt,
            SealLevel::BLta,
        ];
        for (level, text) in all.iter().zip(["b-b", "b-t", "b-lt", "b-lta"]) {
            assert_eq!(level.as_str(), text);
            assert_eq!(serde_json::to_value(level).unwrap(), text);
            assert_eq!(
                serde_json::from_value::<SealLevel>(text.into()).unwrap(),
                *level
            );
        }
        assert!(all.windows(2).all(|w| w[0] < w[1]));
        assert!(serde_json::from_value::<SealLevel>("B-T".into()).is_err());
        for (level, text) in all.iter().zip(["b-b", "b-t", "b-lt", "b-lta"]) {
            assert_eq!(text.parse::<SealLevel>(), Ok(*level));
        }
        for bad in ["", "B-T", "b-lta ", "lta", "pades-b-b"] {
            assert!(bad.parse::<SealLevel>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_envelope_shows_its_lowest_level() {
        for (documents, audit_trail, level) in [
            (vec![SealLevel::BT], SealLevel::BT, SealLevel::BT),
            (
                vec![SealLevel::BT, SealLevel::BB],
                SealLevel::BT,
                SealLevel::BB,
            ),
            (vec![SealLevel::BT], SealLevel::BB, SealLevel::BB),
            (vec![SealLevel::BB], SealLevel::BB, SealLevel::BB),
        ] {
            let rec = SealRecord::new(SealLevel::BT, documents, audit_trail);
            assert_eq!(
                rec.view(),
                EnvelopeSeal {
                    level,
                    target_level: SealLevel::BT
                }
            );
        }
        let json = serde_json::to_value(SealRecord::new(
            SealLevel::BT,
            vec![SealLevel::BB],
            SealLevel::BT,
        ))
        .unwrap();
        assert_eq!(
            json,
            serde_json::json!({"target_level": "b-t", "documents": ["b-b"], "audit_trail": "b-t"})
        );
    }
}
