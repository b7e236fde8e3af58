//! [`MemoryStore`]'s links.

use async_trait::async_trait;

use super::*;

#[async_trait]
impl LinkStore for MemoryStore {
    async fn insert_signing_token(&self, token: &SigningToken) -> StoreResult<()> {
        let mut g = self.lock();
        if g.signing_tokens.contains_key(&token.token_hash) {
            return Err(StoreError::Duplicate);
        }
        g.signing_tokens
            .insert(token.token_hash.clone(), token.clone());
        Ok(())
    }

    async fn signing_token(&self, token_hash: &str) -> StoreResult<Option<SigningToken>> {
        Ok(self.lock().signing_tokens.get(token_hash).cloned())
    }

    async fn insert_file_link(&self, link: &FileLink) -> StoreResult<()> {
        let mut g = self.lock();
        if g.file_links.contains_key(&link.token_hash) {
            return Err(StoreError::Duplicate);
        }
        g.file_links.insert(link.token_hash.clone(), link.clone());
        Ok(())
    }

    async fn file_link(&self, token_hash: &str) -> StoreResult<Option<FileLink>> {
        Ok(self.lock().file_links.get(token_hash).cloned())
    }

    async fn insert_builder_token(&self, token: &BuilderToken) -> StoreResult<()> {
        let mut g = self.lock();
        if g.builder_tokens.contains_key(&token.token_hash) {
            return Err(StoreError::Duplicate);
        }
        g.builder_tokens
            .insert(token.token_hash.clone(), token.clone());
        Ok(())
    }

    async fn builder_token(&self, token_hash: &str) -> StoreResult<Option<BuilderToken>> {
        Ok(self.lock().builder_tokens.get(token_hash).cloned())
    }
}
