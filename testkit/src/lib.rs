//! Test support shared between the crates of the workspace (`publish = false`): test PDFs and
//! helper servers, used by envelope-core's unit and integration tests, envelope-server's tests,
//! the benches and the `hostile` example.
//!
//! - [`pdf`]: a PDF builder (classic or stream cross-references, incremental updates, fonts like
//!   LibreOffice's and reportlab's, AcroForms), the hostile PDFs of issue 11 ([`pdf::hostile`])
//!   and proptest strategies for hostile object graphs ([`pdf::graph`]).
//! - [`textpdf`]: a tiny writer of tagged text PDFs (the server's tests and the load bench).
//! - [`moto`]: moto's S3-compatible server on a free local port.
//! - [`smtp`]: an aiosmtpd SMTP server that keeps what it receives.
//! - [`pki`]: certomancer's test PKI (root, intermediate, sealing certificates, OCSP, CRLs, a
//!   TSA) on a free local port.
//! - [`scripts`]: names in every script and how `pdftotext` gives them back.
//! - [`process`]: the `envelope-server` binary as a child process (the server's durability
//!   tests and the scale-out bench), started, read and killed; the caller names the binary.
//!
//! It depends on neither envelope-core nor envelope-server: it only produces inputs and starts
//! helper processes, so the core's own unit tests can use it too. Everything here stays
//! deterministic (no clock, no randomness without a seed).

pub mod moto;
pub mod pdf;
pub mod pki;
pub mod process;
pub mod scripts;
pub mod smtp;
pub mod textpdf;
