//! [`PositionedFile`]: a data file of known length written at arbitrary offsets, so that a
//! builder can fill several blocks of one file at once.

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::Xxh3;

use crate::cancel::Cancel;
use crate::data_file::{hash_file, padded_len, FileEntry};
use crate::error::FormatError;

/// A data file of known logical length written at arbitrary offsets (several blocks at once).
/// `finish` checks every byte was written once, pads to [`PAGE`](crate::PAGE), and syncs. The xxh3 of
/// the logical bytes is computed as the bytes pass while every write continues where the last
/// one ended, else by reading the file back once at the end.
pub struct PositionedFile {
    path: PathBuf,
    name: String,
    file: File,
    len: u64,
    written: u64,
    hasher: Option<Xxh3>,
}

impl PositionedFile {
    pub(crate) fn create(dir: &Path, name: &str, len: u64) -> Result<PositionedFile, FormatError> {
        let path = dir.join(name);
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| FormatError::io(&path, e))?;
        Ok(PositionedFile {
            path,
            name: name.to_string(),
            file,
            len,
            written: 0,
            hasher: Some(Xxh3::new()),
        })
    }

    /// Writes `bytes` at byte `offset`.
    ///
    /// # Panics
    /// If the bytes would end past the logical length: the caller computed offsets wrongly.
    pub fn write_at(&mut self, offset: u64, bytes: &[u8]) -> Result<(), FormatError> {
        assert!(
            offset + bytes.len() as u64 <= self.len,
            "write past the end of {}",
            self.name
        );
        let io = |e| FormatError::io(&self.path, e);
        self.file.seek(SeekFrom::Start(offset)).map_err(io)?;
        self.file.write_all(bytes).map_err(io)?;
        match &mut self.hasher {
            Some(h) if offset == self.written => h.update(bytes),
            _ => self.hasher = None,
        }
        self.written += bytes.len() as u64;
        Ok(())
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Pads, checksums and syncs; returns the file's name and metadata entry.
    pub fn finish(mut self) -> Result<(String, FileEntry), FormatError> {
        if self.written != self.len {
            return Err(FormatError::Content {
                path: self.path.clone(),
                reason: format!("{} bytes written, {} expected", self.written, self.len),
            });
        }
        let io = |e| FormatError::io(&self.path, e);
        self.file.set_len(padded_len(self.len)).map_err(io)?;
        let xxh3 = match self.hasher.take() {
            Some(h) => format!("{:016x}", h.digest()),
            // Hashed whole: a writer polls its stop request between its files.
            None => hash_file(&self.path, self.len, &Cancel::new())?,
        };
        self.file.sync_all().map_err(io)?;
        let entry = FileEntry { len: self.len, xxh3 };
        Ok((self.name, entry))
    }
}
