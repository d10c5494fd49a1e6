//! Injected read faults, a testing hook for the error paths no healthy disk takes: EIO, short
//! reads, EINTR and EAGAIN at chosen byte ranges of chosen files.
//!
//! Every read of the crate goes through one of three points, each consulting the plan: read
//! calls (`pread`, `preadv`: [`read_call`], and [`read_exact_at`] for other crates' plain reads),
//! io_uring completions ([`completion`], before a completion is settled), and the mmap backend's
//! rounds ([`mapped`]: EIO only, since mapped pages are read by page faults, not calls). The plan
//! comes from [`inject`] (in-process tests; each fault is withdrawn when its guard drops) and
//! from [`FAULTS_ENV`], read once per process (command-line tests). With no fault planned a read
//! pays one relaxed atomic load.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, Once, PoisonError};

/// Environment variable planning faults, `;`-separated entries `KIND[*TIMES]@FILE[:FROM-TO]`:
/// `KIND` is `eio`, `eintr`, `eagain` or `short=N` (a read returns at most N bytes); `TIMES`
/// how many reads it hits (default: every one); `FILE` matches a path ending with it (whole
/// components: `out.adj`, `g/out.adj`); `FROM-TO` the byte range a read must meet (default:
/// all). Example: `DISKGRAPH_IO_FAULTS='eio@out.adj:4096-8192;eintr*3@out.idx'`. Read once, when
/// the first read consults the plan; a malformed entry is reported on stderr and ignored.
pub const FAULTS_ENV: &str = "DISKGRAPH_IO_FAULTS";

/// What an injected fault does to a read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// The read fails with EIO.
    Eio,
    /// The read returns at most this many bytes (it still reads them: the rest must be read
    /// again).
    Short(usize),
    /// The read is interrupted (EINTR) before reading anything.
    Eintr,
    /// An io_uring read completes with -EAGAIN; a blocking read call never returns EAGAIN, so
    /// read calls see EINTR instead.
    Eagain,
}

/// A planned fault: which reads it hits and what it does to them.
#[derive(Clone, Debug)]
pub struct Fault {
    /// Reads of files whose path ends with this one (whole components).
    pub file: PathBuf,
    /// Reads that meet the byte range `from..to` of the file.
    pub from: u64,
    /// See `from`.
    pub to: u64,
    /// What it does.
    pub kind: FaultKind,
    /// How many reads it hits; `None`: every one.
    pub times: Option<u64>,
}

impl Fault {
    /// `kind` on every read of `file`, at any offset.
    pub fn new(file: impl Into<PathBuf>, kind: FaultKind) -> Fault {
        Fault {
            file: file.into(),
            from: 0,
            to: u64::MAX,
            kind,
            times: None,
        }
    }

    /// Only on reads meeting bytes `range` of the file.
    pub fn at(self, range: std::ops::Range<u64>) -> Fault {
        Fault {
            from: range.start,
            to: range.end,
            ..self
        }
    }

    /// Only on the first `n` reads it meets.
    pub fn times(self, n: u64) -> Fault {
        Fault { times: Some(n), ..self }
    }

    /// Parses an entry of [`FAULTS_ENV`].
    fn parse(entry: &str) -> Result<Fault, String> {
        let (head, target) = entry.split_once('@').ok_or("no @FILE")?;
        let (kind, times) = match head.split_once('*') {
            Some((k, t)) => (k, Some(t.parse::<u64>().map_err(|e| format!("times {t:?}: {e}"))?)),
            None => (head, None),
        };
        let kind = match kind.trim() {
            "eio" => FaultKind::Eio,
            "eintr" => FaultKind::Eintr,
            "eagain" => FaultKind::Eagain,
            k => match k.strip_prefix("short=") {
                Some(n) => FaultKind::Short(n.parse().map_err(|e| format!("short={n:?}: {e}"))?),
                None => return Err(format!("unknown kind {k:?} (eio, eintr, eagain, short=N)")),
            },
        };
        let (file, range) = match target.rsplit_once(':') {
            Some((f, r)) => {
                let (a, b) = r.split_once('-').ok_or_else(|| format!("range {r:?} is not FROM-TO"))?;
                let num = |x: &str| x.parse::<u64>().map_err(|e| format!("offset {x:?}: {e}"));
                (f, Some(num(a)?..num(b)?))
            }
            None => (target, None),
        };
        if file.is_empty() {
            return Err("empty FILE".into());
        }
        let mut fault = Fault::new(file, kind);
        if let Some(r) = range {
            fault = fault.at(r);
        }
        if let Some(n) = times {
            fault = fault.times(n);
        }
        Ok(fault)
    }
}

/// A planned fault and how many more reads it hits.
struct Entry {
    id: u64,
    fault: Fault,
    left: Option<u64>,
    hits: u64,
}

static PLAN: Mutex<Vec<Entry>> = Mutex::new(Vec::new());
/// Whether the plan holds anything (the fast path's one load).
static ARMED: AtomicBool = AtomicBool::new(false);
static NEXT_ID: AtomicU64 = AtomicU64::new(0);
static FROM_ENV: Once = Once::new();

/// Withdraws its fault when dropped.
#[must_use = "the fault is withdrawn when the guard drops"]
pub struct FaultGuard {
    id: u64,
}

impl FaultGuard {
    /// How many reads the fault has hit so far.
    pub fn hits(&self) -> u64 {
        let plan = PLAN.lock().unwrap_or_else(PoisonError::into_inner);
        plan.iter().find(|e| e.id == self.id).map_or(0, |e| e.hits)
    }
}

impl Drop for FaultGuard {
    fn drop(&mut self) {
        let mut plan = PLAN.lock().unwrap_or_else(PoisonError::into_inner);
        plan.retain(|e| e.id != self.id);
        ARMED.store(!plan.is_empty(), Ordering::Relaxed);
    }
}

/// Plans `fault` until the returned guard drops. Faults are process-wide: a test names files
/// of its own (in its own temporary directory) so that tests running beside it are untouched.
pub fn inject(fault: Fault) -> FaultGuard {
    FROM_ENV.call_once(load_env);
    FaultGuard { id: add(fault) }
}

fn add(fault: Fault) -> u64 {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let mut plan = PLAN.lock().unwrap_or_else(PoisonError::into_inner);
    plan.push(Entry {
        id,
        left: fault.times,
        fault,
        hits: 0,
    });
    ARMED.store(true, Ordering::Relaxed);
    id
}

/// Adds the faults [`FAULTS_ENV`] plans.
fn load_env() {
    let Ok(value) = std::env::var(FAULTS_ENV) else { return };
    for entry in value.split(';').map(str::trim).filter(|e| !e.is_empty()) {
        match Fault::parse(entry) {
            Ok(f) => {
                add(f);
            }
            Err(why) => eprintln!("diskgraph-io: {FAULTS_ENV}: ignoring {entry:?}: {why}"),
        }
    }
}

/// Whether any fault is planned (a cheap test before many [`mapped`] checks).
pub(crate) fn armed() -> bool {
    FROM_ENV.call_once(load_env);
    ARMED.load(Ordering::Relaxed)
}

/// The fault planned for a read of `len` bytes at `offset` of `path` (counting it against the
/// fault's `times`), if any; `only_eio` considers EIO faults alone.
fn take(path: &Path, offset: u64, len: usize, only_eio: bool) -> Option<FaultKind> {
    if !armed() {
        return None;
    }
    let end = offset.saturating_add(len.max(1) as u64);
    let mut plan = PLAN.lock().unwrap_or_else(PoisonError::into_inner);
    let e = plan.iter_mut().find(|e| {
        e.left != Some(0)
            && (!only_eio || e.fault.kind == FaultKind::Eio)
            && offset < e.fault.to
            && end > e.fault.from
            && path.ends_with(&e.fault.file)
    })?;
    if let Some(left) = &mut e.left {
        *left -= 1;
    }
    e.hits += 1;
    Some(e.fault.kind)
}

/// A read call of `len` bytes at `offset` of `path` under the plan: `call` does the real read.
pub(crate) fn read_call(
    path: &Path,
    offset: u64,
    len: usize,
    call: impl FnOnce() -> std::io::Result<usize>,
) -> std::io::Result<usize> {
    match take(path, offset, len, false) {
        None => call(),
        Some(FaultKind::Eio) => Err(std::io::Error::from_raw_os_error(libc::EIO)),
        Some(FaultKind::Eintr | FaultKind::Eagain) => Err(std::io::Error::from_raw_os_error(libc::EINTR)),
        Some(FaultKind::Short(n)) => call().map(|got| got.min(n)),
    }
}

/// The result `res` of an io_uring read of `len` bytes at `offset` of `path`, under the plan.
pub(crate) fn completion(path: &Path, offset: u64, len: usize, res: i32) -> i32 {
    match take(path, offset, len, false) {
        None => res,
        Some(FaultKind::Eio) => -libc::EIO,
        Some(FaultKind::Eintr) => -libc::EINTR,
        Some(FaultKind::Eagain) => -libc::EAGAIN,
        Some(FaultKind::Short(n)) if res > 0 => res.min(i32::try_from(n).unwrap_or(i32::MAX)),
        Some(FaultKind::Short(_)) => res,
    }
}

/// The planned EIO of bytes `offset..offset + len` of a mapped `path`, if any.
pub(crate) fn mapped(path: &Path, offset: u64, len: usize) -> Option<std::io::Error> {
    take(path, offset, len, true).map(|_| std::io::Error::from_raw_os_error(libc::EIO))
}

/// `source`, saying the byte of the file it happened at.
pub(crate) fn at_byte(source: std::io::Error, at: u64) -> std::io::Error {
    std::io::Error::new(source.kind(), format!("{source} (reading at byte {at})"))
}

/// Reads exactly `buf.len()` bytes at `offset` of `file` (opened from `path`), under the plan:
/// continues after short reads and EINTR; an error (UnexpectedEof for a file that ends first)
/// says the byte it happened at. The plain reads of other crates go through it.
pub fn read_exact_at(file: &File, path: &Path, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    let mut done = 0;
    while done < buf.len() {
        let at = offset + done as u64;
        match read_call(path, at, buf.len() - done, || file.read_at(&mut buf[done..], at)) {
            Ok(0) => {
                let eof = std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the file ends early");
                return Err(at_byte(eof, at));
            }
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(at_byte(e, at)),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_parse() {
        let f = Fault::parse("short=100*3@g/out.adj:4096-8192").unwrap();
        assert_eq!(f.kind, FaultKind::Short(100));
        assert_eq!(
            (f.file.as_path(), f.from, f.to, f.times),
            (Path::new("g/out.adj"), 4096, 8192, Some(3))
        );
        let f = Fault::parse("eio@out.idx").unwrap();
        assert_eq!((f.kind, f.from, f.to, f.times), (FaultKind::Eio, 0, u64::MAX, None));
        for bad in ["eio", "boom@x", "eio@", "short=x@f", "eio@f:1", "eintr*z@f"] {
            assert!(Fault::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn faults_hit_their_file_range_and_count() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data");
        let g = inject(Fault::new(&path, FaultKind::Eintr).at(100..200).times(2));
        assert_eq!(take(&path, 0, 100, false), None, "before the range");
        assert_eq!(take(&dir.path().join("other"), 150, 1, false), None, "another file");
        assert_eq!(take(&path, 50, 51, false), Some(FaultKind::Eintr));
        assert_eq!(take(&path, 199, 1, false), Some(FaultKind::Eintr));
        assert_eq!(take(&path, 150, 1, false), None, "used up");
        assert_eq!(g.hits(), 2);
        let _e = inject(Fault::new(&path, FaultKind::Eio));
        assert_eq!(take(&path, 0, 1, true), Some(FaultKind::Eio));
    }

    #[test]
    fn exact_reads_resume_and_name_the_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data");
        let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        let file = File::open(&path).unwrap();
        let mut buf = vec![0u8; 9000];
        {
            let _s = inject(Fault::new(&path, FaultKind::Short(777)).times(5));
            let _i = inject(Fault::new(&path, FaultKind::Eintr).at(3000..3001).times(2));
            read_exact_at(&file, &path, &mut buf, 1000).unwrap();
        }
        assert_eq!(buf, data[1000..]);
        let _e = inject(Fault::new(&path, FaultKind::Eio).at(5000..5001));
        let err = read_exact_at(&file, &path, &mut buf, 1000).unwrap_err();
        assert_eq!(err.raw_os_error(), None, "rewrapped with the byte");
        assert!(err.to_string().contains("Input/output error"), "{err}");
        assert!(err.to_string().contains("reading at byte 1000"), "{err}");
    }
}
