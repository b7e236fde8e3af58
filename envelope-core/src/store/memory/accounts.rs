//! [`MemoryStore`]'s accounts.

use async_trait::async_trait;

use super::*;

#[async_trait]
impl AccountStore for MemoryStore {
    async fn insert_account(&self, account: &Account, keys: &[ApiKey]) -> StoreResult<()> {
        let mut g = self.lock();
        if g.accounts.iter().any(|a| a.id == account.id)
            || keys
                .iter()
                .any(|k| g.keys.iter().any(|o| o.id == k.id || o.hash == k.hash))
        {
            return Err(StoreError::Duplicate);
        }
        g.accounts.push(account.clone());
        g.keys.extend(keys.iter().cloned());
        Ok(())
    }

    async fn get_account(&self, id: &AccountId) -> StoreResult<Option<Account>> {
        Ok(self.lock().accounts.iter().find(|a| a.id == id).cloned())
    }

    async fn list_accounts(&self) -> StoreResult<Vec<Account>> {
        Ok(self.lock().accounts.clone())
    }

    async fn set_allowance(&self, account: &AccountId, allowance: u32) -> StoreResult<bool> {
        let mut g = self.lock();
        Ok(match g.accounts.iter_mut().find(|a| a.id == account) {
            Some(a) => {
                a.monthly_allowance = allowance;
                true
            }
            None => false,
        })
    }

    async fn usage(&self, account: &AccountId, period: &str) -> StoreResult<u32> {
        Ok(self
            .lock()
            .usage
            .get(&(account.to_string(), period.to_string()))
            .copied()
            .unwrap_or(0))
    }

    async fn set_storage_quota(
        &self,
        account: &AccountId,
        quota: Option<u64>,
    ) -> StoreResult<bool> {
        let mut g = self.lock();
        Ok(match g.accounts.iter_mut().find(|a| a.id == account) {
            Some(a) => {
                a.storage_quota = quota;
                true
            }
            None => false,
        })
    }

    async fn storage_used(&self, account: &AccountId) -> StoreResult<u64> {
        Ok(self
            .lock()
            .stored
            .get(account.as_str())
            .copied()
            .unwrap_or(0))
    }

    async fn set_email_daily_limit(
        &self,
        account: &AccountId,
        mode: Mode,
        limit: Option<u32>,
    ) -> StoreResult<bool> {
        let mut g = self.lock();
        Ok(match g.accounts.iter_mut().find(|a| a.id == account) {
            Some(a) => {
                match mode {
                    Mode::Test => a.test_email_daily_limit = limit,
                    Mode::Live => a.live_email_daily_limit = limit,
                }
                true
            }
            None => false,
        })
    }
}

#[async_trait]
impl ApiKeyStore for MemoryStore {
    async fn insert_api_key(&self, key: &ApiKey) -> StoreResult<()> {
        let mut g = self.lock();
        if g.keys.iter().any(|o| o.id == key.id || o.hash == key.hash) {
            return Err(StoreError::Duplicate);
        }
        g.keys.push(key.clone());
        Ok(())
    }

    async fn api_key_by_hash(&self, hash: &str) -> StoreResult<Option<ApiKey>> {
        Ok(self.lock().keys.iter().find(|k| k.hash == hash).cloned())
    }

    async fn list_api_keys(&self, account: &AccountId) -> StoreResult<Vec<ApiKey>> {
        Ok(self
            .lock()
            .keys
            .iter()
            .filter(|k| k.account == account)
            .cloned()
            .collect())
    }

    async fn revoke_api_key(
        &self,
        account: &AccountId,
        key_id: &ApiKeyId,
        at: Timestamp,
    ) -> StoreResult<bool> {
        let mut g = self.lock();
        match g
            .keys
            .iter_mut()
            .find(|k| k.account == account && k.id == key_id && k.revoked_at.is_none())
        {
            Some(k) => {
                k.revoked_at = Some(at);
                Ok(true)
            }
            None => Ok(false),
        }
    }
}
