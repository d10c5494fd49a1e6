//! KeyboardInterrupt during a run. Python runs its signal handlers on the main thread, and only
//! when that thread checks for them; a run releases the GIL and keeps its calling thread busy in
//! Rust, so the run goes to a thread of its own while the calling thread waits, checking
//! Python's signals every [`POLL`]. When a handler raises (Ctrl-C's KeyboardInterrupt), the run's
//! stop request ([`Cancel`]) is set; the run stops at its next cancellation point and drops what
//! it made, and the exception is raised with the graph as usable as before.
//!
//! The calling thread waits at most [`STOP_WAIT`] for the run to stop: every engine reaches a
//! cancellation point well within it, and should one not, the exception is raised anyway with a
//! `RuntimeWarning` naming the wait, the run left to stop on its own thread (which owns
//! everything it uses), rather than the caller hanging without end.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{mpsc, Mutex, PoisonError};
use std::time::Duration;

use diskgraph_engine::Cancel;
use pyo3::exceptions::{PyRuntimeError, PyRuntimeWarning};
use pyo3::prelude::*;

/// How often the waiting thread checks Python's signals.
pub const POLL: Duration = Duration::from_millis(50);

/// The longest the calling thread waits for a run to stop once its stop request is set.
pub const STOP_WAIT: Duration = Duration::from_secs(10);

/// Runs `f` (given the run's stop request) on a thread of its own with the GIL released,
/// stopping it when a Python signal handler raises: returns its result, or the handler's
/// exception once `f` has stopped (or [`STOP_WAIT`] has passed). A panic in `f` is resumed on
/// the calling thread.
pub fn interruptible<T: Send + 'static>(py: Python<'_>, f: impl FnOnce(Cancel) -> T + Send + 'static) -> PyResult<T> {
    let cancel = Cancel::new();
    let (done, finished) = mpsc::sync_channel(1);
    let stop = cancel.clone();
    let run = std::thread::Builder::new()
        .name("diskgraph-run".into())
        .spawn(move || {
            // The receiver may be gone (a run that outlived STOP_WAIT): its result is dropped.
            let _ = done.send(catch_unwind(AssertUnwindSafe(|| f(stop))));
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the run's thread: {e}")))?;
    // Waited on with the GIL released, which asks for a `Sync` receiver.
    let finished = Mutex::new(finished);
    let wait = |timeout: Duration| {
        finished
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .recv_timeout(timeout)
    };
    loop {
        match py.detach(|| wait(POLL)) {
            Ok(out) => {
                // The thread has sent its last word: joining it is immediate.
                let _ = run.join();
                return Ok(out.unwrap_or_else(|panic| resume_unwind(panic)));
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err("the run's thread ended without an answer"));
            }
        }
        if let Err(raised) = py.check_signals() {
            cancel.cancel();
            match py.detach(|| wait(STOP_WAIT)) {
                Ok(_) => {
                    let _ = run.join();
                }
                Err(_) => {
                    let warning = format!(
                        "the run did not stop within {} s of the interrupt; it goes on stopping in \
                         the background (please report this with the algorithm and engine)",
                        STOP_WAIT.as_secs()
                    );
                    let message = std::ffi::CString::new(warning).expect("no NUL in the message");
                    PyErr::warn(py, &py.get_type::<PyRuntimeWarning>(), &message, 1)?;
                }
            }
            return Err(raised);
        }
    }
}
