//! [`FileMailer`]: one RFC 5322 `.eml` file per email, in a directory.
//!
//! The server's mailer when no SMTP relay is configured, so that no email is silently dropped:
//! every message can be opened in a mail client or read by a test. Files are written to a hidden
//! temporary name and renamed into place, so a reader never sees half a message.
//!
//! The files hold signing links and signed PDFs, so they fall under the retention of their
//! envelope's mode: the name says when the file was written and in which mode, and
//! [`Mailer::forget_before`] deletes those of a mode written before a cutoff (the service's
//! retention sweep calls it).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use lettre::message::Mailbox as LMailbox;

use super::message::{build, mailbox, random_token};
use super::{Email, MailError, Mailbox, Mailer};
use crate::clock::{Clock, SystemClock, Timestamp};
use crate::error::BoxError;
use crate::model::Mode;

/// Writes each email as `<UTC timestamp>-<mode>-<kind>-<random>.eml` into a directory.
///
/// Names sort by time: `20250101T120000.123456Z-test-signing_request-a1b2c3d4.eml`. Files
/// written before the mode was part of the name (`<timestamp>-<kind>-<random>.eml`) count as
/// live: they are deleted only by live retention.
#[derive(Clone)]
pub struct FileMailer {
    dir: PathBuf,
    from: LMailbox,
    clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for FileMailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileMailer")
            .field("dir", &self.dir)
            .field("from", &self.from.to_string())
            .finish_non_exhaustive()
    }
}

impl FileMailer {
    /// Creates `dir` (and its parents, 0700) if needed; messages are written 0600 (they carry
    /// signing links). The sender is [`Mailbox::default_from`].
    pub fn new(dir: impl Into<PathBuf>) -> Result<Self, MailError> {
        let dir = dir.into();
        crate::private_files::create_dir_all(&dir)?;
        Ok(Self {
            dir,
            from: mailbox(&Mailbox::default_from())?,
            clock: Arc::new(SystemClock),
        })
    }

    /// The `From` of every message.
    pub fn with_from(mut self, from: Mailbox) -> Result<Self, MailError> {
        self.from = mailbox(&from)?;
        Ok(self)
    }

    /// The clock that dates messages and names files (the service's, so that tests can drive
    /// it); default [`SystemClock`].
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Where the files go.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes `email` and returns the path of its file.
    pub async fn write(&self, email: &Email) -> Result<PathBuf, MailError> {
        let now = self.clock.now();
        let bytes = build(email, &self.from, now)?.formatted();
        let name = format!(
            "{}-{}-{}-{}.eml",
            now.datetime().format(STAMP),
            email.mode.as_str(),
            email.kind.as_str(),
            random_token(8).to_ascii_lowercase()
        );
        let dir = self.dir.clone();
        tokio::task::spawn_blocking(move || write_atomically(&dir, &name, &bytes))
            .await
            .map_err(std::io::Error::other)?
    }
}

/// The timestamp at the start of each file name.
const STAMP: &str = "%Y%m%dT%H%M%S%.6fZ";

/// When the file named `name` was written, and in which mode; `None` for a name this mailer
/// did not make (such files are never deleted).
fn parse_name(name: &str) -> Option<(Timestamp, Mode)> {
    let rest = name.strip_suffix(".eml")?;
    let (stamp, rest) = rest.split_once('-')?;
    let at = chrono::NaiveDateTime::parse_from_str(stamp, STAMP).ok()?;
    let at = Timestamp::from_millis(at.and_utc().timestamp_millis())?;
    let mode = match rest.split_once('-').map(|(m, _)| m) {
        Some("test") => Mode::Test,
        // `live`, or a name from before the mode was in it: kept as long as live mail.
        _ => Mode::Live,
    };
    Some((at, mode))
}

/// Deletes the files of `mode` in `dir` written before `before`; returns how many.
fn forget(dir: &Path, mode: Mode, before: Timestamp) -> std::io::Result<usize> {
    let mut deleted = 0;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some((at, m)) = name.to_str().and_then(parse_name) else {
            continue;
        };
        if m != mode || at >= before {
            continue;
        }
        match std::fs::remove_file(entry.path()) {
            Ok(()) => deleted += 1,
            // Another process's sweep came first.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(deleted)
}

fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, MailError> {
    let tmp = dir.join(format!(".{name}.tmp"));
    let path = dir.join(name);
    let written = (|| {
        let mut f = crate::private_files::create_new(&tmp)?;
        f.write_all(bytes)?;
        // Durable before it becomes visible: a crash leaves a temp file, never a torn .eml.
        f.sync_all()?;
        std::fs::rename(&tmp, &path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e.into());
    }
    Ok(path)
}

#[async_trait]
impl Mailer for FileMailer {
    async fn send(&self, email: &Email) -> Result<(), BoxError> {
        let path = self.write(email).await?;
        tracing::debug!(envelope = %email.envelope, kind = email.kind.as_str(), path = %path.display(), "email written");
        Ok(())
    }

    /// Deletes the `.eml` files of `mode` written before `before`.
    async fn forget_before(&self, mode: Mode, before: Timestamp) -> Result<usize, BoxError> {
        let dir = self.dir.clone();
        let n = tokio::task::spawn_blocking(move || forget(&dir, mode, before))
            .await
            .map_err(std::io::Error::other)??;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use mail_parser::{MessageParser, MimeHeaders};

    use super::*;
    use crate::mail::message::tests::rich_email;

    fn files(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    #[tokio::test]
    async fn writes_one_parsable_eml_per_email() {
        let tmp = tempfile::tempdir().unwrap();
        let mailer = FileMailer::new(tmp.path().join("outbox")).unwrap();
        let email = rich_email();
        mailer.send(&email).await.unwrap();

        let names = files(mailer.dir());
        assert_eq!(names.len(), 1, "{names:?}");
        let name = &names[0];
        let (stamp, rest) = name.split_once('-').unwrap();
        assert_eq!(stamp.len(), "20250101T120000.123456Z".len(), "{name}");
        assert!(
            rest.starts_with("live-completed-") && rest.ends_with(".eml"),
            "{name}"
        );

        let bytes = std::fs::read(mailer.dir().join(name)).unwrap();
        let m = MessageParser::default().parse(&bytes).unwrap();
        assert_eq!(
            m.to().unwrap().first().unwrap().name(),
            Some("Zoë Ångström")
        );
        assert_eq!(m.subject(), Some(email.subject.as_str()));
        assert_eq!(
            m.from().unwrap().first().unwrap().address(),
            Some("no-reply@localhost")
        );
        assert_eq!(
            m.attachment(0).unwrap().attachment_name(),
            Some("Umowa Łukasz.pdf")
        );
    }

    #[tokio::test]
    async fn concurrent_sends_never_collide_or_leave_temp_files() {
        let tmp = tempfile::tempdir().unwrap();
        let from = Mailbox {
            name: "Acme Signing".into(),
            email: "sign@acme.example".into(),
        };
        let mailer = Arc::new(
            FileMailer::new(tmp.path())
                .unwrap()
                .with_from(from)
                .unwrap(),
        );
        let sends = (0..16).map(|_| {
            let mailer = mailer.clone();
            tokio::spawn(async move { mailer.send(&rich_email()).await.unwrap() })
        });
        for s in sends {
            s.await.unwrap();
        }
        let names = files(tmp.path());
        assert_eq!(names.len(), 16);
        assert!(
            names
                .iter()
                .all(|n| n.ends_with(".eml") && !n.starts_with('.'))
        );
        let bytes = std::fs::read(tmp.path().join(&names[0])).unwrap();
        let m = MessageParser::default().parse(&bytes).unwrap();
        assert_eq!(
            m.from().unwrap().first().unwrap().address(),
            Some("sign@acme.example")
        );
    }

    #[tokio::test]
    async fn the_clock_dates_the_message_and_names_the_file() {
        let tmp = tempfile::tempdir().unwrap();
        let at = crate::Timestamp::from_millis(1_800_000_000_123).unwrap();
        let mailer = FileMailer::new(tmp.path())
            .unwrap()
            .with_clock(Arc::new(crate::ManualClock::new(at)));
        let path = mailer.write(&rich_email()).await.unwrap();
        let name = path.file_name().unwrap().to_str().unwrap();
        assert!(
            name.starts_with("20270115T080000.123000Z-live-completed-"),
            "{name}"
        );
        let bytes = std::fs::read(&path).unwrap();
        let m = MessageParser::default().parse(&bytes).unwrap();
        assert_eq!(m.date().unwrap().to_timestamp(), 1_800_000_000);
    }

    #[test]
    fn names_say_when_and_in_which_mode() {
        let cases: &[(&str, Option<(&str, Mode)>)] = &[
            (
                "20270115T080000.123000Z-test-code-a1b2c3d4.eml",
                Some(("2027-01-15T08:00:00.123Z", Mode::Test)),
            ),
            (
                "20270115T080000.123000Z-live-signing_request-a1b2c3d4.eml",
                Some(("2027-01-15T08:00:00.123Z", Mode::Live)),
            ),
            // Written before the mode was in the name: kept as long as live mail.
            (
                "20250101T120000.000001Z-completed-a1b2c3d4.eml",
                Some(("2025-01-01T12:00:00.000Z", Mode::Live)),
            ),
            ("notes.txt", None),
            (".20270115T080000.123000Z-test-code-a1b2c3d4.eml.tmp", None),
            ("yesterday-test-code-a1b2c3d4.eml", None),
            ("20270115T080000.123000Z.eml", None),
        ];
        for (name, want) in cases {
            let want = want.map(|(t, m)| (crate::Timestamp::parse(t).unwrap(), m));
            assert_eq!(parse_name(name), want, "{name}");
        }
    }

    #[tokio::test]
    async fn forgets_the_files_of_a_mode_written_before_the_cutoff() {
        let tmp = tempfile::tempdir().unwrap();
        let clock = Arc::new(crate::ManualClock::new(
            crate::Timestamp::parse("2027-01-01T00:00:00.000Z").unwrap(),
        ));
        let mailer = FileMailer::new(tmp.path())
            .unwrap()
            .with_clock(clock.clone());
        let email = |mode| Email {
            mode,
            ..rich_email()
        };
        let old_test = mailer.write(&email(Mode::Test)).await.unwrap();
        let old_live = mailer.write(&email(Mode::Live)).await.unwrap();
        clock.advance(chrono::Duration::days(2));
        let cutoff = clock.now();
        let new_test = mailer.write(&email(Mode::Test)).await.unwrap();
        std::fs::write(tmp.path().join("notes.txt"), "kept").unwrap();

        assert_eq!(mailer.forget_before(Mode::Test, cutoff).await.unwrap(), 1);
        assert!(!old_test.exists());
        assert!(old_live.exists() && new_test.exists(), "other mode, newer");
        assert_eq!(mailer.forget_before(Mode::Test, cutoff).await.unwrap(), 0);
        assert_eq!(mailer.forget_before(Mode::Live, cutoff).await.unwrap(), 1);
        assert!(!old_live.exists());
        assert_eq!(files(tmp.path()).len(), 2, "the newer file and notes.txt");
    }

    #[tokio::test]
    async fn an_unwritable_directory_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let mailer = FileMailer::new(tmp.path().join("gone")).unwrap();
        std::fs::remove_dir(mailer.dir()).unwrap();
        assert!(mailer.send(&rich_email()).await.is_err());
    }
}
