//! Stopping a run from outside: a [`Cancel`] flag the caller sets (the command line's SIGINT
//! handler, Python's signal check) and the run polls at its cancellation points — every engine
//! step ([`Engine::check_cancelled`](crate::Engine::check_cancelled), called by the engines
//! where a round, a pass, an interval or an iterator's pass starts) and every iteration of an
//! algorithm's loop over memory. A cancelled run ends with [`EngineError::Cancelled`]; as it
//! unwinds by that error, everything it made (scratch files, I/O threads, mapped state) is
//! dropped and removed as after any other error.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::EngineError;

/// A run's stop request: cheap to clone (all clones share one flag) and to poll.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A request that is not set.
    pub fn new() -> Self {
        Cancel::default()
    }

    /// A request backed by `flag`, which someone else sets (a signal handler registered with
    /// `signal_hook::flag::register`).
    pub fn from_flag(flag: Arc<AtomicBool>) -> Self {
        Cancel(flag)
    }

    /// Asks the run to stop at its next cancellation point.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether a stop was asked for.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// [`EngineError::Cancelled`] once a stop was asked for.
    pub fn check(&self) -> Result<(), EngineError> {
        match self.is_cancelled() {
            true => Err(EngineError::Cancelled),
            false => Ok(()),
        }
    }

    /// The flag behind the request, for the layers below the engines (an
    /// [`IoContext`](diskgraph_io::IoContext)'s rounds, a graph directory's loads), which poll
    /// it between their reads.
    pub fn flag(&self) -> &Arc<AtomicBool> {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_request() {
        let c = Cancel::new();
        let d = c.clone();
        assert!(c.check().is_ok());
        d.cancel();
        assert!(c.is_cancelled());
        assert!(matches!(c.check(), Err(EngineError::Cancelled)));
        let flag = Arc::new(AtomicBool::new(false));
        let e = Cancel::from_flag(Arc::clone(&flag));
        flag.store(true, Ordering::Relaxed);
        assert!(e.is_cancelled());
    }
}
