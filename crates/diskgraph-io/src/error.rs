//! The crate's error type: every fault names the file it happened on, or the setting at fault.

use std::path::{Path, PathBuf};

/// An I/O fault, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum IoError {
    /// An operating-system error on a file.
    #[error("{}: {source}", path.display())]
    Os {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A page of a memory-mapped file could not be accessed: the SIGBUS it raised was caught
    /// (see `sigbus`), the page read as zeros and the read fails with this error.
    #[error("{}: the mapped page at byte {offset} could not be accessed: {cause}", path.display())]
    MappedFault {
        /// The file.
        path: PathBuf,
        /// Byte offset in the file of the first access that faulted.
        offset: u64,
        /// What the kernel reported.
        cause: &'static str,
    },
    /// A setting the backend cannot honour.
    #[error("{0}")]
    Config(String),
    /// A requested byte range reaches past the logical length of the file set.
    #[error("byte range {start}..{end} reaches past the end of the files ({len} bytes)")]
    OutOfRange {
        /// First byte of the range.
        start: u64,
        /// One past the last byte.
        end: u64,
        /// Logical length of the file set.
        len: u64,
    },
    /// The context's stop request was set ([`IoContext::stop_when`](crate::IoContext::stop_when)):
    /// the round handed out no further read and ended before delivering all its ranges.
    #[error("the read was stopped on request before it ended")]
    Stopped,
}

impl IoError {
    /// The file the fault is in, when the error names one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            IoError::Os { path, .. } | IoError::MappedFault { path, .. } => Some(path),
            IoError::Config(_) | IoError::OutOfRange { .. } | IoError::Stopped => None,
        }
    }
}
