//! Byte input from a file, a pipe, a FIFO or standard input (the path `-`), gzip-decompressed
//! on the fly when it starts with the gzip magic bytes (`1f 8b`), whatever its name.
//!
//! Text inputs are read front to back only: the magic bytes are kept and handed back before
//! the rest of the stream, never re-read by seeking, and the size is known only for regular
//! files (progress has no total otherwise). Binary inputs, whose length is checked up front,
//! need a regular file ([`CountingFile::open`]).

use std::fs::File;
use std::io::{self, BufReader, Cursor, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use flate2::bufread::MultiGzDecoder;

use crate::InputError;

/// Read-ahead of the compressed stream for gzip inputs.
const GZ_READ_AHEAD: usize = 256 << 10;

/// The input path that names standard input.
pub const STDIN: &str = "-";

/// Whether `path` names standard input (`-`).
pub(crate) fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == STDIN
}

/// A byte stream that counts the bytes read from it, for progress reporting.
pub(crate) struct CountingFile {
    file: Box<dyn Read + Send>,
    read: Arc<AtomicU64>,
}

impl CountingFile {
    /// Opens the regular file `path` for reading, with its size; the error names the file, and
    /// says so when `path` is standard input, a pipe or a FIFO (whose length is unknown).
    pub(crate) fn open(path: &Path) -> Result<(CountingFile, u64), InputError> {
        let io_err = |source| InputError::Io {
            path: path.to_path_buf(),
            source,
        };
        let not_regular = || InputError::File {
            path: path.to_path_buf(),
            message: "this input format needs a regular file (its length is checked before reading), not standard \
                      input, a pipe or a FIFO: save the stream to a file first"
                .into(),
        };
        if is_stdin(path) {
            return Err(not_regular());
        }
        let file = File::open(path).map_err(io_err)?;
        let meta = file.metadata().map_err(io_err)?;
        if !meta.is_file() {
            return Err(not_regular());
        }
        Ok((CountingFile::new(Box::new(file)), meta.len()))
    }

    /// Opens `path` as a stream: a file, a FIFO, or standard input for `-`. Returns the size
    /// when `path` is a regular file.
    fn open_stream(path: &Path) -> Result<(Box<dyn Read + Send>, Option<u64>), InputError> {
        if is_stdin(path) {
            return Ok((Box::new(io::stdin()), None));
        }
        let io_err = |source| InputError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = File::open(path).map_err(io_err)?;
        let meta = file.metadata().map_err(io_err)?;
        let size = meta.is_file().then_some(meta.len());
        Ok((Box::new(file), size))
    }

    fn new(file: Box<dyn Read + Send>) -> CountingFile {
        CountingFile {
            file,
            read: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Bytes read from the file so far.
    pub(crate) fn bytes_read(&self) -> u64 {
        self.read.load(Ordering::Relaxed)
    }
}

impl Read for CountingFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// The bytes of a text input: the stream itself, or its gzip decompression.
pub(crate) enum ByteInput {
    /// An uncompressed stream.
    Plain(CountingFile),
    /// A gzip stream (one or more members), decompressed as it is read.
    Gzip(Box<MultiGzDecoder<BufReader<CountingFile>>>),
}

impl ByteInput {
    /// Opens `path` (`-` for standard input), choosing gzip decompression from the first two
    /// bytes. Returns the input, the size of a regular file, and a counter of the bytes read
    /// from disk (compressed bytes for gzip) that stays valid wherever the input goes.
    pub(crate) fn open(path: &Path) -> Result<(ByteInput, Option<u64>, Arc<AtomicU64>), InputError> {
        let (mut file, size) = CountingFile::open_stream(path)?;
        let mut magic = Vec::with_capacity(2);
        (&mut file)
            .take(2)
            .read_to_end(&mut magic)
            .map_err(|source| InputError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        let gzip = magic == [0x1f, 0x8b];
        // Counted as they are handed out, the magic bytes included.
        let stream = CountingFile::new(Box::new(Cursor::new(magic).chain(file)));
        let counter = stream.read.clone();
        let input = if gzip {
            ByteInput::Gzip(Box::new(MultiGzDecoder::new(BufReader::with_capacity(
                GZ_READ_AHEAD,
                stream,
            ))))
        } else {
            ByteInput::Plain(stream)
        };
        Ok((input, size, counter))
    }

    /// Whether the input is gzip-compressed.
    pub(crate) fn is_gzip(&self) -> bool {
        matches!(self, ByteInput::Gzip(_))
    }
}

impl Read for ByteInput {
    /// Reads decompressed bytes; gzip errors say that the stream is corrupt or truncated.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let r = match self {
                ByteInput::Plain(f) => f.read(buf),
                ByteInput::Gzip(d) => d.read(buf).map_err(|e| {
                    if e.kind() == io::ErrorKind::Interrupted {
                        e
                    } else {
                        io::Error::new(e.kind(), format!("corrupt or truncated gzip stream ({e})"))
                    }
                }),
            };
            match r {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => return other,
            }
        }
    }
}
