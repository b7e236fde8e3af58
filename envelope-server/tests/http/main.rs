//! Integration tests: the real server on 127.0.0.1:0 and a real HTTP client.

#[path = "../common/mod.rs"]
mod common;

mod attachments;
mod basics;
mod bodies;
mod builder;
mod bulk;
mod choices;
mod conditional;
mod conditions;
mod connections;
mod corrections;
mod documents;
mod drafts;
mod emails;
mod envelopes;
mod formulas;
mod health;
mod idempotency;
mod identity;
mod kinds;
mod languages;
mod limits;
mod locks;
mod memory;
mod pages;
mod proxy;
mod reach;
mod retention;
mod scripts;
mod sealing;
mod signing;
mod steps;
mod templates;
mod testmode;
mod uploads;
mod webhooks;
