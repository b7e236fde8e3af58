//! Placeholder: replaced by the store conformance suite.
