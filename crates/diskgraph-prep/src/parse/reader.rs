//! Byte input from a file on disk, gzip-decompressed on the fly when the file starts with the
//! gzip magic bytes (`1f 8b`), whatever its name.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use flate2::bufread::MultiGzDecoder;

use crate::InputError;

/// Read-ahead of the compressed stream for gzip inputs.
const GZ_READ_AHEAD: usize = 256 << 10;

/// A file that counts the bytes read from it, for progress reporting.
pub(crate) struct CountingFile {
    file: File,
    read: u64,
}

impl CountingFile {
    /// Opens `path` for reading; the error names the file.
    pub(crate) fn open(path: &Path) -> Result<(CountingFile, u64), InputError> {
        let io_err = |source| InputError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = File::open(path).map_err(io_err)?;
        let size = file.metadata().map_err(io_err)?.len();
        Ok((CountingFile { file, read: 0 }, size))
    }

    /// Bytes read from the file so far.
    pub(crate) fn bytes_read(&self) -> u64 {
        self.read
    }
}

impl Read for CountingFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read(buf)?;
        self.read += n as u64;
        Ok(n)
    }
}

/// The bytes of a text input: the file itself, or its gzip decompression.
pub(crate) enum ByteInput {
    /// An uncompressed file.
    Plain(CountingFile),
    /// A gzip file (one or more members), decompressed as it is read.
    Gzip(Box<MultiGzDecoder<BufReader<CountingFile>>>),
}

impl ByteInput {
    /// Opens `path`, choosing gzip decompression from the first two bytes.
    /// Returns the input and the size of the file on disk.
    pub(crate) fn open(path: &Path) -> Result<(ByteInput, u64), InputError> {
        let io_err = |source| InputError::Io {
            path: path.to_path_buf(),
            source,
        };
        let (mut file, size) = CountingFile::open(path)?;
        let mut magic = [0u8; 2];
        let mut got = 0;
        while got < magic.len() {
            match file.file.read(&mut magic[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(io_err(e)),
            }
        }
        file.file.seek(SeekFrom::Start(0)).map_err(io_err)?;
        let input = if got == 2 && magic == [0x1f, 0x8b] {
            ByteInput::Gzip(Box::new(MultiGzDecoder::new(BufReader::with_capacity(
                GZ_READ_AHEAD,
                file,
            ))))
        } else {
            ByteInput::Plain(file)
        };
        Ok((input, size))
    }

    /// Whether the file is gzip-compressed.
    pub(crate) fn is_gzip(&self) -> bool {
        matches!(self, ByteInput::Gzip(_))
    }

    /// Bytes of the file on disk consumed so far (compressed bytes for gzip).
    pub(crate) fn disk_bytes_read(&self) -> u64 {
        match self {
            ByteInput::Plain(f) => f.bytes_read(),
            ByteInput::Gzip(d) => d.get_ref().get_ref().bytes_read(),
        }
    }

    /// Reads decompressed bytes; gzip errors say that the stream is corrupt or truncated.
    pub(crate) fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
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
