//! Injected faults ([`diskgraph_io::faults`]) on every reader of the crate: the round backends
//! (uring, pread, mmap), the sequential reader (uring, pread), page reads (queued through
//! io_uring, blocking preadv, and the blocking read) and block files. EIO becomes an error
//! naming the file and the byte; short reads, EINTR and EAGAIN are resumed, and the bytes read
//! equal the file's. Each test reads files of its own directory, so the process-wide plan
//! touches no other test.

mod common;

use std::path::Path;
use std::sync::{Arc, Mutex};

use common::{available_backends, random_file};
use diskgraph_io::faults::{inject, Fault, FaultGuard, FaultKind};
use diskgraph_io::{
    page_frames, BackendKind, BlockFile, IoConfig, IoContext, IoError, PageAccess, PageBuf, PageReads, PagedFile,
    ReadRequest, SequentialConfig, SequentialReader, PAGE_BYTES,
};

const LEN: usize = 300_000;

/// Checks `e` is an EIO naming `path` and the byte a read began at.
fn names_file_and_byte(e: &IoError, path: &Path) {
    let text = e.to_string();
    assert!(text.contains(&path.display().to_string()), "{text}");
    assert!(text.contains("Input/output error"), "{text}");
    assert!(text.contains("at byte "), "{text}");
}

/// The short reads, interruptions and EAGAINs every read-call backend must ride through, on
/// `path`: unaligned short reads, short reads of whole pages, EINTR and EAGAIN.
fn bumps(path: &Path) -> Vec<FaultGuard> {
    vec![
        inject(Fault::new(path, FaultKind::Short(5000)).times(6)),
        inject(
            Fault::new(path, FaultKind::Short(3 * PAGE_BYTES))
                .at(100_000..200_000)
                .times(6),
        ),
        inject(Fault::new(path, FaultKind::Eintr).times(4)),
        inject(Fault::new(path, FaultKind::Eagain).times(4)),
    ]
}

/// Reads the whole set through a round of `ctx` and returns the bytes of its first file.
fn read_all(ctx: &IoContext, set: &diskgraph_io::FileSet) -> Result<Vec<u8>, IoError> {
    let out = Mutex::new(vec![0u8; set.len() as usize]);
    // Many small ranges: many runs, so several reads per round (and per thread).
    let mut ranges = (0..set.len()).step_by(20_000).map(|a| (a, (a + 7_000).min(set.len())));
    let mut rest = (0..set.len())
        .step_by(20_000)
        .map(|a| ((a + 7_000).min(set.len()), (a + 20_000).min(set.len())));
    let copy = |c: diskgraph_io::Chunk<'_>| {
        out.lock().unwrap()[c.offset as usize..c.end() as usize].copy_from_slice(c.data[0]);
    };
    ctx.read_round(set, &mut ranges, &copy)?;
    ctx.read_round(set, &mut rest, &copy)?;
    Ok(out.into_inner().unwrap())
}

fn context(backend: BackendKind) -> IoContext {
    IoContext::new(IoConfig {
        backend: Some(backend),
        buffer_bytes: 1 << 20,
        io_threads: 2,
        block_size: 4096,
        max_request_bytes: 16 << 10,
        ..IoConfig::default()
    })
    .unwrap()
}

#[test]
fn every_round_backend_names_the_file_and_byte_of_an_eio() {
    let dir = tempfile::tempdir().unwrap();
    for backend in available_backends() {
        let (p, data) = random_file(dir.path(), &format!("{backend:?}.adj"), LEN, 3);
        let ctx = context(backend);
        let set = ctx.open(&[&p]).unwrap();
        assert_eq!(read_all(&ctx, &set).unwrap(), data, "{backend:?} without faults");
        let eio = inject(Fault::new(&p, FaultKind::Eio).at(150_000..150_001));
        let e = read_all(&ctx, &set).expect_err("an EIO fails the round");
        names_file_and_byte(&e, &p);
        assert!(eio.hits() > 0, "{backend:?}");
        drop(eio);
        // The context stays usable after the failed round (a fresh one for uring, whose rings
        // may be left broken by design).
        let ctx = context(backend);
        let set = ctx.open(&[&p]).unwrap();
        assert_eq!(read_all(&ctx, &set).unwrap(), data, "{backend:?} after the fault");
    }
}

#[test]
fn round_backends_resume_short_and_interrupted_reads() {
    let dir = tempfile::tempdir().unwrap();
    for backend in available_backends().into_iter().filter(|b| *b != BackendKind::Mmap) {
        let (p, data) = random_file(dir.path(), &format!("{backend:?}.adj"), LEN, 4);
        let ctx = context(backend);
        let set = ctx.open(&[&p]).unwrap();
        let faults = bumps(&p);
        assert_eq!(read_all(&ctx, &set).unwrap(), data, "{backend:?}");
        for (i, f) in faults.iter().enumerate() {
            assert!(f.hits() > 0, "{backend:?}: fault {i} never hit");
        }
    }
}

#[test]
fn the_sequential_reader_resumes_short_reads_and_names_an_eio() {
    let dir = tempfile::tempdir().unwrap();
    let uring = available_backends().contains(&BackendKind::Uring);
    for backend in [BackendKind::Uring, BackendKind::Pread] {
        if backend == BackendKind::Uring && !uring {
            continue;
        }
        let (p, data) = random_file(dir.path(), &format!("stream-{backend:?}"), LEN, 5);
        let config = SequentialConfig {
            backend: Some(backend),
            read_bytes: 16 << 10,
            ..SequentialConfig::default()
        };
        let reader = SequentialReader::open(&[(&p, 64 << 10)], &config).unwrap();
        let requests: Vec<ReadRequest> = (0..LEN as u64)
            .step_by(50_000)
            .map(|a| ReadRequest::from(a..(a + 50_000).min(LEN as u64)))
            .collect();
        let read = |reader: &SequentialReader| {
            let mut out = Vec::new();
            reader
                .read(&requests, |_, d: &[&[u8]]| {
                    out.extend_from_slice(d[0]);
                    Ok::<(), IoError>(())
                })
                .map(|_| out)
        };
        {
            let faults = bumps(&p);
            assert_eq!(read(&reader).unwrap(), data, "{backend:?}");
            assert!(faults.iter().all(|f| f.hits() > 0), "{backend:?}: a fault never hit");
        }
        let _eio = inject(Fault::new(&p, FaultKind::Eio).at(120_000..120_001));
        names_file_and_byte(&read(&reader).expect_err("EIO"), &p);
    }
}

/// A file of whole pages (page reads need the file to reach its last page).
fn page_file(dir: &Path, name: &str) -> (std::path::PathBuf, Vec<u8>) {
    random_file(dir, name, 73 * PAGE_BYTES, 6)
}

#[test]
fn page_reads_resume_short_reads_and_name_an_eio() {
    let dir = tempfile::tempdir().unwrap();
    let (p, data) = page_file(dir.path(), "pages");
    let file = Arc::new(PagedFile::open(&p, data.len() as u64, PageAccess::Direct).unwrap());
    let check = |first: u64, frames: &[diskgraph_io::Frame]| {
        for (i, f) in frames.iter().enumerate() {
            let start = (first as usize + i) * PAGE_BYTES;
            assert_eq!(
                &f.0[..],
                &data[start..start + PAGE_BYTES],
                "page {}",
                first as usize + i
            );
        }
    };
    // Blocking reads (preadv, then page by page after a short one).
    {
        let faults = bumps(&p);
        for first in (0..73).step_by(8) {
            let mut frames = page_frames(8.min(73 - first));
            file.read(first as u64, &mut frames).unwrap();
            check(first as u64, &frames);
        }
        assert!(faults[0].hits() > 0 && faults[2].hits() > 0);
    }
    // Queued reads, through io_uring where there is one and at submission otherwise.
    for uring in [true, false] {
        let faults = bumps(&p);
        let (mut reads, _) = PageReads::new(4, uring);
        let mut done = Vec::new();
        for first in (0..73u64).step_by(8) {
            while reads.in_flight() >= reads.capacity() {
                done.extend(reads.reap(true));
            }
            reads.submit(&file, first, page_frames(8.min(73 - first as usize)), first);
        }
        while reads.in_flight() > 0 {
            done.extend(reads.reap(true));
        }
        done.extend(reads.reap(false));
        assert_eq!(done.len(), 10);
        for c in done {
            c.result.unwrap();
            check(c.first, &c.frames);
        }
        assert!(faults.iter().take(3).all(|f| f.hits() > 0), "uring {uring}");
        drop(faults);
        let _eio = inject(Fault::new(&p, FaultKind::Eio).at(40_000..40_001));
        reads.submit(&file, 8, page_frames(4), 99);
        let c = loop {
            if let Some(c) = reads.reap(true).pop() {
                break c;
            }
        };
        names_file_and_byte(&c.result.expect_err("EIO"), &p);
        let mut frames = page_frames(2);
        names_file_and_byte(&file.read(9, &mut frames).expect_err("EIO"), &p);
    }
}

#[test]
fn block_files_resume_short_reads_and_name_an_eio() {
    let dir = tempfile::tempdir().unwrap();
    let (p, data) = page_file(dir.path(), "values.u32");
    let f = BlockFile::open_read(&p).unwrap();
    let mut buf = PageBuf::zeroed(16 * PAGE_BYTES);
    {
        let mut faults = bumps(&p);
        // Short of a page: with O_DIRECT the page is read again (the file goes on), never
        // taken for the end of the file.
        faults.push(inject(
            Fault::new(&p, FaultKind::Short(100)).at(20_000..30_000).times(2),
        ));
        for first in (0..64).step_by(16) {
            f.read(&mut buf, (first * PAGE_BYTES) as u64).unwrap();
            assert_eq!(&*buf.bytes_mut(), &data[first * PAGE_BYTES..(first + 16) * PAGE_BYTES]);
        }
        assert!(faults[0].hits() > 0 && faults[2].hits() > 0 && faults[4].hits() > 0);
    }
    let _eio = inject(Fault::new(&p, FaultKind::Eio));
    names_file_and_byte(&f.read(&mut buf, 0).expect_err("EIO"), &p);
}
