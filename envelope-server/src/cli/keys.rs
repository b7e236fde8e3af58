//! `keys`: create, list and revoke an account's API keys.

use clap::Subcommand;

use super::ModeArg;
use crate::admin::AdminCommand;

#[derive(Debug, Subcommand)]
pub(crate) enum KeysCommand {
    /// Create a key; prints it once.
    Create {
        #[arg(long, env = "ENVELOPE_ACCOUNT")]
        account: String,
        #[arg(long, env = "ENVELOPE_KEY_MODE", value_enum)]
        mode: ModeArg,
    },
    /// List an account's keys (prefixes only).
    List {
        #[arg(long, env = "ENVELOPE_ACCOUNT")]
        account: String,
    },
    /// Revoke a key: running servers refuse it within 1 s (docs/API.md, "Revoking keys").
    Revoke {
        #[arg(long, env = "ENVELOPE_ACCOUNT")]
        account: String,
        #[arg(long, env = "ENVELOPE_KEY")]
        key: String,
    },
}

impl KeysCommand {
    /// The admin command it asks for.
    pub(crate) fn admin_command(self) -> AdminCommand {
        match self {
            KeysCommand::Create { account, mode } => AdminCommand::CreateKey {
                account,
                mode: mode.into(),
            },
            KeysCommand::List { account } => AdminCommand::ListKeys { account },
            KeysCommand::Revoke { account, key } => AdminCommand::RevokeKey { account, key },
        }
    }
}
