//! Opening a file a repository may have written: the log files the guards write and the files
//! the injectors and guards read from a project.
//!
//! # The rules it keeps
//!
//! - **Never a FIFO, a device or a socket**: a file is opened without blocking (`O_NONBLOCK`,
//!   so opening a FIFO with no writer returns at once) and refused unless it is a regular file
//!   ([`FileError::NotRegular`]); a FIFO planted at `.git/info/exclude` or at a prompt file
//!   cannot hang a turn.
//! - **Never through a symlink where the caller says so** ([`Links::Refuse`]): the last
//!   component is opened with `O_NOFOLLOW` ([`FileError::Symlink`]); a caller that must also
//!   keep the directories on the way real checks them itself.
//! - **Bounded**: [`read_capped`] reads at most `max` bytes (the file's full size is reported
//!   beside them), and gives up after a time limit — a read on a slow or hung filesystem is
//!   left to finish on a thread of its own, and the caller goes on.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Whether a symlink as the last component of a path is followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Links {
    /// Followed: the user's own setting named the path.
    Follow,
    /// Refused: the path is inside a project, where a repository could have planted the link.
    Refuse,
}

/// Why a file was not opened or read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FileError {
    /// Nothing at the path.
    #[error("it does not exist")]
    NotFound,
    /// A symlink, with [`Links::Refuse`].
    #[error(
        "it is a symbolic link, which is never followed here (a repository could plant one to point elsewhere)"
    )]
    Symlink,
    /// Not a regular file.
    #[error("it is {0}, not a regular file, so it is not opened")]
    NotRegular(&'static str),
    /// The read took longer than its time limit.
    #[error("reading it took longer than {0} ms")]
    TimedOut(u64),
    /// Any other error.
    #[error("{0}")]
    Io(std::io::Error),
}

impl From<std::io::Error> for FileError {
    fn from(e: std::io::Error) -> FileError {
        match e.kind() {
            std::io::ErrorKind::NotFound => FileError::NotFound,
            #[cfg(unix)]
            _ if e.raw_os_error() == Some(libc::ELOOP) => FileError::Symlink,
            _ => FileError::Io(e),
        }
    }
}

/// What kind of file `meta` describes, when it is not a regular one.
fn kind(meta: &std::fs::Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO");
        }
        if t.is_char_device() || t.is_block_device() {
            return Some("a device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    Some(if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symbolic link"
    } else {
        "a special file"
    })
}

/// `options` with `O_NONBLOCK`, and `O_NOFOLLOW` when `links` refuses them.
fn flags(options: &mut OpenOptions, links: Links) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let mut flags = libc::O_NONBLOCK;
        if links == Links::Refuse {
            flags |= libc::O_NOFOLLOW;
        }
        options.custom_flags(flags);
    }
    #[cfg(not(unix))]
    let _ = (options, links);
}

/// Opens `options` at `path` under the rules above: a regular file, or why not.
pub(crate) fn open(
    path: &Path,
    options: &mut OpenOptions,
    links: Links,
) -> Result<File, FileError> {
    #[cfg(not(unix))]
    if links == Links::Refuse
        && std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
    {
        return Err(FileError::Symlink);
    }
    flags(options, links);
    let file = options.open(path)?;
    if let Some(kind) = kind(&file.metadata()?) {
        return Err(FileError::NotRegular(kind));
    }
    Ok(file)
}

/// At most `max` bytes of a file, and its full size.
#[derive(Debug)]
pub(crate) struct Capped {
    /// The bytes read.
    pub(crate) bytes: Vec<u8>,
    /// The file's size.
    pub(crate) len: u64,
}

/// Reads at most `max` bytes of the regular file at `path`, within `timeout`.
pub(crate) fn read_capped(
    path: &Path,
    links: Links,
    max: u64,
    timeout: Duration,
) -> Result<Capped, FileError> {
    let (send, receive) = std::sync::mpsc::channel();
    let owned: PathBuf = path.to_owned();
    std::thread::spawn(move || {
        let read = || -> Result<Capped, FileError> {
            let file = open(&owned, OpenOptions::new().read(true), links)?;
            let len = file.metadata()?.len();
            let mut bytes = Vec::new();
            file.take(max).read_to_end(&mut bytes)?;
            Ok(Capped { bytes, len })
        };
        let _ = send.send(read());
    });
    receive
        .recv_timeout(timeout)
        .unwrap_or(Err(FileError::TimedOut(timeout.as_millis() as u64)))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_is_refused_at_once_and_a_symlink_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let read = read_capped(&fifo, Links::Follow, 10, Duration::from_secs(5));
            assert!(
                matches!(read, Err(FileError::NotRegular("a FIFO"))),
                "{read:?}"
            );
        }
        let file = dir.path().join("file");
        std::fs::write(&file, "0123456789").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let read = read_capped(&link, Links::Refuse, 4, Duration::from_secs(5));
        assert!(matches!(read, Err(FileError::Symlink)), "{read:?}");
        let read = read_capped(&link, Links::Follow, 4, Duration::from_secs(5)).unwrap();
        assert_eq!((read.bytes.as_slice(), read.len), (&b"0123"[..], 10));
    }
}
