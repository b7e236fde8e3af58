//! `accounts`: create and list accounts, set their allowance, storage quota and email limits.

use clap::Subcommand;

use super::ModeArg;
use crate::admin::AdminCommand;

#[derive(Debug, Subcommand)]
pub(crate) enum AccountsCommand {
    /// Create an account; prints its test and live keys once.
    Create {
        #[arg(long, env = "ENVELOPE_ACCOUNT_NAME")]
        name: String,
    },
    /// List accounts.
    List,
    /// Set an account's live allowance per month.
    SetAllowance {
        #[arg(long, env = "ENVELOPE_ACCOUNT")]
        account: String,
        #[arg(long, env = "ENVELOPE_ALLOWANCE")]
        allowance: u32,
    },
    /// Set the storage quota of an account (MiB of PDFs its test and live records may hold), or
    /// remove it with --clear. Creates past it answer 403 storage_quota_exceeded.
    SetQuota {
        #[arg(long, env = "ENVELOPE_ACCOUNT")]
        account: String,
        #[arg(
            long,
            env = "ENVELOPE_STORAGE_MIB",
            required_unless_present = "clear",
            conflicts_with = "clear",
            value_parser = clap::value_parser!(u64).range(0..=MAX_QUOTA_MIB)
        )]
        storage_mib: Option<u64>,
        /// No quota: the account may store any amount.
        #[arg(long)]
        clear: bool,
    },
    /// Set how many emails an account may send per UTC day in one mode, or return it to the
    /// server's default (--test-email-daily-limit, --live-email-daily-limit) with --clear.
    SetEmailLimit {
        #[arg(long, env = "ENVELOPE_ACCOUNT")]
        account: String,
        #[arg(long, env = "ENVELOPE_KEY_MODE", value_enum)]
        mode: ModeArg,
        /// Emails per day (0 sends none).
        #[arg(long, required_unless_present = "clear", conflicts_with = "clear")]
        daily: Option<u32>,
        /// Back to the server's default.
        #[arg(long)]
        clear: bool,
    },
}

/// The largest quota in MiB whose bytes fit the store's 64-bit counters.
const MAX_QUOTA_MIB: u64 = (i64::MAX as u64) >> 20;

impl AccountsCommand {
    /// The admin command it asks for; quotas in MiB become bytes.
    pub(crate) fn admin_command(self) -> AdminCommand {
        match self {
            AccountsCommand::Create { name } => AdminCommand::CreateAccount { name },
            AccountsCommand::List => AdminCommand::ListAccounts,
            AccountsCommand::SetAllowance { account, allowance } => {
                AdminCommand::SetAllowance { account, allowance }
            }
            AccountsCommand::SetQuota {
                account,
                storage_mib,
                clear: _,
            } => AdminCommand::SetStorageQuota {
                account,
                bytes: storage_mib.map(|m| m << 20),
            },
            AccountsCommand::SetEmailLimit {
                account,
                mode,
                daily,
                clear: _,
            } => AdminCommand::SetEmailLimit {
                account,
                mode: mode.into(),
                daily,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::{Cli, Command};

    /// A daily number or --clear, never both and never neither.
    #[test]
    fn set_email_limit_takes_daily_or_clear() {
        let set = |args: &[&str]| {
            let mut all = vec!["envelope-server", "accounts", "set-email-limit"];
            all.extend_from_slice(args);
            Cli::try_parse_from(all)
        };
        assert!(set(&["--account", "acct_1", "--mode", "test", "--daily", "10"]).is_ok());
        assert!(set(&["--account", "acct_1", "--mode", "live", "--clear"]).is_ok());
        assert!(
            set(&["--account", "acct_1", "--mode", "test"]).is_err(),
            "needs one"
        );
        assert!(
            set(&[
                "--account",
                "acct_1",
                "--mode",
                "test",
                "--daily",
                "1",
                "--clear"
            ])
            .is_err(),
            "not both"
        );
    }

    #[test]
    fn set_quota_takes_mib_or_clear() {
        let parse = |args: &[&str]| {
            let mut all = vec![
                "envelope-server",
                "accounts",
                "set-quota",
                "--account",
                "acct_1",
            ];
            all.extend_from_slice(args);
            Cli::try_parse_from(all)
        };
        let Ok(Cli {
            command:
                Some(Command::Accounts {
                    command: AccountsCommand::SetQuota { storage_mib, .. },
                    ..
                }),
            ..
        }) = parse(&["--storage-mib", "500"])
        else {
            panic!("set-quota --storage-mib 500 does not parse");
        };
        assert_eq!(storage_mib, Some(500));
        assert!(parse(&["--clear"]).is_ok());
        assert!(parse(&[]).is_err(), "one of the two is needed");
        assert!(parse(&["--clear", "--storage-mib", "1"]).is_err());
        assert!(parse(&["--storage-mib", "-1"]).is_err());
    }
}
