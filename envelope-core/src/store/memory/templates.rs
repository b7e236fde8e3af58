//! [`MemoryStore`]'s templates.

use async_trait::async_trait;

use super::*;

#[async_trait]
impl TemplateStore for MemoryStore {
    async fn insert_template(&self, template: &TemplateRecord) -> StoreResult<()> {
        let mut g = self.lock();
        if g.templates.by_id.contains_key(template.id.as_str()) {
            return Err(StoreError::Duplicate);
        }
        let new = template.held_files();
        g.check_quota(&template.account, g.hold_delta(&[], &new))?;
        g.apply_holds(&template.account, &[], &new);
        g.templates.insert(&template.id, template.clone())
    }

    async fn get_template(
        &self,
        scope: &Scope,
        id: &TemplateId,
    ) -> StoreResult<Option<TemplateRecord>> {
        Ok(self.lock().templates.get(scope, id))
    }

    async fn update_template(&self, template: &TemplateRecord) -> StoreResult<()> {
        let mut g = self.lock();
        let old = match g.templates.by_id.get(template.id.as_str()) {
            Some(t)
                if t.version + 1 == template.version
                    && (&t.account, t.mode) == (&template.account, template.mode) =>
            {
                t.clone()
            }
            _ => return Err(StoreError::Conflict),
        };
        g.apply_holds(&template.account, &old.held_files(), &template.held_files());
        g.templates
            .by_id
            .insert(template.id.to_string(), template.clone());
        Ok(())
    }

    async fn list_templates(
        &self,
        scope: &Scope,
        page: &PageRequest,
    ) -> StoreResult<Listed<TemplateRecord>> {
        Ok(self.lock().templates.list(scope, page, |t| !t.archived))
    }
}
