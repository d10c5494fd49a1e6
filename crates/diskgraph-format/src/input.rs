//! The one way this crate reads the files a graph directory, a split directory or a layout
//! names: each must be a regular file (a symlink is followed, and its target must be one; a
//! FIFO, a device, a socket or a directory is refused by name before a byte is read, see
//! [`diskgraph_io::open_regular`]), and a metadata file (JSON) is read whole only up to
//! [`diskgraph_io::MAX_METADATA_BYTES`].

use std::fs::File;
use std::path::Path;

use crate::error::FormatError;

/// Opens the file `path` to read, refusing anything but a regular file (the error names the
/// file and what it is).
pub fn open_file(path: &Path) -> Result<File, FormatError> {
    diskgraph_io::open_regular(path, 0).map_err(|e| FormatError::io(path, e))
}

/// The size in bytes of the data file `path` (not opened).
pub(crate) fn file_len(path: &Path) -> Result<u64, FormatError> {
    diskgraph_io::check_regular(path)
        .map(|meta| meta.len())
        .map_err(|e| FormatError::io(path, e))
}

/// The bytes of the metadata file `path`.
pub(crate) fn read_metadata(path: &Path) -> Result<Vec<u8>, FormatError> {
    diskgraph_io::read_metadata(path).map_err(|e| FormatError::io(path, e))
}
