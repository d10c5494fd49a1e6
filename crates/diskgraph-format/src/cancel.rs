//! Stopping a long operation from outside: a [`Cancel`] flag the caller sets (the command
//! line's SIGINT handler, Python's signal check) and the operation polls at its cancellation
//! points. Every long operation of the workspace takes one — runs (the engines), imports,
//! layouts, orderings, selections, exports, compression and verification — and ends with
//! [`Interrupted`] (or an error wrapping it) once it is set; as it unwinds by that error, what
//! it was writing is dropped: temporaries are removed and nothing is published.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A stop request: cheap to clone (all clones share one flag) and to poll.
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

    /// Asks the operation to stop at its next cancellation point.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether a stop was asked for.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// The flag behind the request, for the layers that cannot name a [`Cancel`] (an
    /// [`IoContext`](diskgraph_io::IoContext)'s rounds), which poll it between their reads.
    pub fn flag(&self) -> &Arc<AtomicBool> {
        &self.0
    }

    /// [`Interrupted`] once a stop was asked for.
    pub fn check(&self) -> Result<(), Interrupted> {
        match self.is_cancelled() {
            true => Err(Interrupted),
            false => Ok(()),
        }
    }
}

/// The error of an operation stopped by its [`Cancel`] (Ctrl-C, KeyboardInterrupt).
#[derive(Debug, thiserror::Error)]
#[error("interrupted")]
pub struct Interrupted;

/// Polls a [`Cancel`] once per [`CancelPoints::STEP`] units of work (arcs, vertices, bytes), so
/// loops whose single steps are tiny pay for the check once in a while.
pub(crate) struct CancelPoints<'a> {
    cancel: &'a Cancel,
    next: u64,
}

impl<'a> CancelPoints<'a> {
    /// Units of work between two polls.
    pub(crate) const STEP: u64 = 1 << 20;

    /// Points of `cancel`, the first at [`Self::STEP`] units.
    pub(crate) fn new(cancel: &'a Cancel) -> Self {
        CancelPoints {
            cancel,
            next: Self::STEP,
        }
    }

    /// Polls the request once `done` units (counted from the start) have passed the next point.
    #[inline]
    pub(crate) fn at(&mut self, done: u64) -> Result<(), Interrupted> {
        if done >= self.next {
            self.next = done + Self::STEP;
            return self.cancel.check();
        }
        Ok(())
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
        assert!(c.check().is_err());
        let flag = Arc::new(AtomicBool::new(false));
        let e = Cancel::from_flag(Arc::clone(&flag));
        flag.store(true, Ordering::Relaxed);
        assert!(e.is_cancelled());
    }

    #[test]
    fn points_poll_once_per_step() {
        let c = Cancel::new();
        let mut points = CancelPoints::new(&c);
        c.cancel();
        assert!(points.at(CancelPoints::STEP - 1).is_ok(), "before the first point");
        assert!(points.at(CancelPoints::STEP).is_err(), "at the first point");
        assert!(
            points.at(CancelPoints::STEP + 1).is_ok(),
            "the next point is a step further"
        );
        assert!(points.at(3 * CancelPoints::STEP).is_err());
    }
}
