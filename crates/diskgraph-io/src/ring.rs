//! io_uring mechanics shared by the uring backend and the sequential reader: setting up and
//! probing a ring, queueing a read of part of an open file ([`RingRead`]), submitting and
//! reaping, and settling each completion: EINTR and EAGAIN are queued again, a short read is
//! resumed from its last aligned byte, and a failure names its file.

use std::os::fd::AsRawFd;

use io_uring::{opcode, types, IoUring, Probe};

use crate::error::IoError;
use crate::fallback::{simulated, SIMULATE_ENV};
use crate::faults;
use crate::file::OpenFile;

/// Creates a ring with room for `depth` reads and checks it works; returns it with whether
/// `IORING_OP_READ_FIXED` is supported.
pub(crate) fn probe_ring(depth: u32) -> Result<(IoUring, bool), String> {
    if simulated("no-uring") {
        return Err(format!("simulated by {SIMULATE_ENV}"));
    }
    let entries = depth.clamp(16, 4096).next_power_of_two();
    let mut ring: IoUring = IoUring::builder()
        .setup_clamp()
        .build(entries)
        .map_err(|e| format!("io_uring_setup: {e}"))?;
    let mut probe = Probe::new();
    ring.submitter()
        .register_probe(&mut probe)
        .map_err(|e| format!("IORING_REGISTER_PROBE: {e}"))?;
    if !probe.is_supported(opcode::Read::CODE) {
        return Err("IORING_OP_READ not supported".into());
    }
    // A no-op round trip: a ring that sets up but cannot complete requests (seccomp filters,
    // broken emulation) is no ring.
    let nop = opcode::Nop::new().build().user_data(7);
    // SAFETY: a no-op references no memory.
    unsafe { ring.submission().push(&nop) }.map_err(|_| "submission queue full".to_string())?;
    ring.submit_and_wait(1).map_err(|e| format!("io_uring_enter: {e}"))?;
    match ring.completion().next() {
        Some(c) if c.user_data() == 7 && c.result() >= 0 => {}
        other => return Err(format!("no-op did not complete: {:?}", other.map(|c| c.result()))),
    }
    Ok((ring, probe.is_supported(opcode::ReadFixed::CODE)))
}

/// A ring, how many reads it keeps in flight, and what is registered with it.
pub(crate) struct Ring {
    ring: IoUring,
    /// Reads in flight at most.
    depth: usize,
    /// Buffers per registered `iovec` (fixed-buffer reads), `None` when not registered.
    fixed: Option<usize>,
}

/// One read through a ring: the file's bytes `[offset, offset + len)` into `buf`, of which the
/// first `want` are needed (the rest is alignment); `got` bytes are in so far.
#[derive(Clone, Copy)]
pub(crate) struct RingRead {
    pub(crate) buf: *mut u8,
    /// The registered buffer holding `buf` ([`Ring::fixed_index`]), for a fixed-buffer read.
    pub(crate) fixed: Option<u16>,
    pub(crate) offset: u64,
    pub(crate) len: usize,
    pub(crate) want: usize,
    pub(crate) got: usize,
}

/// What a completion did to its read.
pub(crate) enum Settled {
    /// The read is in flight again (interrupted, or short and resumed).
    Queued,
    /// The read is complete, or stopped short because it was told not to resume.
    Done,
    /// The read failed.
    Failed(IoError),
}

impl Ring {
    /// A probed ring ([`probe_ring`]) keeping up to `depth` reads in flight (fewer if the kernel
    /// gives fewer submission entries), with whether fixed-buffer reads are supported.
    pub(crate) fn new(depth: u32) -> Result<(Ring, bool), String> {
        let (ring, fixed_ok) = probe_ring(depth)?;
        let depth = depth.min(ring.params().sq_entries()) as usize;
        Ok((
            Ring {
                ring,
                depth,
                fixed: None,
            },
            fixed_ok,
        ))
    }

    /// Registers buffers with the ring for fixed-buffer reads: `iovecs` of `per` buffers each.
    ///
    /// # Safety
    /// The memory the `iovecs` cover must outlive the ring.
    pub(crate) unsafe fn register(&mut self, iovecs: &[libc::iovec], per: usize) -> std::io::Result<()> {
        // SAFETY: the caller keeps the buffers alive as long as the ring.
        unsafe { self.ring.submitter().register_buffers(iovecs) }?;
        self.fixed = Some(per);
        Ok(())
    }

    /// Reads in flight at most.
    pub(crate) fn depth(&self) -> usize {
        self.depth
    }

    /// Submission queue entries.
    pub(crate) fn sq_entries(&self) -> usize {
        self.ring.params().sq_entries() as usize
    }

    /// Completion queue entries.
    pub(crate) fn cq_entries(&self) -> usize {
        self.ring.params().cq_entries() as usize
    }

    /// The registered buffer holding buffer `local` of those registered, `None` when no buffers
    /// are registered.
    pub(crate) fn fixed_index(&self, local: usize) -> Option<u16> {
        self.fixed.map(|per| (local / per) as u16)
    }

    /// Queues the rest of `read` of `file` (from byte `got` on), tagged `user_data`.
    ///
    /// # Safety
    /// `read.buf` must hold `read.len` bytes that nothing else touches until this read's
    /// completion is reaped, and the caller must reap every read it queues before the buffer or
    /// the file goes. `read.fixed`, if any, must be the registered buffer holding `read.buf`.
    ///
    /// # Panics
    /// If the read is already complete (`got >= len`).
    pub(crate) unsafe fn push(&mut self, file: &OpenFile, read: &RingRead, user_data: u64) {
        assert!(read.got < read.len, "a read queued with nothing left to read");
        let fd = types::Fd(file.file.as_raw_fd());
        // SAFETY: `got < len` (asserted above), so the pointer stays inside the read's buffer.
        let buf = unsafe { read.buf.add(read.got) };
        let len = (read.len - read.got) as u32;
        let offset = read.offset + read.got as u64;
        let entry = match read.fixed {
            Some(index) => opcode::ReadFixed::new(fd, buf, len, index).offset(offset).build(),
            None => opcode::Read::new(fd, buf, len).offset(offset).build(),
        };
        // SAFETY: the caller keeps the buffer and the file for the kernel until the completion
        // is reaped.
        unsafe { self.ring.submission().push(&entry.user_data(user_data)) }
            .expect("reads in flight never exceed the submission queue");
    }

    /// Queues a prepared submission entry.
    ///
    /// # Safety
    /// Whatever memory `entry` names must stay valid and untouched until its completion is
    /// reaped.
    pub(crate) unsafe fn push_entry(&mut self, entry: &io_uring::squeue::Entry) {
        // SAFETY: the caller keeps the entry's memory for the kernel until it completes.
        unsafe { self.ring.submission().push(entry) }.expect("reads in flight never exceed the submission queue");
    }

    /// Submits the queued reads and waits for a completion; EINTR, EAGAIN and EBUSY only cut the
    /// wait short. An error leaves the kernel's view of the reads in flight unknown.
    pub(crate) fn submit_and_wait(&mut self) -> std::io::Result<()> {
        match self.ring.submit_and_wait(1) {
            Ok(_) => Ok(()),
            Err(e) if matches!(e.raw_os_error(), Some(libc::EINTR | libc::EAGAIN | libc::EBUSY)) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Replaces `cqes` with the completions at hand, as `(user_data, result)`.
    pub(crate) fn reap(&mut self, cqes: &mut Vec<(u64, i32)>) {
        cqes.clear();
        cqes.extend(self.ring.completion().map(|c| (c.user_data(), c.result())));
    }

    /// Applies the completion `res` of `read` of `file` (under the [`faults`] plan), queued with
    /// `user_data`: an interrupted read is queued again; a short read is resumed (see [`OpenFile::resume_at`]) if `resume`,
    /// else left done; a read that fails, or makes no progress, fails naming the file.
    ///
    /// # Safety
    /// As for [`push`](Self::push), which queued `read`.
    pub(crate) unsafe fn settle(
        &mut self,
        file: &OpenFile,
        read: &mut RingRead,
        res: i32,
        user_data: u64,
        resume: bool,
    ) -> Settled {
        let at = read.offset + read.got as u64;
        let res = faults::completion(&file.path, at, read.len - read.got, res);
        if res == -libc::EINTR || res == -libc::EAGAIN {
            // SAFETY: the same read, under the caller's guarantees.
            unsafe { self.push(file, read, user_data) };
            return Settled::Queued;
        }
        if res < 0 {
            return Settled::Failed(file.read_error(std::io::Error::from_raw_os_error(-res), at));
        }
        let got = read.got + res as usize;
        if got >= read.want || !resume {
            read.got = got;
            return Settled::Done;
        }
        match file.resume_at(read.got, got) {
            Some(next) => {
                read.got = next;
                // SAFETY: the same read, under the caller's guarantees.
                unsafe { self.push(file, read, user_data) };
                Settled::Queued
            }
            None => Settled::Failed(file.eof_error(read.offset + read.want as u64)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::BufferPool;

    /// Queues `read`, waits for its completion and returns the kernel's result.
    fn round_trip(ring: &mut Ring, file: &OpenFile, read: &RingRead) -> i32 {
        // SAFETY: the buffer is the test's pool, alive and untouched until the completion is
        // reaped right below.
        unsafe { ring.push(file, read, 1) };
        reap_one(ring)
    }

    fn reap_one(ring: &mut Ring) -> i32 {
        let mut cqes = Vec::new();
        while cqes.is_empty() {
            ring.submit_and_wait().unwrap();
            ring.reap(&mut cqes);
        }
        assert_eq!(cqes.len(), 1);
        cqes[0].1
    }

    #[test]
    fn completions_are_settled_like_the_kernel_would_have_them() {
        let Ok((mut ring, _)) = Ring::new(4) else {
            eprintln!("SKIPPING: no io_uring");
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let data: Vec<u8> = (0..3 * 4096 + 100u32).map(|i| (i * 7 + i / 251) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        let (file, _) = OpenFile::open(&path, 4096).unwrap();
        let pool = BufferPool::new(4 * 4096, 1).unwrap();
        let fresh = || RingRead {
            buf: pool.ptr(0),
            fixed: None,
            offset: 0,
            len: 4 * 4096,
            want: data.len(),
            got: 0,
        };
        let settle = |ring: &mut Ring, read: &mut RingRead, res: i32| {
            // SAFETY: every read settled here was queued by `round_trip` into the test's pool,
            // which outlives the ring, and a read queued again is reaped before the next step.
            unsafe { ring.settle(&file, read, res, 1, true) }
        };

        // A whole read, short of the buffer at the end of the file but not of what is wanted.
        let mut read = fresh();
        let res = round_trip(&mut ring, &file, &read);
        assert!(matches!(settle(&mut ring, &mut read, res), Settled::Done));
        assert_eq!(read.got, data.len());
        // SAFETY: the pool's buffer holds `len` bytes, written by the kernel above.
        let filled = |read: &RingRead| unsafe { std::slice::from_raw_parts(read.buf, read.want) }.to_vec();
        assert_eq!(filled(&read), data);

        // A short read resumes from its last aligned byte (O_DIRECT) and completes.
        let mut read = fresh();
        round_trip(&mut ring, &file, &read);
        assert!(matches!(settle(&mut ring, &mut read, 5000), Settled::Queued));
        assert_eq!(read.got, file.resume_at(0, 5000).unwrap());
        let res = reap_one(&mut ring);
        assert!(matches!(settle(&mut ring, &mut read, res), Settled::Done));
        assert_eq!(read.got, data.len());
        assert_eq!(filled(&read), data);

        // An interrupted read is queued again as it stood.
        let mut read = fresh();
        round_trip(&mut ring, &file, &read);
        assert!(matches!(settle(&mut ring, &mut read, -libc::EINTR), Settled::Queued));
        let res = reap_one(&mut ring);
        assert!(matches!(settle(&mut ring, &mut read, res), Settled::Done));
        assert_eq!(read.got, data.len());

        // Not told to resume: a short read is done as it is.
        let mut read = fresh();
        round_trip(&mut ring, &file, &read);
        // SAFETY: as above; nothing is queued again.
        let settled = unsafe { ring.settle(&file, &mut read, 5000, 1, false) };
        assert!(matches!(settled, Settled::Done));
        assert_eq!(read.got, 5000);

        // Errors and reads without progress fail, naming the file.
        for res in [-libc::EIO, 0] {
            let mut read = fresh();
            round_trip(&mut ring, &file, &read);
            match settle(&mut ring, &mut read, res) {
                Settled::Failed(IoError::Os { path: p, .. }) => assert_eq!(p, path),
                _ => panic!("result {res} must fail"),
            }
        }
    }
}
