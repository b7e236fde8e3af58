//! One page of a list: its parameters become the store's [`PageRequest`], and a
//! `starting_after` that names nothing becomes the same error for every list
//! ([`unknown_cursor`]). The list operations call [`page`]; what they make of the items is theirs.

use super::params::{ListParams, unknown_cursor};
use crate::error::Result;
use crate::store::{Listed, PageRequest, StoreResult};

/// The items of the page `list` asks for, newest first, and whether more follow them, as `read`
/// (one of the store's list calls) gives them. A cursor that names no `resource` in scope is
/// `404 resource_missing` on `starting_after`.
pub(crate) async fn page<T>(
    list: &ListParams,
    resource: &'static str,
    read: impl AsyncFnOnce(&PageRequest) -> StoreResult<Listed<T>>,
) -> Result<(Vec<T>, bool)> {
    let page = PageRequest {
        limit: list.limit,
        starting_after: list.starting_after.clone(),
    };
    match read(&page).await? {
        Listed::Page(items, more) => Ok((items, more)),
        Listed::UnknownCursor => Err(unknown_cursor(resource, &page)),
    }
}
