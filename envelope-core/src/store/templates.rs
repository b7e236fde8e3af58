//! Templates: [`TemplateStore`].

use async_trait::async_trait;

use super::*;

/// Templates, versioned like envelopes.
///
/// # Contract
///
/// - **Isolation**: reads take a [`Scope`]; a template of another scope reads as missing.
/// - **Optimistic concurrency**: [`TemplateStore::update_template`] applies only when the stored
///   version is `template.version - 1`; otherwise [`StoreError::Conflict`], nothing written.
/// - **Held blobs and quota**: the insert records the template's file as held
///   ([`TemplateRecord::held_files`]) in the same transaction, and is refused with
///   [`StoreError::QuotaExceeded`], writing nothing, when the account would end above its
///   [`Account::storage_quota`].
/// - **Lists**: archived templates are left out; otherwise as [`Listed`] says.
///
/// Conformance clauses: `templates`, `scope_isolation`, `list_pagination`,
/// `storage_accounting`.
#[async_trait]
pub trait TemplateStore: Send + Sync + 'static {
    /// Inserts a template, with its held file ([`TemplateRecord::held_files`]) counted towards the
    /// account's stored bytes. [`StoreError::Duplicate`] when the ID exists;
    /// [`StoreError::QuotaExceeded`], writing nothing, when the account would end up above its
    /// storage quota.
    async fn insert_template(&self, template: &TemplateRecord) -> StoreResult<()>;
    /// The template with this ID in `scope`, archived or not; `None` when it does not exist or
    /// belongs to another scope.
    async fn get_template(
        &self,
        scope: &Scope,
        id: &TemplateId,
    ) -> StoreResult<Option<TemplateRecord>>;
    /// Writes `template` if the stored version is `template.version - 1`.
    async fn update_template(&self, template: &TemplateRecord) -> StoreResult<()>;
    /// Templates that are not archived.
    async fn list_templates(
        &self,
        scope: &Scope,
        page: &PageRequest,
    ) -> StoreResult<Listed<TemplateRecord>>;
}
