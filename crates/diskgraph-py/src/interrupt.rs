//! KeyboardInterrupt during a run. Python runs its signal handlers on the main thread, and only
//! when that thread checks for them; a run releases the GIL and keeps its calling thread busy in
//! Rust, so the run goes to a thread of its own while the calling thread waits, checking
//! Python's signals every [`POLL`]. When a handler raises (Ctrl-C's KeyboardInterrupt), the run's
//! stop request ([`Cancel`]) is set; the run stops at its next cancellation point and drops what
//! it made, and the exception is raised with the graph as usable as before.

use std::sync::{mpsc, Mutex, PoisonError};
use std::time::Duration;

use diskgraph_engine::Cancel;
use pyo3::prelude::*;

/// How often the waiting thread checks Python's signals.
pub const POLL: Duration = Duration::from_millis(50);

/// Runs `f` (given the run's stop request) with the GIL released, stopping it when a Python
/// signal handler raises: returns its result, or the handler's exception once `f` has stopped.
pub fn interruptible<T: Send>(py: Python<'_>, f: impl FnOnce(Cancel) -> T + Send) -> PyResult<T> {
    let cancel = Cancel::new();
    let (done, finished) = mpsc::channel();
    // Waited on with the GIL released, which asks for a `Sync` receiver.
    let finished = Mutex::new(finished);
    let wait = |timeout: Option<Duration>| {
        let finished = finished.lock().unwrap_or_else(PoisonError::into_inner);
        match timeout {
            Some(t) => finished.recv_timeout(t),
            None => finished.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
        }
    };
    std::thread::scope(|s| {
        let stop = cancel.clone();
        std::thread::Builder::new()
            .name("diskgraph-run".into())
            .spawn_scoped(s, move || {
                // The receiver waits until this sends: it cannot be gone.
                let _ = done.send(f(stop));
            })
            .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("cannot start the run's thread: {e}")))?;
        loop {
            match py.detach(|| wait(Some(POLL))) {
                Ok(out) => return Ok(out),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    // The run panicked; the scope re-raises the panic as it ends.
                    return Err(pyo3::exceptions::PyRuntimeError::new_err("the run's thread panicked"));
                }
            }
            if let Err(raised) = py.check_signals() {
                cancel.cancel();
                // Wait for the run to stop (its next cancellation point), the GIL released.
                let _ = py.detach(|| wait(None));
                return Err(raised);
            }
        }
    })
}
