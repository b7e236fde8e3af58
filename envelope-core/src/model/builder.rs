//! What a builder link opens (extensions E11): one template, or one draft envelope.

use serde::{Deserialize, Serialize};

use crate::ids::{EnvelopeId, TemplateId};

/// The one object a builder link may read and edit.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", content = "id", rename_all = "snake_case")]
pub enum BuilderTarget {
    /// A template: its fields and roles.
    Template(TemplateId),
    /// A draft envelope: its fields and signers, and sending it.
    Envelope(EnvelopeId),
}

impl BuilderTarget {
    /// The object's ID (`tmpl_...` or `env_...`).
    pub fn id(&self) -> &str {
        match self {
            BuilderTarget::Template(id) => id.as_str(),
            BuilderTarget::Envelope(id) => id.as_str(),
        }
    }

    /// `template` or `envelope`: the object's name in the API.
    pub fn kind(&self) -> &'static str {
        match self {
            BuilderTarget::Template(_) => "template",
            BuilderTarget::Envelope(_) => "envelope",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_as_kind_and_id() {
        let t = BuilderTarget::Template("tmpl_abc".parse().unwrap());
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(json, r#"{"kind":"template","id":"tmpl_abc"}"#);
        assert_eq!(serde_json::from_str::<BuilderTarget>(&json).unwrap(), t);
        assert_eq!(t.kind(), "template");
        assert_eq!(t.id(), "tmpl_abc");
    }
}
