//! Envelope views as JSON, kept by record version.
//!
//! Most of a `GET /v1/envelopes/{id}` used to be turning the stored record into its answer:
//! decoding the record's JSON (its placed fields are most of it, and the view shows none of them)
//! and encoding the view again, about half of the request's instructions with the SQLite store
//! (docs/PERFORMANCE.md, "Instructions per GET"). A record changes only by a write that raises
//! its version ([`EnvelopeStore`](crate::store::EnvelopeStore), "Stamps"), and its view is a
//! function of the record alone, so the JSON made from one version is kept here under
//! `(id, version)` and given again while the store's stamp shows that version. The stamp read is
//! the only storage work of such a GET. Another process writing the same database raises the
//! version like this one does, so a kept view is never served for a record that has moved on.
//!
//! What decides correctness is the stamp read, not this map: it is scoped (an envelope of another
//! account or mode reads as missing before the map is asked), and an expiry that came due since
//! the view was made is seen in the stamp and settled through the whole record.
//!
//! Bounded by bytes: past [`MAX_BYTES`], a quarter of the entries goes (whichever the map holds
//! first); a bound matters more than a policy, and the next read of a dropped view rebuilds it.

use std::collections::HashMap;
use std::sync::Mutex;

use bytes::Bytes;

use crate::ids::EnvelopeId;

/// The bytes of JSON kept at most (an envelope's view is about 1 KB: some 16 000 envelopes).
pub(crate) const MAX_BYTES: usize = 16 * 1024 * 1024;

/// A view larger than this is not kept (views are about 1 KB; the largest possible, with every
/// signer, carbon copy, document and metadata key the limits allow, is far below it).
const MAX_ONE: usize = MAX_BYTES / 64;

struct Kept {
    version: u64,
    json: Bytes,
}

#[derive(Default)]
pub(crate) struct EnvelopeViews {
    map: Mutex<Views>,
}

#[derive(Default)]
struct Views {
    by_id: HashMap<EnvelopeId, Kept>,
    bytes: usize,
}

impl std::fmt::Debug for EnvelopeViews {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let g = self.lock();
        f.debug_struct("EnvelopeViews")
            .field("entries", &g.by_id.len())
            .field("bytes", &g.bytes)
            .finish()
    }
}

impl EnvelopeViews {
    fn lock(&self) -> std::sync::MutexGuard<'_, Views> {
        self.map.lock().unwrap_or_else(|poison| poison.into_inner())
    }

    /// The JSON of `id`'s view at `version`, if it is kept.
    pub(crate) fn get(&self, id: &EnvelopeId, version: u64) -> Option<Bytes> {
        let g = self.lock();
        g.by_id
            .get(id)
            .filter(|k| k.version == version)
            .map(|k| k.json.clone())
    }

    /// Keeps `json` as `id`'s view at `version`, unless a newer version is kept already (two
    /// reads racing a write may finish in either order).
    pub(crate) fn put(&self, id: &EnvelopeId, version: u64, json: Bytes) {
        let mut g = self.lock();
        let size = json.len();
        if size > MAX_ONE || g.by_id.get(id).is_some_and(|k| k.version >= version) {
            return;
        }
        if g.bytes + size > MAX_BYTES {
            let mut drop = g.by_id.len().div_ceil(4);
            let mut freed = 0;
            g.by_id.retain(|_, k| {
                if drop == 0 {
                    return true;
                }
                drop -= 1;
                freed += k.json.len();
                false
            });
            g.bytes -= freed;
        }
        if let Some(old) = g.by_id.insert(id.clone(), Kept { version, json }) {
            g.bytes -= old.json.len();
        }
        g.bytes += size;
    }

    #[cfg(test)]
    fn bytes(&self) -> usize {
        self.lock().bytes
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().by_id.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: usize) -> EnvelopeId {
        EnvelopeId::trusted(format!("env_{n:024}"))
    }

    #[test]
    fn a_view_is_given_for_its_version_only() {
        let views = EnvelopeViews::default();
        views.put(&id(1), 3, Bytes::from_static(b"{\"v\":3}"));
        assert_eq!(views.get(&id(1), 3).as_deref(), Some(&b"{\"v\":3}"[..]));
        assert_eq!(views.get(&id(1), 2), None);
        assert_eq!(views.get(&id(1), 4), None);
        assert_eq!(views.get(&id(2), 3), None);
    }

    #[test]
    fn an_older_version_never_replaces_a_newer_one() {
        let views = EnvelopeViews::default();
        views.put(&id(1), 5, Bytes::from_static(b"five"));
        views.put(&id(1), 4, Bytes::from_static(b"four"));
        assert_eq!(views.get(&id(1), 5).as_deref(), Some(&b"five"[..]));
        assert_eq!(views.get(&id(1), 4), None);
        views.put(&id(1), 6, Bytes::from_static(b"six!!"));
        assert_eq!(views.get(&id(1), 6).as_deref(), Some(&b"six!!"[..]));
        assert_eq!(views.bytes(), 5);
    }

    #[test]
    fn the_map_stays_under_its_bound() {
        let views = EnvelopeViews::default();
        let json = Bytes::from(vec![b'x'; 1024]);
        let n = MAX_BYTES / 1024 * 2;
        for i in 0..n {
            views.put(&id(i), 1, json.clone());
            assert!(
                views.bytes() <= MAX_BYTES,
                "{} bytes after {i}",
                views.bytes()
            );
        }
        assert_eq!(views.bytes(), views.len() * 1024);
        assert!(views.len() > MAX_BYTES / 1024 / 2, "{} kept", views.len());
        // The newest is always kept.
        assert!(views.get(&id(n - 1), 1).is_some());
    }
}
