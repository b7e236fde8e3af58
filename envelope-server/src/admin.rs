//! The admin command line (the spec's "dashboard"): accounts, keys, allowances, webhook secrets.
//!
//! Each command is one call of `SigningService::admin()`; this module only formats the answer.
//! Secrets are printed once, to the given writer (stdout), never to the logs.

use std::io::Write;

use envelope_core::error::BoxError;
use envelope_core::service::{NewAccount, NewKey};
use envelope_core::{Mode, SigningService};

/// One admin command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdminCommand {
    CreateAccount { name: String },
    ListAccounts,
    SetAllowance { account: String, allowance: u32 },
    CreateKey { account: String, mode: Mode },
    ListKeys { account: String },
    RevokeKey { account: String, key: String },
    RevealWebhookSecret { endpoint: String },
    RotateWebhookSecret { endpoint: String },
}

/// Runs `cmd` and writes its result for a human.
pub async fn run_admin(
    svc: &SigningService,
    cmd: AdminCommand,
    out: &mut dyn Write,
) -> Result<(), BoxError> {
    let admin = svc.admin();
    match cmd {
        AdminCommand::CreateAccount { name } => {
            let acct = admin.create_account(&name).await?;
            print_new_account(&acct, out)?;
        }
        AdminCommand::ListAccounts => {
            for a in admin.list_accounts().await? {
                writeln!(
                    out,
                    "{}\t{}\tallowance {}/month\tcreated {}",
                    a.id, a.name, a.monthly_allowance, a.created_at
                )?;
            }
        }
        AdminCommand::SetAllowance { account, allowance } => {
            admin.set_allowance(&account, allowance).await?;
            writeln!(
                out,
                "{account}: live allowance set to {allowance} per month"
            )?;
        }
        AdminCommand::CreateKey { account, mode } => {
            let key = admin.create_key(&account, mode).await?;
            print_key(&key, out)?;
            writeln!(out, "Store the key now: it is not shown again.")?;
        }
        AdminCommand::ListKeys { account } => {
            for k in admin.list_keys(&account).await? {
                let state = match k.revoked_at {
                    Some(t) => format!("revoked {t}"),
                    None => "active".into(),
                };
                writeln!(
                    out,
                    "{}\t{}\t{}...\tcreated {}\t{}",
                    k.id,
                    k.mode.as_str(),
                    k.prefix,
                    k.created_at,
                    state
                )?;
            }
        }
        AdminCommand::RevokeKey { account, key } => {
            admin.revoke_key(&account, &key).await?;
            writeln!(out, "{key} revoked")?;
        }
        AdminCommand::RevealWebhookSecret { endpoint } => {
            let secret = admin.reveal_webhook_secret(&endpoint).await?;
            writeln!(out, "{secret}")?;
        }
        AdminCommand::RotateWebhookSecret { endpoint } => {
            let secret = admin.rotate_webhook_secret(&endpoint).await?;
            writeln!(out, "{secret}")?;
            writeln!(
                out,
                "(the previous secret keeps signing deliveries for 24 hours)"
            )?;
        }
    }
    Ok(())
}

fn print_key(key: &NewKey, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "  {} key {}: {}",
        key.key.mode.as_str(),
        key.key.id,
        key.secret
    )
}

/// Prints a new account and both its keys, clearly, once.
pub fn print_new_account(acct: &NewAccount, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "=== Account {} ({}) ===",
        acct.account.id, acct.account.name
    )?;
    print_key(&acct.test_key, out)?;
    print_key(&acct.live_key, out)?;
    writeln!(
        out,
        "Store these keys now: they are shown only once and only their hashes are kept."
    )?;
    writeln!(out)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn commands_round_trip() {
        let svc = SigningService::builder().build();
        let mut out = Vec::new();
        run_admin(
            &svc,
            AdminCommand::CreateAccount {
                name: "Acme".into(),
            },
            &mut out,
        )
        .await
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("sk_test_") && text.contains("sk_live_"),
            "{text}"
        );
        let acct = svc.admin().list_accounts().await.unwrap().remove(0);

        let mut out = Vec::new();
        let cmd = AdminCommand::CreateKey {
            account: acct.id.clone(),
            mode: Mode::Live,
        };
        run_admin(&svc, cmd, &mut out).await.unwrap();
        let keys = svc.admin().list_keys(&acct.id).await.unwrap();
        assert_eq!(keys.len(), 3);

        let mut out = Vec::new();
        let cmd = AdminCommand::RevokeKey {
            account: acct.id.clone(),
            key: keys[0].id.clone(),
        };
        run_admin(&svc, cmd, &mut out).await.unwrap();
        let mut out = Vec::new();
        let cmd = AdminCommand::ListKeys {
            account: acct.id.clone(),
        };
        run_admin(&svc, cmd, &mut out).await.unwrap();
        let listed = String::from_utf8(out).unwrap();
        assert!(listed.contains("revoked"), "{listed}");
        assert!(!listed.contains("sk_test_") || listed.contains("..."));

        let cmd = AdminCommand::SetAllowance {
            account: "acct_missing".into(),
            allowance: 5,
        };
        assert!(run_admin(&svc, cmd, &mut Vec::new()).await.is_err());
    }
}
