//! The command line: `envelope-server [serve]` and the admin commands, parsed by clap and
//! handed over to [`serve`](crate::serve), [`admin`](crate::admin) and [`blobs`](crate::blobs).
//!
//! It lives in the library, not beside `main.rs`, so that its unit tests (every flag parses,
//! the defaults are the library's, the mappings onto the options and commands) sit next to the
//! definitions they test and run with `cargo test --lib`; the binary keeps only what belongs to
//! the process (the allocator, the runtime, the exit status). Only [`Cli`] and its few methods
//! are public: the argument types stay inside the crate, as their doc comments are the help
//! text and their fields change with the flags.
//!
//! It must never decide anything: a flag becomes a field of the library's options or of an
//! [`AdminCommand`], and every rule stays with the code it maps to.
//! Flag names, environment variables, defaults and help texts are the operators' interface
//! (docs/OPERATIONS.md): change them only on purpose.
//!
//! | module | what it parses |
//! |---|---|
//! | this one | [`Cli`], the commands, `--log-format`, the store's options, durations, modes |
//! | `serve` | the options of `serve` and its connection caps, into `ServeOptions` |
//! | `accounts`, `keys`, `webhooks` | the admin commands, into `AdminCommand` |
//! | `blobs` | `blobs copy` |
//! | `seals` | `seals renew` |

// The doc comments of the argument types are clap's help text, written for a terminal
// (`<data-dir>/mail`, `http://<listen>`, URLs in quotes): rustdoc's HTML checks do not apply.
#![allow(rustdoc::invalid_html_tags, rustdoc::bare_urls)]

mod accounts;
mod blobs;
mod keys;
mod seals;
mod serve;
mod webhooks;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use envelope_core::Mode;
use envelope_core::error::BoxError;
use envelope_core::render::WorkerRequest;

use crate::admin::{AdminCommand, run_admin};
use crate::health::{EXIT_STORE_FAILED, StoreFailed};
use crate::serve::build_service;
use crate::store::StoreOptions;
use accounts::AccountsCommand;
use blobs::BlobsCommand;
use keys::KeysCommand;
use seals::SealsCommand;
use serve::ServeArgs;
use webhooks::WebhooksCommand;

/// The version `--version` prints: the crate's and the git commit it was built from.
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("ENVELOPE_GIT_COMMIT"),
    ")"
);

// The doc comments of the types deriving clap's traits below, and of their fields and
// variants, are the help text that `--help` prints: notes for readers go in `//` comments.

/// The Envelope Signing Service: HTTP server and admin commands.
#[derive(Debug, Parser)]
#[command(version = VERSION, args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// How log lines are written to stderr: `text` for people, `json` for a log pipeline (one
    /// object per line: timestamp, level, target, message and the event's fields, such as a
    /// request's request_id, method, path, status and duration_ms).
    #[arg(long, global = true, env = "ENVELOPE_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    /// Options of `serve`, the default command.
    #[command(flatten)]
    serve: ServeArgs,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Serve the HTTP API (the default).
    Serve(Box<ServeArgs>),
    /// Manage accounts.
    Accounts {
        #[command(flatten)]
        store: StoreArgs,
        #[command(subcommand)]
        command: AccountsCommand,
    },
    /// Manage API keys.
    Keys {
        #[command(flatten)]
        store: StoreArgs,
        #[command(subcommand)]
        command: KeysCommand,
    },
    /// Webhook endpoint operations.
    Webhooks {
        #[command(flatten)]
        store: StoreArgs,
        #[command(subcommand)]
        command: WebhooksCommand,
    },
    /// PDFs kept by the store: copy those of the database into an S3 bucket.
    Blobs {
        #[command(flatten)]
        store: StoreArgs,
        #[command(subcommand)]
        command: BlobsCommand,
    },
    /// Seals of signed documents: renew archive timestamps.
    Seals {
        #[command(flatten)]
        store: StoreArgs,
        #[command(subcommand)]
        command: SealsCommand,
    },
    /// The page renderer's worker (started by the server itself, one per page drawn): caps its
    /// own CPU time and memory, reads a PDF on standard input and writes the PNG of `page` to
    /// standard output (docs/SIGNING.md, "Pages as pictures").
    #[command(hide = true)]
    RenderPage {
        page: u32,
        cpu_seconds: u64,
        memory_bytes: u64,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum LogFormat {
    Text,
    Json,
}

impl Cli {
    /// The request of the page renderer's worker (the hidden `render-page` command), which
    /// runs without a runtime and without logging; `None` for every other command.
    pub fn render_page(&self) -> Option<WorkerRequest> {
        match self.command {
            Some(Command::RenderPage {
                page,
                cpu_seconds,
                memory_bytes,
            }) => Some(WorkerRequest {
                page,
                cpu_seconds,
                memory_bytes,
            }),
            _ => None,
        }
    }

    /// Logs to stderr at the level `ENVELOPE_LOG` sets (default `info`), in the format of
    /// `--log-format`. Call it once, before [`run`](Self::run).
    pub fn init_logging(&self) {
        let filter = tracing_subscriber::EnvFilter::try_from_env("ENVELOPE_LOG")
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
        let logs = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr);
        match self.log_format {
            // Plain text, in a terminal too: tracing-subscriber is built without its `ansi`
            // feature, whose styling of every field name cost a quarter of the instructions of a
            // cached `GET /v1/envelopes/{id}` even with colours off (docs/PERFORMANCE.md).
            LogFormat::Text => logs.with_ansi(false).init(),
            LogFormat::Json => logs
                .json()
                .flatten_event(true)
                .with_current_span(false)
                .init(),
        }
    }

    /// Runs the command: `serve` (also without a command) until shutdown, or one admin
    /// command, whose output goes to standard output. `render-page` does nothing here: it is
    /// [`render_page`](Self::render_page)'s, before any runtime starts.
    pub async fn run(self) -> Result<(), BoxError> {
        match self.command {
            None => self.serve.run().await,
            Some(Command::Serve(args)) => args.run().await,
            Some(Command::RenderPage { .. }) => Ok(()),
            Some(Command::Accounts { store, command }) => {
                store.run_admin(command.admin_command()).await
            }
            Some(Command::Keys { store, command }) => {
                store.run_admin(command.admin_command()).await
            }
            Some(Command::Webhooks { store, command }) => {
                store.run_admin(command.admin_command()).await
            }
            Some(Command::Blobs { store, command }) => command.run(&store).await,
            Some(Command::Seals { store, command }) => command.run(&store).await,
        }
    }
}

/// The process's exit status after `error`: a store that failed for good exits with its own
/// status, so that supervisors and operators can tell it from a bad configuration
/// (docs/OPERATIONS.md); anything else is a plain failure.
pub fn exit_code(error: &(dyn std::error::Error + 'static)) -> ExitCode {
    if error.downcast_ref::<StoreFailed>().is_some() {
        ExitCode::from(EXIT_STORE_FAILED)
    } else {
        ExitCode::FAILURE
    }
}

#[derive(Debug, Clone, Args)]
pub(crate) struct StoreArgs {
    /// Directory of the data.
    #[arg(
        long,
        global = true,
        env = "ENVELOPE_DATA_DIR",
        default_value = "./envelope-data"
    )]
    pub(crate) data_dir: PathBuf,
    /// Database URL (sqlite://... or postgres://...); default: a store under --data-dir.
    #[arg(long, global = true, env = "ENVELOPE_DATABASE_URL")]
    pub(crate) database_url: Option<String>,
    /// Where PDFs live: s3://bucket/prefix (an S3-compatible bucket; credentials, region and
    /// endpoint from the AWS_* variables); default: in the database.
    #[arg(long, global = true, env = "ENVELOPE_BLOB_URL")]
    pub(crate) blob_url: Option<String>,
    /// Key file of stored idempotency responses and webhook secrets (AES-256-GCM), created on
    /// first start; default <data-dir>/idempotency.key. Servers that share one database must use
    /// the same key: a start with another key than the database's is refused.
    #[arg(long, global = true, env = "ENVELOPE_IDEMPOTENCY_KEY_FILE")]
    pub(crate) idempotency_key_file: Option<PathBuf>,
}

impl StoreArgs {
    pub(crate) fn options(&self) -> StoreOptions {
        StoreOptions {
            data_dir: self.data_dir.clone(),
            database_url: self.database_url.clone(),
            blob_url: self.blob_url.clone(),
            idempotency_key_file: self.idempotency_key_file.clone(),
        }
    }

    /// Opens the store and runs one admin command on it, printing to standard output.
    async fn run_admin(&self, cmd: AdminCommand) -> Result<(), BoxError> {
        let svc = build_service(&self.options(), Default::default()).await?;
        run_admin(&svc, cmd, &mut std::io::stdout().lock()).await
    }
}

/// `250ms`, `10s`, `2m`: a whole number with a unit, from 1 ms to 1 hour.
pub(crate) fn parse_duration(s: &str) -> Result<Duration, String> {
    let err = || format!("'{s}' is not a duration like 500ms, 10s or 2m (at most 1 hour)");
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).ok_or_else(err)?;
    let (num, unit) = s.split_at(split);
    let n: u64 = num.parse().map_err(|_| err())?;
    let d = match unit {
        "ms" => Duration::from_millis(n),
        "s" => Duration::from_secs(n),
        "m" => Duration::from_secs(n.checked_mul(60).ok_or_else(err)?),
        _ => return Err(err()),
    };
    if d.is_zero() || d > Duration::from_secs(3600) {
        return Err(err());
    }
    Ok(d)
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum ModeArg {
    Test,
    Live,
}

impl From<ModeArg> for Mode {
    fn from(m: ModeArg) -> Mode {
        match m {
            ModeArg::Test => Mode::Test,
            ModeArg::Live => Mode::Live,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_store_has_its_own_exit_status() {
        let failed: BoxError = StoreFailed("fsync failed".into()).into();
        assert_eq!(exit_code(&*failed), ExitCode::from(74));
        let other: BoxError = "cannot bind".into();
        assert_eq!(exit_code(&*other), ExitCode::FAILURE);
    }

    #[test]
    fn store_options_go_anywhere_on_the_line() {
        let data_dir = |args: &[&str]| -> PathBuf {
            let mut all = vec!["envelope-server"];
            all.extend_from_slice(args);
            match Cli::try_parse_from(all).unwrap_or_else(|e| panic!("{args:?}: {e}")) {
                Cli {
                    command: Some(Command::Accounts { store, .. }),
                    ..
                } => store.data_dir,
                Cli {
                    command: Some(Command::Serve(serve)),
                    ..
                } => serve.store.data_dir,
                Cli {
                    command: None,
                    serve,
                    ..
                } => serve.store.data_dir,
                other => panic!("{other:?}"),
            }
        };
        let d = PathBuf::from("/srv/envelope");
        assert_eq!(
            data_dir(&[
                "accounts",
                "create",
                "--name",
                "X",
                "--data-dir",
                "/srv/envelope"
            ]),
            d
        );
        assert_eq!(
            data_dir(&[
                "accounts",
                "--data-dir",
                "/srv/envelope",
                "create",
                "--name",
                "X"
            ]),
            d
        );
        assert_eq!(
            data_dir(&["accounts", "list", "--data-dir", "/srv/envelope"]),
            d
        );
        assert_eq!(data_dir(&["serve", "--data-dir", "/srv/envelope"]), d);
        assert_eq!(data_dir(&["--data-dir", "/srv/envelope"]), d);
        assert_eq!(
            data_dir(&["accounts", "list"]),
            PathBuf::from("./envelope-data")
        );
    }

    #[test]
    fn log_format_and_version() {
        let cli = Cli::try_parse_from(["envelope-server"]).unwrap();
        assert_eq!(cli.log_format, LogFormat::Text);
        let cli = Cli::try_parse_from([
            "envelope-server",
            "accounts",
            "list",
            "--log-format",
            "json",
        ])
        .unwrap();
        assert_eq!(cli.log_format, LogFormat::Json);
        assert!(Cli::try_parse_from(["envelope-server", "--log-format", "xml"]).is_err());
        let v = Cli::try_parse_from(["envelope-server", "--version"]).unwrap_err();
        assert_eq!(v.kind(), clap::error::ErrorKind::DisplayVersion);
        let text = v.to_string();
        assert!(
            text.contains(env!("CARGO_PKG_VERSION")) && text.contains("(commit "),
            "{text}"
        );
    }

    #[test]
    fn the_command_line_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    #[test]
    fn durations() {
        let ok = [
            ("250ms", Duration::from_millis(250)),
            ("10s", Duration::from_secs(10)),
            ("2m", Duration::from_secs(120)),
            ("60m", Duration::from_secs(3600)),
        ];
        for (text, d) in ok {
            assert_eq!(parse_duration(text), Ok(d), "{text}");
        }
        for bad in [
            "",
            "10",
            "s",
            "0s",
            "61m",
            "1h",
            "-1s",
            "1.5s",
            "99999999999999999999s",
        ] {
            let e = parse_duration(bad).unwrap_err();
            assert!(e.contains("is not a duration"), "{bad}: {e}");
        }
    }

    /// The page renderer's worker gets its three numbers; no other command is the worker.
    #[test]
    fn render_page_is_the_worker_only() {
        let cli =
            Cli::try_parse_from(["envelope-server", "render-page", "3", "20", "1048576"]).unwrap();
        let req = cli.render_page().expect("render-page is the worker");
        assert_eq!(
            (req.page, req.cpu_seconds, req.memory_bytes),
            (3, 20, 1048576)
        );
        for args in [
            &["envelope-server"][..],
            &["envelope-server", "accounts", "list"],
        ] {
            assert!(Cli::try_parse_from(args).unwrap().render_page().is_none());
        }
    }
}
