//! The admin command line (the spec's "dashboard"): accounts, keys, allowances, webhook secrets.
//!
//! Each command is one call of `SigningService::admin()`; this module only formats the answer.
//! Secrets are printed once, to the given writer (stdout), never to the logs.

use std::io::Write;

use envelope_core::error::BoxError;
use envelope_core::service::{NewAccount, NewKey};
use envelope_core::{AccountId, ApiKeyId, EventId, Mode, SigningService, WebhookEndpointId};

/// One admin command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdminCommand {
    /// Create an account and its first test and live keys, printed once.
    CreateAccount {
        /// The account's name.
        name: String,
    },
    /// List the accounts, with their storage and email budgets.
    ListAccounts,
    /// Set an account's live allowance per month.
    SetAllowance {
        /// The account's ID.
        account: String,
        /// Live envelopes per month.
        allowance: u32,
    },
    /// `None` removes the quota.
    SetStorageQuota {
        /// The account's ID.
        account: String,
        /// Bytes of PDFs its records may hold.
        bytes: Option<u64>,
    },
    /// `None` returns the account to the server's default budget.
    SetEmailLimit {
        /// The account's ID.
        account: String,
        /// The mode whose budget this is.
        mode: Mode,
        /// Emails per UTC day (0 sends none).
        daily: Option<u32>,
    },
    /// Create an API key, printed once.
    CreateKey {
        /// The account's ID.
        account: String,
        /// Whether the key is a test or a live one.
        mode: Mode,
    },
    /// List an account's keys (prefixes only).
    ListKeys {
        /// The account's ID.
        account: String,
    },
    /// Revoke a key.
    RevokeKey {
        /// The account's ID.
        account: String,
        /// The key's ID (as `keys list` shows it).
        key: String,
    },
    /// Print an endpoint's signing secret.
    RevealWebhookSecret {
        /// The webhook endpoint's ID.
        endpoint: String,
    },
    /// Give an endpoint a new secret; the old one keeps signing for 24 hours.
    RotateWebhookSecret {
        /// The webhook endpoint's ID.
        endpoint: String,
    },
    /// Show an event's deliveries and their attempts.
    EventDeliveries {
        /// The event's ID.
        event: String,
    },
    /// Deliver an event again.
    ResendEvent {
        /// The event's ID.
        event: String,
        /// The one endpoint to deliver to; `None`: every subscribed endpoint.
        endpoint: Option<String>,
    },
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
                let used = admin.storage_used(&a.id).await?;
                let quota = match a.storage_quota {
                    Some(q) => format!("of {}", mib(q)),
                    None => "(no quota)".into(),
                };
                let emails = |mode| match a.email_daily_limit(mode) {
                    Some(n) => n.to_string(),
                    None => "default".into(),
                };
                writeln!(
                    out,
                    "{}\t{}\tallowance {}/month\tstorage {} {quota}\temails/day test {} live {}\tcreated {}",
                    a.id,
                    a.name,
                    a.monthly_allowance,
                    mib(used),
                    emails(Mode::Test),
                    emails(Mode::Live),
                    a.created_at
                )?;
            }
        }
        AdminCommand::SetStorageQuota { account, bytes } => {
            admin
                .set_storage_quota(&AccountId::parse(&account)?, bytes)
                .await?;
            let used = mib(admin.storage_used(&AccountId::parse(&account)?).await?);
            match bytes {
                Some(b) => writeln!(
                    out,
                    "{account}: storage quota set to {} (stores {used} now)",
                    mib(b)
                )?,
                None => writeln!(out, "{account}: storage quota removed (stores {used} now)")?,
            }
        }
        AdminCommand::SetEmailLimit {
            account,
            mode,
            daily,
        } => {
            admin
                .set_email_daily_limit(&AccountId::parse(&account)?, mode, daily)
                .await?;
            let mode = mode.as_str();
            match daily {
                Some(n) => writeln!(out, "{account}: {mode} emails limited to {n} per day")?,
                None => writeln!(
                    out,
                    "{account}: {mode} emails per day back to the server's default"
                )?,
            }
        }
        AdminCommand::SetAllowance { account, allowance } => {
            admin
                .set_allowance(&AccountId::parse(&account)?, allowance)
                .await?;
            writeln!(
                out,
                "{account}: live allowance set to {allowance} per month"
            )?;
        }
        AdminCommand::CreateKey { account, mode } => {
            let key = admin.create_key(&AccountId::parse(&account)?, mode).await?;
            print_key(&key, out)?;
            writeln!(out, "Store the key now: it is not shown again.")?;
        }
        AdminCommand::ListKeys { account } => {
            for k in admin.list_keys(&AccountId::parse(&account)?).await? {
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
            admin
                .revoke_key(&AccountId::parse(&account)?, &ApiKeyId::parse(&key)?)
                .await?;
            writeln!(out, "{key} revoked")?;
        }
        AdminCommand::RevealWebhookSecret { endpoint } => {
            let secret = admin
                .reveal_webhook_secret(&WebhookEndpointId::parse(&endpoint)?)
                .await?;
            writeln!(out, "{secret}")?;
        }
        AdminCommand::RotateWebhookSecret { endpoint } => {
            let secret = admin
                .rotate_webhook_secret(&WebhookEndpointId::parse(&endpoint)?)
                .await?;
            writeln!(out, "{secret}")?;
            writeln!(
                out,
                "(the previous secret keeps signing deliveries for 24 hours)"
            )?;
        }
        AdminCommand::EventDeliveries { event } => {
            print_deliveries(
                &admin.event_deliveries(&EventId::parse(&event)?).await?.data,
                out,
            )?;
        }
        AdminCommand::ResendEvent { event, endpoint } => {
            let list = admin
                .resend_event(&EventId::parse(&event)?, endpoint.as_deref())
                .await?;
            writeln!(out, "resent; deliveries of {event} now:")?;
            print_deliveries(&list.data, out)?;
        }
    }
    Ok(())
}

/// Bytes as MiB with one decimal.
fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

fn print_deliveries(
    list: &[envelope_core::service::DeliveryView],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    if list.is_empty() {
        writeln!(out, "no deliveries (no endpoint subscribed to this event)")?;
    }
    for d in list {
        let status = serde_json::to_value(d.status)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        writeln!(out, "{} to {}: {status}", d.id, d.endpoint)?;
        for a in &d.attempts {
            let answer = match (a.status, &a.error) {
                (Some(s), _) => format!("HTTP {s}"),
                (None, Some(e)) => e.clone(),
                (None, None) => "no answer".into(),
            };
            writeln!(
                out,
                "  attempt {} at {}: {answer} ({} ms)",
                a.number, a.at, a.duration_ms
            )?;
        }
        if let Some(next) = d.next_attempt_at {
            writeln!(out, "  next attempt at {next}")?;
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
            account: acct.id.to_string(),
            mode: Mode::Live,
        };
        run_admin(&svc, cmd, &mut out).await.unwrap();
        let keys = svc.admin().list_keys(&acct.id).await.unwrap();
        assert_eq!(keys.len(), 3);

        let mut out = Vec::new();
        let cmd = AdminCommand::RevokeKey {
            account: acct.id.to_string(),
            key: keys[0].id.to_string(),
        };
        run_admin(&svc, cmd, &mut out).await.unwrap();
        let mut out = Vec::new();
        let cmd = AdminCommand::ListKeys {
            account: acct.id.to_string(),
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

        // Storage quota: set, shown by `accounts list`, cleared; unknown accounts refused.
        let mut out = Vec::new();
        let cmd = AdminCommand::SetStorageQuota {
            account: acct.id.to_string(),
            bytes: Some(500 << 20),
        };
        run_admin(&svc, cmd, &mut out).await.unwrap();
        assert!(
            String::from_utf8(out).unwrap().contains("set to 500.0 MiB"),
            "confirmation"
        );
        let mut out = Vec::new();
        run_admin(&svc, AdminCommand::ListAccounts, &mut out)
            .await
            .unwrap();
        let listed = String::from_utf8(out).unwrap();
        assert!(listed.contains("storage 0.0 MiB of 500.0 MiB"), "{listed}");
        let cmd = AdminCommand::SetStorageQuota {
            account: acct.id.to_string(),
            bytes: None,
        };
        run_admin(&svc, cmd, &mut Vec::new()).await.unwrap();
        let mut out = Vec::new();
        run_admin(&svc, AdminCommand::ListAccounts, &mut out)
            .await
            .unwrap();
        let listed = String::from_utf8(out).unwrap();
        assert!(listed.contains("storage 0.0 MiB (no quota)"), "{listed}");
        let cmd = AdminCommand::SetStorageQuota {
            account: "acct_missing".into(),
            bytes: Some(1),
        };
        assert!(run_admin(&svc, cmd, &mut Vec::new()).await.is_err());

        // Email budgets: each mode's own, shown by `accounts list`, cleared; unknown accounts
        // refused.
        let listed = |svc: SigningService| async move {
            let mut out = Vec::new();
            run_admin(&svc, AdminCommand::ListAccounts, &mut out)
                .await
                .unwrap();
            String::from_utf8(out).unwrap()
        };
        assert!(
            listed(svc.clone())
                .await
                .contains("emails/day test default live default"),
            "defaults"
        );
        let mut out = Vec::new();
        let cmd = AdminCommand::SetEmailLimit {
            account: acct.id.to_string(),
            mode: Mode::Live,
            daily: Some(2500),
        };
        run_admin(&svc, cmd, &mut out).await.unwrap();
        assert!(
            String::from_utf8(out)
                .unwrap()
                .contains("live emails limited to 2500 per day"),
            "confirmation"
        );
        let cmd = AdminCommand::SetEmailLimit {
            account: acct.id.to_string(),
            mode: Mode::Test,
            daily: Some(0),
        };
        run_admin(&svc, cmd, &mut Vec::new()).await.unwrap();
        let all = listed(svc.clone()).await;
        assert!(all.contains("emails/day test 0 live 2500"), "{all}");
        let cmd = AdminCommand::SetEmailLimit {
            account: acct.id.to_string(),
            mode: Mode::Live,
            daily: None,
        };
        run_admin(&svc, cmd, &mut Vec::new()).await.unwrap();
        let all = listed(svc.clone()).await;
        assert!(all.contains("emails/day test 0 live default"), "{all}");
        let cmd = AdminCommand::SetEmailLimit {
            account: "acct_missing".into(),
            mode: Mode::Test,
            daily: Some(1),
        };
        assert!(run_admin(&svc, cmd, &mut Vec::new()).await.is_err());
    }

    #[tokio::test]
    async fn webhook_commands() {
        use envelope_core::service::{CreateEndpointParams, CreateEnvelopeParams, Params, Upload};
        let svc = SigningService::builder().build();
        let acct = svc.admin().create_account("Hooks").await.unwrap();
        let ctx = svc.authenticate(&acct.test_key.secret).await.unwrap();
        let p = CreateEndpointParams::parse(
            Params::json(serde_json::json!({"url": "https://example.com/h"})).unwrap(),
        )
        .unwrap();
        let ep = svc.create_webhook_endpoint(&ctx, p).await.unwrap();
        let body = serde_json::json!({"signers": [{"name": "A", "email": "a@example.com"}, {"name": "B", "email": "b@example.com"}],
            "data": {"start_date": "x"}});
        let up = Upload {
            file_name: "c.pdf".into(),
            bytes: include_bytes!("../../examples/contract.pdf")
                .to_vec()
                .into(),
        };
        let p = CreateEnvelopeParams::parse(
            Params::json(body).unwrap(),
            Some(up),
            &svc.settings().limits,
        )
        .unwrap();
        svc.create_envelope(&ctx, p).await.unwrap();
        let event = svc
            .list_events(&ctx, &Default::default(), Some("envelope.created"))
            .await
            .unwrap()
            .data[0]
            .id
            .clone();

        let mut out = Vec::new();
        run_admin(
            &svc,
            AdminCommand::EventDeliveries {
                event: event.to_string(),
            },
            &mut out,
        )
        .await
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains(ep.id.as_str()) && text.contains("pending"),
            "{text}"
        );
        let mut out = Vec::new();
        let cmd = AdminCommand::ResendEvent {
            event: event.to_string(),
            endpoint: Some(ep.id.to_string()),
        };
        run_admin(&svc, cmd, &mut out).await.unwrap();
        assert_eq!(
            String::from_utf8(out)
                .unwrap()
                .matches(ep.id.as_str())
                .count(),
            2
        );
        let mut out = Vec::new();
        run_admin(
            &svc,
            AdminCommand::RotateWebhookSecret {
                endpoint: ep.id.to_string(),
            },
            &mut out,
        )
        .await
        .unwrap();
        let new = String::from_utf8(out)
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .to_string();
        assert!(new.starts_with("whsec_") && Some(new.clone()) != ep.secret);
        let cmd = AdminCommand::EventDeliveries {
            event: "evt_missing".into(),
        };
        assert!(run_admin(&svc, cmd, &mut Vec::new()).await.is_err());
    }
}
