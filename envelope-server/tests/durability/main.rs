//! Durability of the real binary: SIGKILL during a stream of writes on SQLite (`crash`), two
//! processes racing on one PostgreSQL database (`multi_process`), SIGTERM during PDF work
//! that does not end (`shutdown`), `/readyz` following a PostgreSQL role that loses its
//! write privilege (`health`), secrets at rest: encrypted idempotency records and an
//! owner-only data dir (`secrets`), one account's hanging webhook receivers against
//! another's delivery (`webhook_fairness`), a signer's address through a trusted reverse
//! proxy (`proxy`), emails that survive a relay outage and a SIGKILL (`email`), and retention
//! under a clock moved ahead with libfaketime (`retention`); JSON logs (`logs`); Prometheus
//! metrics, read back by Prometheus' own text parser (`metrics`); a key revoked by the admin
//! command while a server runs (`keys`); two servers on one PostgreSQL database with PDFs in
//! an S3 bucket (`s3`); downloads streamed from S3, presigned redirects and `blobs copy`
//! (`s3_downloads`); streamed bodies dropped when their clients go away (`downloads`).
//!
//! All drive `envelope-server` as a child process (`CARGO_BIN_EXE_envelope-server`) over HTTP,
//! exactly as a deployment would run it.

use envelope_testkit::{moto, smtp, textpdf as pdf};

mod bulk;
mod check;
mod crash;
mod downloads;
mod email;
mod fonts;
mod health;
mod keys;
mod logs;
mod long_term;
mod metrics;
mod multi_process;
mod process;
mod proxy;
mod retention;
mod s3;
mod s3_downloads;
#[cfg(unix)]
mod secrets;
mod shutdown;
mod webhook_fairness;
