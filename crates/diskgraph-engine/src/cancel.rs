//! Stopping a run from outside with the workspace's stop request, [`Cancel`]
//! (`diskgraph_format::Cancel`), which the caller sets (the command line's SIGINT handler,
//! Python's signal check) and the run polls at its cancellation points — every engine step
//! ([`Engine::check_cancelled`](crate::Engine::check_cancelled), called by the engines where a
//! round, a pass, an interval or an iterator's pass starts) and every iteration of an
//! algorithm's loop over memory. A cancelled run ends with [`EngineError::Cancelled`]; as it
//! unwinds by that error, everything it made (scratch files, I/O threads, mapped state) is
//! dropped and removed as after any other error.

pub use diskgraph_format::Cancel;
use diskgraph_format::Interrupted;

use crate::EngineError;

impl From<Interrupted> for EngineError {
    fn from(_: Interrupted) -> Self {
        EngineError::Cancelled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_request_is_a_cancelled_run() {
        let c = Cancel::new();
        c.cancel();
        let e: EngineError = c.check().unwrap_err().into();
        assert!(matches!(e, EngineError::Cancelled));
    }
}
