//! SQLite point reads on the calling thread.
//!
//! sqlx runs each SQLite connection on a thread of its own and hands every query and every row
//! across a channel: two thread switches per query, which cost far more than the B-tree lookup of
//! a read by key (a few microseconds on a cached page). Every API request starts with such a
//! read (its key and account), and most then read one record, so for the hot point reads this
//! module keeps a few plain connections (rusqlite, over the same SQLite library as sqlx) and runs
//! the statement right where the caller is. Lists, blob chunks and every write stay on sqlx.
//!
//! The connections are read-only (`query_only`), share the database's WAL, read the database
//! file through a memory map, and are kept in a small free list; a read takes one, or opens one when all are busy. A read blocks its thread
//! for the length of one indexed lookup; under WAL a reader never waits for the writer, and the
//! busy timeout below only matters while SQLite recovers the WAL after a crash.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, Params, Row};

use crate::store::{StoreError, StoreResult};

/// Connections kept open when idle (more are opened under load and then closed).
const KEEP: usize = 8;
const BUSY_TIMEOUT: Duration = Duration::from_millis(250);
const MMAP_BYTES: i64 = 1 << 30;

pub(crate) struct InlineReads {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
}

impl std::fmt::Debug for InlineReads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InlineReads")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl InlineReads {
    /// Reads of the SQLite database at `path`, which must exist (open it with sqlx first).
    pub(crate) fn new(path: &Path) -> StoreResult<InlineReads> {
        let reads = InlineReads {
            path: path.to_path_buf(),
            idle: Mutex::new(Vec::new()),
        };
        let first = reads.open()?; // fail at open time, not at the first request
        reads.put_back(first);
        Ok(reads)
    }

    fn open(&self) -> StoreResult<Connection> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        let conn = Connection::open_with_flags(&self.path, flags).map_err(unavailable)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(unavailable)?;
        conn.pragma_update(None, "query_only", true)
            .map_err(unavailable)?;
        // Pages are read through a memory map of the database file (up to 1 GiB; the page cache
        // of the operating system is shared by all these connections), not one `pread` each.
        // The cost: an I/O error under the map is a SIGBUS, which stops the process rather
        // than failing the one read. These connections never write.
        conn.pragma_update(None, "mmap_size", MMAP_BYTES)
            .map_err(unavailable)?;
        conn.set_prepared_statement_cache_capacity(32);
        Ok(conn)
    }

    fn take(&self) -> StoreResult<Connection> {
        let idle = self
            .idle
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .pop();
        match idle {
            Some(conn) => Ok(conn),
            None => self.open(),
        }
    }

    fn put_back(&self, conn: Connection) {
        let mut idle = self
            .idle
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        if idle.len() < KEEP {
            idle.push(conn);
        }
    }

    /// The first row of `sql` (a constant: its statement is cached per connection), mapped.
    pub(crate) fn row<T>(
        &self,
        sql: &'static str,
        params: impl Params,
        map: impl FnOnce(&Row<'_>) -> rusqlite::Result<T>,
    ) -> StoreResult<Option<T>> {
        let conn = self.take()?;
        let result = conn
            .prepare_cached(sql)
            .and_then(|mut stmt| stmt.query_row(params, map).optional());
        // A statement that failed leaves the connection as good as before (no transaction).
        self.put_back(conn);
        result.map_err(unavailable)
    }

    /// The first column of the first row of `sql`, which must be text, handed to `decode` as
    /// SQLite holds it: no `String` copy of a stored record before it is parsed.
    pub(crate) fn text<T>(
        &self,
        sql: &'static str,
        params: impl Params,
        decode: impl FnOnce(&str) -> StoreResult<T>,
    ) -> StoreResult<Option<T>> {
        self.row(sql, params, |r| {
            let text = r.get_ref(0)?.as_str().map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, e.into())
            })?;
            Ok(decode(text))
        })?
        .transpose()
    }
}

fn unavailable(e: rusqlite::Error) -> StoreError {
    StoreError::Unavailable(Box::new(e))
}
