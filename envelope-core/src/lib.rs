//! envelope-core: an embeddable e-signature engine.
#![forbid(unsafe_code)]

pub mod field;
pub mod pdf;
