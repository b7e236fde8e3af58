//! `webhooks`: an endpoint's secret, an event's deliveries, and delivering an event again.

use clap::Subcommand;

use crate::admin::AdminCommand;

#[derive(Debug, Subcommand)]
pub(crate) enum WebhooksCommand {
    /// Print the signing secret of an endpoint.
    RevealSecret {
        #[arg(long, env = "ENVELOPE_ENDPOINT")]
        endpoint: String,
    },
    /// Give an endpoint a new secret; the old one keeps signing for 24 hours.
    RotateSecret {
        #[arg(long, env = "ENVELOPE_ENDPOINT")]
        endpoint: String,
    },
    /// Show the deliveries of an event and their attempts.
    Deliveries {
        #[arg(long, env = "ENVELOPE_EVENT")]
        event: String,
    },
    /// Deliver an event again, to one endpoint or to every subscribed one.
    Resend {
        #[arg(long, env = "ENVELOPE_EVENT")]
        event: String,
        #[arg(long, env = "ENVELOPE_ENDPOINT")]
        endpoint: Option<String>,
    },
}

impl WebhooksCommand {
    /// The admin command it asks for.
    pub(crate) fn admin_command(self) -> AdminCommand {
        match self {
            WebhooksCommand::RevealSecret { endpoint } => {
                AdminCommand::RevealWebhookSecret { endpoint }
            }
            WebhooksCommand::RotateSecret { endpoint } => {
                AdminCommand::RotateWebhookSecret { endpoint }
            }
            WebhooksCommand::Deliveries { event } => AdminCommand::EventDeliveries { event },
            WebhooksCommand::Resend { event, endpoint } => {
                AdminCommand::ResendEvent { event, endpoint }
            }
        }
    }
}
