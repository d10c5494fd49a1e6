//! KeyboardInterrupt while waiting for work that already runs on a thread of its own (an
//! `EdgeImporter`'s import, started when the importer is made): the calling thread waits for
//! the work's result with the GIL released, checking Python's signals every
//! [`POLL`](crate::interrupt::POLL), as [`interruptible`](crate::interrupt::interruptible) does
//! for work it starts itself. When a handler raises, the work's stop request is set, the work
//! stops at its next cancellation point and removes what it wrote, and the exception is raised.

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Mutex, PoisonError};

use diskgraph_format::Cancel;
use pyo3::prelude::*;

use crate::interrupt::POLL;

/// Waits for the result `done` receives, checking Python's signals with the GIL released; when
/// a signal handler raises, sets `cancel`, waits for the work to end and returns the handler's
/// exception. `Ok(None)` when the sender went away without a result (the work panicked).
pub fn wait_interruptibly<T: Send>(py: Python<'_>, done: &Mutex<Receiver<T>>, cancel: &Cancel) -> PyResult<Option<T>> {
    let wait = |timeout| {
        let done = done.lock().unwrap_or_else(PoisonError::into_inner);
        match timeout {
            Some(t) => done.recv_timeout(t),
            None => done.recv().map_err(|_| RecvTimeoutError::Disconnected),
        }
    };
    loop {
        match py.detach(|| wait(Some(POLL))) {
            Ok(out) => return Ok(Some(out)),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return Ok(None),
        }
        if let Err(raised) = py.check_signals() {
            cancel.cancel();
            // The work's result (its Interrupted error) is dropped: the exception is the answer.
            let _ = py.detach(|| wait(None));
            return Err(raised);
        }
    }
}
