//! Progress of the long operations (import, partition, reorder, select, export, split) and their
//! stop request: a [`Progress`] receives phases and counts, and is polled for a stop at the
//! operation's cancellation points. The command line's bar polls its Ctrl-C flag; Python and
//! other callers without a display pass a [`CancelProgress`] over their [`Cancel`]. An
//! operation asked to stop ends with [`Interrupted`], removing what it wrote (its temporaries
//! are dropped unpublished).
//!
//! The cancellation points are at most [`Ticker::STEP`] units of work apart (arcs, edges,
//! vertices), one batch of the input (at most 2^18 edges), or one stripe of a layout's blocks
//! or windows (at most 4096 block writes), except where a step cannot be cut: the sort of one
//! run of the external sorter, loading a graph's lists into memory, one GVS round and one
//! placement of Gorder. There is one just before every publish.

use anyhow::Result;
use diskgraph_format::{Cancel, Interrupted};

/// Receives progress of long operations; the CLI draws a bar, tests pass [`NoProgress`].
pub trait Progress {
    /// A new phase starts; `total` units if known.
    fn phase(&mut self, name: &str, total: Option<u64>);
    /// `done` units of the current phase are complete.
    fn update(&mut self, done: u64);
    /// The whole operation ended.
    fn finish(&mut self);
    /// A warning about the input (it names the file and line); shown nowhere by default.
    fn warn(&mut self, _message: &str) {}
    /// Whether the operation was asked to stop (Ctrl-C): polled at its cancellation points, it
    /// then ends with [`Interrupted`], removing what it wrote. Never, by default.
    fn interrupted(&self) -> bool {
        false
    }
}

/// [`Interrupted`] if `progress` asks to stop: a cancellation point.
pub(crate) fn stop_point(progress: &dyn Progress) -> Result<()> {
    match progress.interrupted() {
        true => Err(Interrupted.into()),
        false => Ok(()),
    }
}

/// Passes `done` on to `progress`, then fails with [`Interrupted`] if it asks to stop.
pub(crate) fn advance(progress: &mut dyn Progress, done: u64) -> Result<()> {
    progress.update(done);
    stop_point(progress)
}

/// Passes progress on, and polls for a stop, about every million units (arcs, edges).
pub(crate) struct Ticker {
    next: u64,
}

impl Ticker {
    /// Units between two updates.
    pub(crate) const STEP: u64 = 1 << 20;

    /// A ticker that first passes progress on at one step.
    pub(crate) fn new() -> Ticker {
        Ticker { next: Self::STEP }
    }

    /// Passes `done` on when it has passed the next step.
    ///
    /// Errors: [`Interrupted`] when `progress` asks to stop.
    pub(crate) fn tick(&mut self, progress: &mut dyn Progress, done: u64) -> Result<()> {
        if done >= self.next {
            self.next = done + Self::STEP;
            return advance(progress, done);
        }
        Ok(())
    }

    /// Polls for a stop, without passing progress on, when `done` has passed the next step
    /// (for loops whose phase counts other units).
    ///
    /// Errors: [`Interrupted`] when `progress` asks to stop.
    pub(crate) fn poll(&mut self, progress: &dyn Progress, done: u64) -> Result<()> {
        if done >= self.next {
            self.next = done + Self::STEP;
            return stop_point(progress);
        }
        Ok(())
    }
}

/// A [`Progress`] that shows nothing.
pub struct NoProgress;

impl Progress for NoProgress {
    fn phase(&mut self, _: &str, _: Option<u64>) {}
    fn update(&mut self, _: u64) {}
    fn finish(&mut self) {}
}

/// A [`Progress`] that shows nothing and asks to stop once its [`Cancel`] is set: how callers
/// without a display (Python) pass their stop request.
pub struct CancelProgress(pub Cancel);

impl Progress for CancelProgress {
    fn phase(&mut self, _: &str, _: Option<u64>) {}
    fn update(&mut self, _: u64) {}
    fn finish(&mut self) {}
    fn interrupted(&self) -> bool {
        self.0.is_cancelled()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancel_progress_stops_at_its_points_once_cancelled() {
        let cancel = Cancel::new();
        let mut p = CancelProgress(cancel.clone());
        let mut ticker = Ticker::new();
        assert!(stop_point(&p).is_ok());
        cancel.cancel();
        assert!(
            ticker.tick(&mut p, Ticker::STEP - 1).is_ok(),
            "no point before the first step"
        );
        let e = ticker.tick(&mut p, Ticker::STEP).unwrap_err();
        assert!(e.is::<Interrupted>(), "{e}");
        assert!(stop_point(&NoProgress).is_ok(), "NoProgress never stops");
    }
}
