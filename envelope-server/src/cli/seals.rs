//! `seals renew`: new document timestamps for B-LTA copies whose newest one expires soon
//! (extensions E10; `SigningService::renew_seals`, docs/SEALS.md "Renewal").

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clap::Subcommand;
use envelope_core::clock::Timestamp;
use envelope_core::error::BoxError;
use envelope_core::seal::HttpTimestampAuthority;
use envelope_core::service::Settings;

use super::StoreArgs;
use crate::serve::build_service;

#[derive(Debug, Subcommand)]
pub(crate) enum SealsCommand {
    /// Add a new document timestamp (with the revocation material of the previous one) to every
    /// B-LTA signed copy and audit trail whose newest timestamp's certificate expires within
    /// --before. Safe to run from cron on any server of a shared database (daily or weekly;
    /// docs/OPERATIONS.md). Exits non-zero when an envelope could not be renewed (the log says
    /// why); a later run tries it again.
    Renew {
        /// How far ahead to look: a whole number of days (`180d`) or hours (`12h`).
        #[arg(long, value_parser = parse_ahead)]
        before: Duration,
        /// The RFC 3161 timestamp authority that gives the new timestamps (the server's).
        #[arg(long, env = "ENVELOPE_TSA_URL")]
        tsa_url: String,
    },
}

impl SealsCommand {
    /// Runs it on the store of `store`, reporting to standard output.
    pub(crate) async fn run(self, store: &StoreArgs) -> Result<(), BoxError> {
        match self {
            SealsCommand::Renew { before, tsa_url } => {
                let tsa =
                    HttpTimestampAuthority::new(&tsa_url).map_err(|e| format!("--tsa-url: {e}"))?;
                let svc = build_service(&store.options(), Settings::default()).await?;
                let now = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_err(|e| format!("the system clock is before 1970: {e}"))?;
                let until = i64::try_from((now + before).as_millis())
                    .ok()
                    .and_then(Timestamp::from_millis)
                    .ok_or("--before reaches past the last time the store can hold")?;
                let report = svc.renew_seals(until, Some(Arc::new(tsa))).await?;
                println!(
                    "renewed {}, not renewed {}, skipped {} (expiring before {})",
                    report.renewed,
                    report.not_renewed,
                    report.skipped,
                    until.to_rfc3339()
                );
                if report.not_renewed > 0 {
                    return Err(format!(
                        "{} envelope(s) could not be renewed: see the log",
                        report.not_renewed
                    )
                    .into());
                }
                Ok(())
            }
        }
    }
}

/// `180d`, `12h`: a whole number of days or hours, from 1 hour to 100 years.
fn parse_ahead(s: &str) -> Result<Duration, String> {
    let err = || format!("'{s}' is not a time ahead like 180d or 12h");
    let s = s.trim();
    let (num, unit) = s.split_at(s.len().saturating_sub(1));
    let n: u64 = num.parse().map_err(|_| err())?;
    let hours = match unit {
        "d" if (1..=36_500).contains(&n) => n * 24,
        "h" if (1..=876_000).contains(&n) => n,
        _ => return Err(err()),
    };
    Ok(Duration::from_secs(hours * 3600))
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::{Cli, Command};

    #[test]
    fn renew_takes_a_time_ahead_and_the_authority() {
        let cli = Cli::try_parse_from([
            "envelope-server",
            "seals",
            "--data-dir",
            "/tmp/d",
            "renew",
            "--before",
            "180d",
            "--tsa-url",
            "http://tsa.example/",
        ])
        .unwrap();
        assert!(matches!(
            cli.command,
            Some(Command::Seals {
                command: SealsCommand::Renew { before, ref tsa_url },
                ..
            }) if before == Duration::from_secs(180 * 86_400) && tsa_url == "http://tsa.example/"
        ));
        assert_eq!(parse_ahead("12h"), Ok(Duration::from_secs(12 * 3600)));
        for bad in [
            "", "d", "0d", "-1d", "180", "180 days", "1.5d", "36501d", "3m",
        ] {
            assert!(parse_ahead(bad).is_err(), "{bad:?}");
        }
    }
}
