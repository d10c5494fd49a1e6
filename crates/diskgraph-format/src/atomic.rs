//! Atomic publishing on a POSIX file system: a writer fills a temporary entry named so that no
//! reader mistakes it for data (`.NAME.tmp-<pid>-<nanos>`), syncs it, and renames it into place;
//! the directory is synced after. Writers that may race on one directory take [`lock_dir`], and
//! the next writer removes the temporaries of writers that died ([`remove_stale_temporaries`]).

use std::fs::File;
use std::io::Write;
use std::path::Path;

use crate::error::FormatError;

/// `.NAME.KIND-<pid>-<nanos>`: a temporary name (`KIND` is `tmp` for what is being written,
/// `old` for what is being replaced). Layout names never start with a dot, so no reader takes
/// it for a layout; [`remove_stale_temporaries_of`] recognises it once its writer is gone.
pub fn temporary_name(name: &str, kind: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(".{name}.{kind}-{}-{nanos}", std::process::id())
}

/// The entry name and the writer's pid of a temporary name made by [`temporary_name`], if
/// `name` is one.
fn temporary_of(name: &str) -> Option<(&str, u32)> {
    let rest = name.strip_prefix('.')?;
    let at = rest.rfind(".tmp-").or_else(|| rest.rfind(".old-"))?;
    let (pid, nanos) = rest[at + 5..].split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let pid = (digits(pid) && digits(nanos)).then(|| pid.parse().ok()).flatten()?;
    Some((&rest[..at], pid))
}

/// The writer's pid of a temporary name made by [`temporary_name`], if `name` is one.
#[cfg(test)]
fn temporary_pid(name: &str) -> Option<u32> {
    temporary_of(name).map(|(_, pid)| pid)
}

/// Removes temporary entries of `dir` whose writers are no longer running (judged by
/// `/proc/<pid>`; entries of this process are left alone). Best effort: leftovers are harmless.
pub(crate) fn remove_stale_temporaries(dir: &Path) {
    remove_stale(dir, |_| true);
}

/// Removes the temporaries of the entry `name` of `dir` ([`temporary_name`]) whose writers are
/// no longer running — e.g. those of a process killed while writing `dir/name` — and leaves
/// every other entry alone (`dir` may be a user's directory). Best effort.
pub fn remove_stale_temporaries_of(dir: &Path, name: &str) {
    remove_stale(dir, |of| of == name);
}

/// When `dir/name` is missing, puts back the entry a writer that is no longer running moved
/// aside to replace it (`.NAME.old-<pid>-<nanos>`): the writer died between moving the old entry
/// aside and renaming the new one in, and the old entry is the last whole one. Best effort.
pub(crate) fn restore_replaced(dir: &Path, name: &str) {
    let target = dir.join(name);
    if std::fs::symlink_metadata(&target).is_ok() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let entry_name = entry.file_name().to_string_lossy().into_owned();
        let Some((of, pid)) = temporary_of(&entry_name) else {
            continue;
        };
        let old = entry_name.starts_with(&format!(".{name}.old-"));
        if of == name && old && pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists() {
            if std::fs::rename(entry.path(), &target).is_ok() {
                sync_dir(dir);
            }
            return;
        }
    }
}

/// Removes the temporaries of `dir` whose entry name passes `wanted` and whose writers are gone.
fn remove_stale(dir: &Path, wanted: impl Fn(&str) -> bool) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some((of, pid)) = temporary_of(&name) else { continue };
        if wanted(of) && pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists() {
            let _ = remove_path(&entry.path());
        }
    }
}

/// Starts a directory to be published at `path`: puts back an entry a dead writer moved aside,
/// asks `replaceable` whether an existing `path` may be replaced, removes dead writers'
/// temporaries of it and creates the temporary directory next to it. Returns the entry's name
/// and the temporary directory; errors name `path`, never the temporary.
pub(crate) fn start_directory(
    path: &Path,
    replaceable: impl FnOnce(&Path) -> Result<(), FormatError>,
) -> Result<(String, std::path::PathBuf), FormatError> {
    let name = path
        .file_name()
        .ok_or_else(|| FormatError::io(path, std::io::Error::other("output path has no final component")))?
        .to_string_lossy()
        .into_owned();
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    restore_replaced(&parent, &name);
    replaceable(path)?;
    remove_stale_temporaries_of(&parent, &name);
    let tmp_path = parent.join(temporary_name(&name, "tmp"));
    std::fs::create_dir(&tmp_path).map_err(|e| match parent.is_dir() {
        true => FormatError::io(path, e),
        false => FormatError::io(
            path,
            std::io::Error::new(e.kind(), format!("directory {} does not exist", parent.display())),
        ),
    })?;
    Ok((name, tmp_path))
}

/// Whether an existing `path` may be replaced by a new `what`: only with `force`, and a
/// directory only when it is empty or `is_ours` says it is one (never an unrelated non-empty
/// directory). Nothing at `path` is fine.
pub(crate) fn check_replaceable(
    path: &Path,
    force: bool,
    what: &str,
    is_ours: impl Fn(&Path) -> bool,
) -> Result<(), FormatError> {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Ok(());
    };
    if !force {
        return Err(FormatError::Exists {
            path: path.to_path_buf(),
        });
    }
    let empty = || std::fs::read_dir(path).map(|mut d| d.next().is_none()).unwrap_or(false);
    if meta.is_dir() && !is_ours(path) && !empty() {
        return Err(FormatError::io(
            path,
            std::io::Error::other(format!(
                "refusing to replace a non-empty directory that is not a {what}"
            )),
        ));
    }
    Ok(())
}

/// Renames the finished directory `tmp` to `dest` (named `name` in its parent): an existing
/// `dest` is moved aside first and removed once the new one is in place; the parent is synced.
pub(crate) fn rename_into_place(tmp: &Path, dest: &Path, name: &str) -> Result<(), FormatError> {
    let io = |p: &Path, e| FormatError::io(p, e);
    let parent = tmp.parent().expect("the temporary is inside the parent");
    let old = parent.join(temporary_name(name, "old"));
    let replaced = dest.exists();
    if replaced {
        std::fs::rename(dest, &old).map_err(|e| io(dest, e))?;
    }
    std::fs::rename(tmp, dest).map_err(|e| io(dest, e))?;
    if replaced {
        remove_path(&old).map_err(|e| io(&old, e))?;
    }
    sync_dir(parent);
    Ok(())
}

/// Removes a file, or a directory with everything in it (a link itself, never its target).
pub(crate) fn remove_path(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path)?.is_dir() {
        true => std::fs::remove_dir_all(path),
        false => std::fs::remove_file(path),
    }
}

/// An exclusive lock on a directory, released when the returned handle drops.
pub(crate) fn lock_dir(path: &Path) -> Result<File, FormatError> {
    let f = File::open(path).map_err(|e| FormatError::io(path, e))?;
    f.lock().map_err(|e| FormatError::io(path, e))?;
    Ok(f)
}

/// A shared lock on a directory (excluding [`lock_dir`] holders), released when the returned
/// handle drops.
pub(crate) fn lock_dir_shared(path: &Path) -> Result<File, FormatError> {
    let f = File::open(path).map_err(|e| FormatError::io(path, e))?;
    f.lock_shared().map_err(|e| FormatError::io(path, e))?;
    Ok(f)
}

/// Creates `path` with `bytes` and syncs it.
pub(crate) fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), FormatError> {
    let mut f = File::create(path).map_err(|e| FormatError::io(path, e))?;
    f.write_all(bytes)
        .and_then(|_| f.sync_all())
        .map_err(|e| FormatError::io(path, e))
}

/// Syncs a directory's entries (best effort: not every platform allows it).
pub(crate) fn sync_dir(path: &Path) {
    if let Ok(d) = File::open(path) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_names_are_recognised() {
        let t = temporary_name("grid-4", "tmp");
        assert_eq!(temporary_pid(&t), Some(std::process::id()));
        assert_eq!(temporary_pid(".grid-4.old-12-34"), Some(12));
        assert_eq!(temporary_pid(".manifest.json.tmp-7-8"), Some(7));
        assert_eq!(temporary_pid("grid-4"), None);
        assert_eq!(temporary_pid(".grid-4.tmp-x-1"), None);
        assert_eq!(temporary_of(".out.tsv.tmp-7-8"), Some(("out.tsv", 7)));
    }

    #[test]
    fn only_the_named_entrys_dead_temporaries_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        // No process has a pid this high (pid_max is at most 2^22).
        let dead = ".g.tmp-4294967295-1";
        let names = [dead, ".g.old-4294967295-2", ".h.tmp-4294967295-1", "g", ".g.tmp-x-1"];
        for n in names {
            std::fs::create_dir(dir.path().join(n)).unwrap();
        }
        let mine = temporary_name("g", "tmp");
        std::fs::write(dir.path().join(&mine), b"").unwrap();
        remove_stale_temporaries_of(dir.path(), "g");
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let mut want = vec![".g.tmp-x-1".to_string(), ".h.tmp-4294967295-1".into(), "g".into(), mine];
        want.sort();
        assert_eq!(left, want);
    }

    #[test]
    fn a_dead_writers_moved_aside_entry_is_put_back_when_the_name_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join(".g.old-4294967295-1");
        std::fs::create_dir(&old).unwrap();
        std::fs::write(old.join("manifest.json"), b"{}").unwrap();
        std::fs::create_dir(dir.path().join(".g.tmp-4294967295-2")).unwrap();
        restore_replaced(dir.path(), "h");
        assert!(old.exists(), "another name's");
        restore_replaced(dir.path(), "g");
        assert!(!old.exists());
        assert_eq!(std::fs::read(dir.path().join("g/manifest.json")).unwrap(), b"{}");
        // The name exists now: nothing more is moved.
        std::fs::create_dir(dir.path().join(".g.old-4294967295-3")).unwrap();
        restore_replaced(dir.path(), "g");
        assert!(dir.path().join(".g.old-4294967295-3").exists());
        assert!(
            dir.path().join(".g.tmp-4294967295-2").exists(),
            "what was being written is never put in place"
        );
    }
}
