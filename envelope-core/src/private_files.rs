//! Files and directories only their owner may read.
//!
//! The data dir holds the database (signer IPs, webhook secrets, encrypted idempotency records),
//! mail files (signing links), document bytes and keys: nothing in it is for other users of the
//! machine. Directories are created 0700 and files 0600 on Unix; elsewhere the platform's
//! defaults apply. Modes are set at creation, so there is no window in which a file is readable
//! by others; [`restrict`] tightens files that already exist.

use std::fs::File;
use std::io;
use std::path::Path;

/// Creates `dir` and its missing parents, each 0700. Existing directories keep their mode.
pub fn create_dir_all(dir: &Path) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Creates a new file, 0600, for writing; fails if it exists.
pub fn create_new(path: &Path) -> io::Result<File> {
    let mut open = std::fs::OpenOptions::new();
    open.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut open, 0o600);
    open.open(path)
}

/// Creates `path` empty and 0600 when missing (leaving an existing file as it is), so that a
/// program that creates it next (SQLite) starts from the owner-only mode.
pub fn touch(path: &Path) -> io::Result<()> {
    let mut open = std::fs::OpenOptions::new();
    open.write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut open, 0o600);
    open.open(path).map(drop)
}

/// Sets an existing file to 0600 (or a directory to 0700); a missing path is left alone.
pub fn restrict(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let meta = match std::fs::metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        };
        let mode = if meta.is_dir() { 0o700 } else { 0o600 };
        if meta.permissions().mode() & 0o777 != mode {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn created_dirs_and_files_are_owner_only() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("a/b");
        create_dir_all(&dir).unwrap();
        assert_eq!(mode(&root.path().join("a")), 0o700);
        assert_eq!(mode(&dir), 0o700);
        create_new(&dir.join("f")).unwrap();
        assert_eq!(mode(&dir.join("f")), 0o600);
        touch(&dir.join("g")).unwrap();
        assert_eq!(mode(&dir.join("g")), 0o600);
        std::fs::set_permissions(dir.join("g"), std::fs::Permissions::from_mode(0o644)).unwrap();
        restrict(&dir.join("g")).unwrap();
        assert_eq!(mode(&dir.join("g")), 0o600);
        restrict(&dir.join("missing")).unwrap();
    }
}
