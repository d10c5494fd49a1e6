//! Polling the run's stop request ([`Cancel`]) inside the long loops of the memory variants and
//! of the out-of-core variants' in-memory work, where no engine call polls it.
//!
//! Every step (a level, a round, an iteration, a source, a pass) starts with a poll, and inside
//! a step each thread polls at least once per [`POLL_WORK`] vertices and edges of its work
//! ([`Poll`]): a chunk of a parallel loop that sees the request skips the rest of its items,
//! the loop ends, and the step's caller returns [`EngineError::Cancelled`]
//! ([`Cancel::check`]) before anything is made of the partial state. A poll is one relaxed
//! load of a flag nobody writes until the stop: the hot loops pay an addition and a comparison
//! per item.

use diskgraph_engine::Cancel;

/// Work (vertices plus edges handled) a thread does between two polls of the stop request:
/// a few milliseconds of any kernel's work.
pub const POLL_WORK: u64 = 1 << 20;

/// One thread's poll of the run's stop request in a loop of its own (a chunk of a parallel
/// loop, a sequential pass): it counts the work done and reads the request at the first item
/// and then once per [`POLL_WORK`]. Once it has seen the request it stays stopped.
pub(crate) struct Poll<'a> {
    cancel: &'a Cancel,
    /// Work since the last read of the request.
    since: u64,
    stopped: bool,
}

impl<'a> Poll<'a> {
    /// A poll of `cancel`.
    pub(crate) fn new(cancel: &'a Cancel) -> Self {
        Poll {
            cancel,
            since: POLL_WORK,
            stopped: false,
        }
    }

    /// Whether to stop before an item of `work` vertices and edges: reads the request when
    /// [`POLL_WORK`] has been done since the last read.
    #[inline]
    pub(crate) fn stop(&mut self, work: u64) -> bool {
        if self.since >= POLL_WORK && !self.stopped {
            self.since = 0;
            self.stopped = self.cancel.is_cancelled();
        }
        self.since += work;
        self.stopped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poll_reads_the_request_first_then_once_per_poll_work_and_stays_stopped() {
        let cancel = Cancel::new();
        let mut poll = Poll::new(&cancel);
        assert!(!poll.stop(10));
        cancel.cancel();
        // Not read again before POLL_WORK more work...
        assert!(!poll.stop(POLL_WORK - 11));
        assert!(!poll.stop(1));
        // ... then read, and kept.
        assert!(poll.stop(1));
        assert!(poll.stop(0));
        // A fresh poll of a set request stops at once.
        assert!(Poll::new(&cancel).stop(1));
    }
}
