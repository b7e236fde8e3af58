//! Group commit for SQLite: many write transactions, one fsync.
//!
//! SQLite's `synchronous=FULL` fsyncs the WAL inside every `COMMIT`, while the write lock is
//! held, so writers queue behind each other's fsyncs: on a disk whose fsync takes ~1 ms that caps
//! the whole store near 1 000 commits per second however many requests are in flight. SQLite has
//! no group commit of its own, so this module builds one around it:
//!
//! - connections run with `synchronous=NORMAL`: in WAL mode a `COMMIT` then only `write`s its
//!   frames to the WAL (and checkpoints still fsync the WAL before and the database after, so the
//!   file stays consistent whatever happens);
//! - writers of this process take turns on an async lock ([`GroupCommit::write_turn`]), so they
//!   never meet SQLite's busy handler, whose back-off sleeps of 1 to 100 ms waste the lock;
//! - after its `COMMIT` a writer takes a ticket and waits for [`GroupCommit::durable`]. One
//!   syncer task fsyncs the WAL file (and its directory when the file is new) for every ticket
//!   handed out before the fsync began, so the writers that committed during one fsync share the
//!   next one;
//! - a reader first waits for every commit begun before it to be on disk
//!   ([`GroupCommit::visible`]), so no one ever sees a state that a power loss could take back.
//!   With no write in flight this costs two atomic loads.
//!
//! The promise is the one `synchronous=FULL` gives: a write returns `Ok` only once its commit is
//! on disk. WAL frames are appended in commit order and recovery keeps the longest prefix of
//! whole commits whose checksums hold, so an fsync that starts after a commit's `write`s covers
//! that commit and every one before it.
//!
//! Cancellation: a ticket is completed by its guard's `Drop`, so a writer dropped mid-commit never
//! leaves readers waiting for a ticket that nothing will sync. The syncer runs in its own task
//! and ends when the store (every [`GroupCommit`] handle) is dropped.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::{Mutex, MutexGuard, watch};

use crate::store::{StoreError, StoreResult};

/// What the syncer has made durable: every ticket up to `upto`, unless an fsync failed.
#[derive(Debug, Clone, Default)]
struct Synced {
    upto: u64,
    /// Set for good by the first failed fsync: after it the kernel may have dropped dirty pages
    /// (and cleared the error), so nothing written since can be promised. Restart the process.
    failed: Option<Arc<str>>,
}

/// Counters of the group commit, for benchmarks and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CommitStats {
    /// Write transactions committed (tickets handed out).
    pub commits: u64,
    /// fsyncs of the WAL that made them durable.
    pub syncs: u64,
}

/// The shared state of one SQLite database's writers and syncer. Cheap to clone.
#[derive(Clone)]
pub(crate) struct GroupCommit {
    inner: Arc<Inner>,
}

struct Inner {
    /// Serializes this process's write transactions (`BEGIN IMMEDIATE` .. `COMMIT`).
    write_lock: Mutex<()>,
    /// Tickets handed out, each just before a `COMMIT` is sent.
    issued: AtomicU64,
    /// The highest ticket whose `COMMIT` has returned (or been abandoned).
    completed: watch::Sender<u64>,
    /// Published by the syncer.
    synced: watch::Receiver<Synced>,
    syncs: Arc<AtomicU64>,
}

impl std::fmt::Debug for GroupCommit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupCommit")
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

/// A way to make everything written so far durable (the WAL fsync; tests substitute their own).
pub(crate) type SyncFn = Arc<dyn Fn() -> io::Result<()> + Send + Sync>;

/// Makes everything written to a SQLite WAL so far durable: the seam of the group commit's
/// fsync. The store fsyncs its WAL file itself;
/// [`SqlStore::open_sqlite_with_wal_sync`](super::SqlStore::open_sqlite_with_wal_sync) takes another, so that a test can see what a
/// failed fsync does to the store and to the process above it.
pub trait WalSync: Send + Sync + 'static {
    /// Makes every write to the WAL so far durable; `Err` when it could not (the store then fails
    /// for good).
    fn sync(&self) -> io::Result<()>;
}

impl GroupCommit {
    /// Group commit for the SQLite database at `db` (its WAL is `<db>-wal`), with its syncer
    /// spawned on the current Tokio runtime.
    pub(crate) fn for_database(db: &Path) -> GroupCommit {
        GroupCommit::with_sync(Arc::new(WalFile::new(db).into_sync_fn()))
    }

    /// Group commit whose fsync is `sync`.
    pub(crate) fn with_wal_sync(sync: Arc<dyn WalSync>) -> GroupCommit {
        GroupCommit::with_sync(Arc::new(move || sync.sync()))
    }

    pub(crate) fn with_sync(sync: SyncFn) -> GroupCommit {
        let (completed_tx, completed_rx) = watch::channel(0);
        let (synced_tx, synced_rx) = watch::channel(Synced::default());
        let syncs = Arc::new(AtomicU64::new(0));
        tokio::spawn(syncer(sync, completed_rx, synced_tx, syncs.clone()));
        GroupCommit {
            inner: Arc::new(Inner {
                write_lock: Mutex::new(()),
                issued: AtomicU64::new(0),
                completed: completed_tx,
                synced: synced_rx,
                syncs,
            }),
        }
    }

    /// Waits for this process's turn to write. Hold the guard from `BEGIN` to `COMMIT`.
    pub(crate) async fn write_turn(&self) -> MutexGuard<'_, ()> {
        self.inner.write_lock.lock().await
    }

    /// A ticket for the commit about to be sent. Call [`Ticket::committed`] once `COMMIT`
    /// returns; dropping the ticket instead (an error or a cancelled caller) completes it too.
    pub(crate) fn ticket(&self) -> Ticket<'_> {
        let n = self.inner.issued.fetch_add(1, Ordering::AcqRel) + 1;
        Ticket { gc: self, n }
    }

    /// Waits until ticket `n` is on disk.
    async fn durable(&self, n: u64) -> StoreResult<()> {
        let mut synced = self.inner.synced.clone();
        let state = synced
            .wait_for(|s| s.upto >= n || s.failed.is_some())
            .await
            .map_err(|_| StoreError::Unavailable("the SQLite syncer has stopped".into()))?;
        match &state.failed {
            // A failure after our ticket was synced does not undo it.
            Some(why) if state.upto < n => Err(StoreError::Unavailable(
                format!("fsync of the SQLite WAL failed; restart the process: {why}").into(),
            )),
            _ => Ok(()),
        }
    }

    /// Waits until every commit begun before this call is on disk, so that a read that follows
    /// cannot see a state a power loss could undo.
    pub(crate) async fn visible(&self) -> StoreResult<()> {
        let n = self.inner.issued.load(Ordering::Acquire);
        if self.inner.synced.borrow().upto >= n {
            return Ok(());
        }
        self.durable(n).await
    }

    /// Why the store failed for good, once an fsync has failed.
    pub(crate) fn failure(&self) -> Option<Arc<str>> {
        self.inner.synced.borrow().failed.clone()
    }

    /// Waits until an fsync fails (for ever on a healthy disk), and says why.
    pub(crate) async fn failed(&self) -> Arc<str> {
        let mut synced = self.inner.synced.clone();
        let failed = synced
            .wait_for(|s| s.failed.is_some())
            .await
            .map(|state| state.failed.clone());
        match failed {
            Ok(why) => why.unwrap_or_else(|| "fsync failed".into()),
            // The syncer is gone only when the store is: nothing is left to fail.
            Err(_) => std::future::pending().await,
        }
    }

    /// Follows the highest completed ticket (for work that paces itself by commits).
    pub(crate) fn subscribe_completed(&self) -> watch::Receiver<u64> {
        self.inner.completed.subscribe()
    }

    /// A handle that does not keep the group commit (and its syncer) alive.
    pub(crate) fn downgrade(&self) -> WeakGroupCommit {
        WeakGroupCommit(Arc::downgrade(&self.inner))
    }

    pub(crate) fn stats(&self) -> CommitStats {
        CommitStats {
            commits: self.inner.issued.load(Ordering::Acquire),
            syncs: self.inner.syncs.load(Ordering::Acquire),
        }
    }
}

/// See [`GroupCommit::downgrade`].
pub(crate) struct WeakGroupCommit(std::sync::Weak<Inner>);

impl WeakGroupCommit {
    pub(crate) fn upgrade(&self) -> Option<GroupCommit> {
        self.0.upgrade().map(|inner| GroupCommit { inner })
    }
}

/// A commit in flight; see [`GroupCommit::ticket`].
pub(crate) struct Ticket<'a> {
    gc: &'a GroupCommit,
    n: u64,
}

impl Ticket<'_> {
    /// Marks the commit done and waits until it is on disk.
    pub(crate) async fn committed(self) -> StoreResult<()> {
        let (gc, n) = (self.gc, self.n);
        drop(self);
        gc.durable(n).await
    }
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        // Writers are serialized, so tickets complete in order; `max` keeps it monotonic anyway.
        let n = self.n;
        self.gc.inner.completed.send_if_modified(|c| {
            let moved = n > *c;
            *c = (*c).max(n);
            moved
        });
    }
}

/// Syncs whenever tickets completed since the last fsync, until every sender is gone.
async fn syncer(
    sync: SyncFn,
    mut completed: watch::Receiver<u64>,
    synced: watch::Sender<Synced>,
    syncs: Arc<AtomicU64>,
) {
    loop {
        if completed.changed().await.is_err() {
            return; // the store was dropped
        }
        let upto = *completed.borrow_and_update();
        if synced.borrow().upto >= upto || synced.borrow().failed.is_some() {
            continue;
        }
        let sync = sync.clone();
        let result = match tokio::task::spawn_blocking(move || sync()).await {
            Ok(r) => r,
            Err(e) => Err(io::Error::other(e.to_string())),
        };
        syncs.fetch_add(1, Ordering::AcqRel);
        match result {
            Ok(()) => {
                synced.send_modify(|s| s.upto = s.upto.max(upto));
            }
            Err(e) => {
                tracing::error!(error = %e, "fsync of the SQLite WAL failed; writes now fail");
                synced.send_modify(|s| s.failed = Some(e.to_string().into()));
            }
        }
    }
}

/// The WAL file of a database, fsynced by path.
///
/// It is opened anew for each sync because SQLite may delete and re-create it (when the last
/// connection closes); a new file's directory entry is fsynced too, once. A missing WAL has been
/// checkpointed into the database, which SQLite fsyncs before deleting the WAL.
struct WalFile {
    wal: PathBuf,
    dir: PathBuf,
    last_inode: std::sync::Mutex<Option<u64>>,
}

impl WalFile {
    fn new(db: &Path) -> WalFile {
        let mut wal = db.as_os_str().to_owned();
        wal.push("-wal");
        let dir = match db.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        WalFile {
            wal: wal.into(),
            dir,
            last_inode: std::sync::Mutex::new(None),
        }
    }

    fn sync(&self) -> io::Result<()> {
        let file = match std::fs::File::open(&self.wal) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        };
        file.sync_data()?;
        let inode = inode_of(&file)?;
        let mut last = self
            .last_inode
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        if *last != Some(inode) {
            std::fs::File::open(&self.dir)?.sync_all()?;
            *last = Some(inode);
        }
        Ok(())
    }

    fn into_sync_fn(self) -> impl Fn() -> io::Result<()> + Send + Sync {
        move || self.sync()
    }
}

#[cfg(unix)]
fn inode_of(file: &std::fs::File) -> io::Result<u64> {
    use std::os::unix::fs::MetadataExt;
    Ok(file.metadata()?.ino())
}

#[cfg(not(unix))]
fn inode_of(_file: &std::fs::File) -> io::Result<u64> {
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    /// A sync that blocks until the test lets it go, counting calls.
    struct Gate {
        calls: AtomicUsize,
        open: std::sync::Mutex<bool>,
        cv: std::sync::Condvar,
        fail: bool,
    }

    impl Gate {
        fn new(fail: bool) -> Arc<Gate> {
            Arc::new(Gate {
                calls: AtomicUsize::new(0),
                open: std::sync::Mutex::new(false),
                cv: std::sync::Condvar::new(),
                fail,
            })
        }
        fn sync_fn(self: &Arc<Gate>) -> SyncFn {
            let g = self.clone();
            Arc::new(move || {
                g.calls.fetch_add(1, Ordering::SeqCst);
                let mut open = g.open.lock().unwrap();
                while !*open {
                    open = g.cv.wait(open).unwrap();
                }
                if g.fail {
                    Err(io::Error::other("disk on fire"))
                } else {
                    Ok(())
                }
            })
        }
        fn release(&self) {
            *self.open.lock().unwrap() = true;
            self.cv.notify_all();
        }
    }

    async fn commit(gc: &GroupCommit) -> StoreResult<()> {
        let _turn = gc.write_turn().await;
        let t = gc.ticket();
        drop(_turn);
        t.committed().await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_commit_waits_for_its_fsync() {
        let gate = Gate::new(false);
        let gc = GroupCommit::with_sync(gate.sync_fn());
        let task = tokio::spawn({
            let gc = gc.clone();
            async move { commit(&gc).await }
        });
        while gate.calls.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
        // The fsync is blocked: neither the writer nor a reader may go on.
        assert!(!task.is_finished());
        let reader = tokio::spawn({
            let gc = gc.clone();
            async move { gc.visible().await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!task.is_finished() && !reader.is_finished());
        gate.release();
        task.await.unwrap().unwrap();
        reader.await.unwrap().unwrap();
        assert_eq!(gc.stats().commits, 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn commits_during_one_fsync_share_the_next() {
        let gate = Gate::new(false);
        let gc = GroupCommit::with_sync(gate.sync_fn());
        let first = tokio::spawn({
            let gc = gc.clone();
            async move { commit(&gc).await }
        });
        while gate.calls.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
        // Ten more commit while the first fsync is blocked.
        let rest: Vec<_> = (0..10)
            .map(|_| {
                let gc = gc.clone();
                tokio::spawn(async move { commit(&gc).await })
            })
            .collect();
        while gc.stats().commits < 11 {
            tokio::task::yield_now().await;
        }
        gate.release();
        first.await.unwrap().unwrap();
        for t in rest {
            t.await.unwrap().unwrap();
        }
        let stats = gc.stats();
        assert_eq!(stats.commits, 11);
        assert_eq!(stats.syncs, 2, "one fsync for the first, one for the ten");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failed_fsync_fails_the_write_and_every_later_one() {
        let gate = Gate::new(true);
        gate.release();
        let gc = GroupCommit::with_sync(gate.sync_fn());
        let err = commit(&gc).await.unwrap_err();
        assert!(err.to_string().contains("disk on fire"), "{err}");
        assert!(commit(&gc).await.is_err());
        assert!(gc.visible().await.is_err());
        assert!(gc.failure().is_some_and(|why| why.contains("disk on fire")));
        assert!(gc.failed().await.contains("disk on fire"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_healthy_store_has_not_failed() {
        let gate = Gate::new(false);
        gate.release();
        let gc = GroupCommit::with_sync(gate.sync_fn());
        commit(&gc).await.unwrap();
        assert!(gc.failure().is_none());
        let waiting = tokio::time::timeout(Duration::from_millis(50), gc.failed()).await;
        assert!(
            waiting.is_err(),
            "failed() waits while every fsync succeeds"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_abandoned_commit_does_not_block_readers() {
        let gate = Gate::new(false);
        gate.release();
        let gc = GroupCommit::with_sync(gate.sync_fn());
        {
            let _turn = gc.write_turn().await;
            let _ticket = gc.ticket(); // dropped without `committed`, as on a cancelled write
        }
        tokio::time::timeout(Duration::from_secs(10), gc.visible())
            .await
            .expect("readers wait only for the sync of the abandoned ticket")
            .unwrap();
    }

    #[test]
    fn the_wal_is_synced_and_a_missing_one_is_not_an_error() {
        let dir = std::env::temp_dir().join(format!("gc-wal-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("envelope.db");
        let wal = WalFile::new(&db);
        wal.sync().unwrap(); // no WAL yet
        std::fs::write(dir.join("envelope.db-wal"), b"frames").unwrap();
        wal.sync().unwrap();
        assert!(wal.last_inode.lock().unwrap().is_some());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
