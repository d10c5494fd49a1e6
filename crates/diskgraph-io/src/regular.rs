//! Opening the files a graph directory names: each must be a regular file (a symlink is
//! followed, and its target must be one). A FIFO, a device, a socket or a directory in a file's
//! place is refused before a byte is read: the path is checked with `stat` first (so a device is
//! never opened), then opened with `O_NONBLOCK` (so opening a FIFO swapped in meanwhile cannot
//! block) and checked again on the open descriptor with `fstat`, the check no race escapes;
//! `O_NONBLOCK` is cleared before the file is handed out. Metadata (JSON) files are read whole,
//! up to [`MAX_METADATA_BYTES`].
//!
//! Errors are `std::io::Error`s of kind `InvalidInput` saying what the file is ("is a FIFO, not
//! a regular file"); callers wrap them with the path.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

use rustix::fs::OFlags;

use crate::size::human_bytes;

/// The most bytes a metadata file (`manifest.json`, `split.json`, a layout's JSON) may have:
/// far more than any this format writes (a manifest lists a few files and layouts), and little
/// enough to read into memory whole.
pub const MAX_METADATA_BYTES: u64 = 64 << 20;

/// What a file that is not a regular file is, for messages (`None`: some other kind).
fn kind_of(meta: &Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    [
        (t.is_dir(), "a directory"),
        (t.is_fifo(), "a FIFO"),
        (t.is_char_device(), "a character device"),
        (t.is_block_device(), "a block device"),
        (t.is_socket(), "a socket"),
    ]
    .into_iter()
    .find_map(|(is, kind)| is.then_some(kind))
}

/// `Ok` when `meta` is a regular file's, else the error saying what it is.
fn regular(meta: Metadata) -> io::Result<Metadata> {
    if meta.is_file() {
        return Ok(meta);
    }
    let what = match kind_of(&meta) {
        Some(kind) => format!("is {kind}, not a regular file"),
        None => "is not a regular file".to_string(),
    };
    Err(io::Error::new(io::ErrorKind::InvalidInput, what))
}

/// The metadata of `path` (symlinks followed) when it is a regular file, without opening it.
pub fn check_regular(path: &Path) -> io::Result<Metadata> {
    regular(std::fs::metadata(path)?)
}

/// Opens `path` to read, with the extra open flags `flags` (e.g. `O_DIRECT`), refusing anything
/// but a regular file (see the module doc).
pub fn open_regular(path: &Path, flags: libc::c_int) -> io::Result<File> {
    check_regular(path)?;
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(flags | libc::O_NONBLOCK)
        .open(path)?;
    regular(file.metadata()?)?;
    let status = rustix::fs::fcntl_getfl(&file)?;
    rustix::fs::fcntl_setfl(&file, status.difference(OFlags::NONBLOCK))?;
    Ok(file)
}

/// Reads the metadata file `path` whole: a regular file of at most [`MAX_METADATA_BYTES`].
pub fn read_metadata(path: &Path) -> io::Result<Vec<u8>> {
    read_bounded(path, MAX_METADATA_BYTES)
}

/// Reads the regular file `path` whole when it has at most `max` bytes (checked before reading,
/// and again while reading, should it grow).
fn read_bounded(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let file = open_regular(path, 0)?;
    let too_large = |len: u64| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "is {} long, more than the {} a metadata file may have",
                human_bytes(len),
                human_bytes(max)
            ),
        )
    };
    let len = file.metadata()?.len();
    if len > max {
        return Err(too_large(len));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::net::UnixListener;
    use std::process::Command;

    fn mkfifo(path: &Path) {
        let made = Command::new("mkfifo").arg(path).status().expect("running mkfifo");
        assert!(made.success());
    }

    #[test]
    fn a_regular_file_and_a_symlink_to_one_open() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, b"{}").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert_eq!(read_metadata(&link).unwrap(), b"{}");
        let opened = open_regular(&file, 0).unwrap();
        let status = rustix::fs::fcntl_getfl(&opened).unwrap();
        assert!(!status.contains(OFlags::NONBLOCK), "O_NONBLOCK is cleared");
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("manifest.json");
        mkfifo(&fifo);
        let e = open_regular(&fifo, 0).unwrap_err();
        assert_eq!(e.to_string(), "is a FIFO, not a regular file");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&fifo, &link).unwrap();
        let e = read_metadata(&link).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(e.to_string(), "is a FIFO, not a regular file");
    }

    #[test]
    fn devices_sockets_and_directories_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let zero = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let e = read_metadata(&zero).unwrap_err();
        assert_eq!(e.to_string(), "is a character device, not a regular file");
        let socket = dir.path().join("socket");
        let _listener = UnixListener::bind(&socket).unwrap();
        let e = open_regular(&socket, 0).unwrap_err();
        assert_eq!(e.to_string(), "is a socket, not a regular file");
        let e = open_regular(dir.path(), 0).unwrap_err();
        assert_eq!(e.to_string(), "is a directory, not a regular file");
    }

    #[test]
    fn metadata_reads_are_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("big.json");
        std::fs::write(&file, vec![b' '; 5000]).unwrap();
        assert_eq!(read_bounded(&file, 5000).unwrap().len(), 5000);
        let e = read_bounded(&file, 4096).unwrap_err();
        assert_eq!(
            e.to_string(),
            "is 5000B long, more than the 4KiB a metadata file may have"
        );
    }
}
