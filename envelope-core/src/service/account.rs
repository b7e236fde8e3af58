//! The account and balance endpoints.

use super::{AuthContext, SigningService, period_of};
use crate::error::Result;
use crate::model::{AccountView, Balance, SigningCertificateView};

impl SigningService {
    /// `GET /account`: which account and key the request uses, and whether it is live.
    pub async fn account(&self, ctx: &AuthContext) -> Result<AccountView> {
        Ok(AccountView {
            object: "account".into(),
            id: ctx.account.id.clone(),
            name: ctx.account.name.clone(),
            livemode: ctx.mode().is_live(),
            key: ctx.key.view(),
            // The identity that seals this key's mode: test keys see the test identity.
            signing_certificate: self.signing_certificate_of(ctx.mode()).map(|c| {
                SigningCertificateView {
                    development: c.development,
                    sha256_fingerprint: c.sha256_fingerprint.clone(),
                }
            }),
        })
    }

    /// `GET /balance`: the live allowance of the current calendar month (UTC). Test mode never
    /// consumes it; a test key sees the same figures with `livemode: false`.
    pub async fn balance(&self, ctx: &AuthContext) -> Result<Balance> {
        let now = self.now();
        let (period, start, end) = period_of(now);
        let account = self
            .inner
            .store
            .get_account(&ctx.account.id)
            .await?
            .unwrap_or_else(|| ctx.account.clone());
        let used = self.inner.store.usage(&account.id, &period).await?;
        Ok(Balance {
            object: "balance".into(),
            livemode: ctx.mode().is_live(),
            remaining: account.monthly_allowance.saturating_sub(used),
            allowance: account.monthly_allowance,
            used,
            period_start: start,
            period_end: end,
            purchase_url: self.inner.settings.purchase_url.clone(),
        })
    }
}
