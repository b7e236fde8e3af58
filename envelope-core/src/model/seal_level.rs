//! The PAdES level each sealed document of an envelope reached (extensions E10): kept in the
//! record per document from completion on, shown on the envelope as `seal: {level,
//! target_level}`.

use serde::{Deserialize, Serialize};

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
    /// B-LT: with the certificates and revocation answers a validator needs, in the document.
    /// Not made yet.
    #[serde(rename = "b-lt")]
    BLt,
    /// B-LTA: with a document timestamp over all of it, renewable. Not made yet.
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

/// What sealing an envelope reached, as its record keeps it: the level the service was set up to
/// reach and the level of each sealed file. Absent from records of envelopes that are not
/// completed, that were completed without a sealer, or that were completed before levels were
/// recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SealRecord {
    /// What the sealer was configured for when the envelope completed: `b-t` with a timestamp
    /// authority, else `b-b`.
    pub target_level: SealLevel,
    /// The level each signed copy reached, in document order.
    pub documents: Vec<SealLevel>,
    /// The level the audit trail reached.
    pub audit_trail: SealLevel,
}

impl SealRecord {
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
    /// The level the service is set up to reach: `b-t` with a timestamp authority, else `b-b`.
    /// A `level` below it means a part could not be had (the timestamp authority was down).
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
            let rec = SealRecord {
                target_level: SealLevel::BT,
                documents,
                audit_trail,
            };
            assert_eq!(
                rec.view(),
                EnvelopeSeal {
                    level,
                    target_level: SealLevel::BT
                }
            );
        }
        let json = serde_json::to_value(SealRecord {
            target_level: SealLevel::BT,
            documents: vec![SealLevel::BB],
            audit_trail: SealLevel::BT,
        })
        .unwrap();
        assert_eq!(
            json,
            serde_json::json!({"target_level": "b-t", "documents": ["b-b"], "audit_trail": "b-t"})
        );
    }
}
