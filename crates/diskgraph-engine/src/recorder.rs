//! The run's log over time: one [`StepRecord`] per engine step and the bytes read per interval
//! ([`IoSample`]), kept by one [`Recorder`] that every engine holds and calls the same way.
//!
//! An engine calls [`Engine::step`](crate::Engine::step) where one of its steps ends — a
//! selective round (the lists of an active set read), a stream pass, a shard sweep, a sync
//! iterator's pass — with the step's active vertices where it knows them. The recorder reads the
//! engine's cumulative counters ([`Engine::snapshot`](crate::Engine::snapshot)) and keeps the
//! difference. The registry opens the log after the engine is open (step 0: opening and loading),
//! samples the engine's bytes read every [`SAMPLE_INTERVAL`] while the algorithm runs
//! ([`sampled`]) and closes the log with a step holding whatever no step counted (all of the
//! memory engine's computing, whose algorithms loop over CSR slices with no engine step between
//! iterations). A recorder that was never opened does nothing, so engines used directly pay
//! nothing for it.
//!
//! Both logs stay bounded ([`MAX_RECORDS`]): a run with more steps or samples than that merges
//! neighbouring records pairwise (each record then covers several steps, see
//! [`StepRecord::steps`]), so a long run's log is coarser, never larger.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{mpsc, Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::{Cancel, Engine, EngineError};

/// How often [`sampled`] reads the engine's bytes read.
pub const SAMPLE_INTERVAL: Duration = Duration::from_millis(50);

/// Most records either log keeps; beyond it neighbours are merged pairwise.
pub const MAX_RECORDS: usize = 4096;

/// An engine's cumulative counters at one moment, as a step or a sample reads them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    /// Bytes read from the graph's files so far.
    pub bytes_read: u64,
    /// Edges handed to the algorithm so far, where the engine counts them.
    pub edges: Option<u64>,
    /// Cache hit ratios so far, by cache name.
    pub cache_hit_ratio: BTreeMap<String, f64>,
    /// Whether `bytes_read` grows while a read is under way (counted per read). When false it
    /// grows when a whole I/O round ends, and the bytes a step's end shows are spread evenly over
    /// the step's samples.
    pub bytes_live: bool,
}

/// What one engine step did (or several, once a long log is thinned).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// Index of the record's first step: 0 is opening the graph (loading), then the engine's
    /// steps in order; the closing record (what no step counted) comes last.
    pub step: u64,
    /// Engine steps the record covers (1 unless the log was thinned).
    pub steps: u64,
    /// Active vertices of the step (the frontier, or a pull round's candidates), where the engine
    /// knows them; summed over the steps of a thinned record.
    pub active: Option<u64>,
    /// Bytes read during the step.
    pub bytes_read: u64,
    /// Edges the step handed to the algorithm.
    pub edges_processed: u64,
    /// Wall time of the step, in seconds.
    pub seconds: f64,
    /// When the step ended, in seconds since the run started.
    pub end_seconds: f64,
    /// Cache hit ratios so far (cumulative from the run's start), by cache name.
    pub cache_hit_ratio: BTreeMap<String, f64>,
}

impl StepRecord {
    /// Bytes read per second over the step (0 for an instant step).
    pub fn bytes_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.bytes_read as f64 / self.seconds
        } else {
            0.0
        }
    }

    /// Merges the next record into this one.
    fn absorb(&mut self, next: StepRecord) {
        self.steps += next.steps;
        self.active = match (self.active, next.active) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        self.bytes_read += next.bytes_read;
        self.edges_processed += next.edges_processed;
        self.seconds += next.seconds;
        self.end_seconds = next.end_seconds;
        self.cache_hit_ratio = next.cache_hit_ratio;
    }
}

/// Bytes read in one interval of the run: the I/O throughput over time.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IoSample {
    /// When the interval ended, in seconds since the run started.
    pub end_seconds: f64,
    /// Length of the interval, in seconds.
    pub seconds: f64,
    /// Bytes read in the interval.
    pub bytes_read: u64,
}

impl IoSample {
    /// Bytes read per second over the interval (0 for an empty interval).
    pub fn bytes_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.bytes_read as f64 / self.seconds
        } else {
            0.0
        }
    }

    /// Merges the next sample into this one.
    fn absorb(&mut self, next: IoSample) {
        self.end_seconds = next.end_seconds;
        self.seconds += next.seconds;
        self.bytes_read += next.bytes_read;
    }
}

/// Called with every step record as the step ends (progress bars, Python callbacks).
#[derive(Clone)]
pub struct Observer(Arc<dyn Fn(&StepRecord) + Send + Sync>);

impl Observer {
    /// An observer calling `f`.
    pub fn new(f: impl Fn(&StepRecord) + Send + Sync + 'static) -> Self {
        Observer(Arc::new(f))
    }
}

impl fmt::Debug for Observer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Observer")
    }
}

/// A log of records that merges neighbours pairwise past [`MAX_RECORDS`].
#[derive(Clone, Debug)]
struct Bounded<T> {
    records: Vec<T>,
    /// Raw records each kept record covers (doubles at each thinning).
    stride: u64,
    /// Raw records the last kept record covers so far.
    last_holds: u64,
}

impl<T> Default for Bounded<T> {
    fn default() -> Self {
        Bounded {
            records: Vec::new(),
            stride: 1,
            last_holds: 0,
        }
    }
}

impl<T> Bounded<T> {
    /// Adds `r`, merged into the last record while that covers fewer than `stride` raw ones.
    fn push(&mut self, r: T, absorb: impl Fn(&mut T, T)) {
        match self.records.last_mut() {
            Some(last) if self.last_holds < self.stride => {
                absorb(last, r);
                self.last_holds += 1;
                return;
            }
            _ => {}
        }
        if self.records.len() == MAX_RECORDS {
            let old = std::mem::take(&mut self.records);
            let mut it = old.into_iter();
            while let Some(mut a) = it.next() {
                if let Some(b) = it.next() {
                    absorb(&mut a, b);
                }
                self.records.push(a);
            }
            self.stride *= 2;
            // The last kept record now covers a full stride: the new one starts its own.
        }
        self.records.push(r);
        self.last_holds = 1;
    }
}

/// The state of an opened log.
#[derive(Debug)]
struct Log {
    start: Instant,
    observer: Option<Observer>,
    steps: Bounded<StepRecord>,
    io: Bounded<IoSample>,
    /// Steps recorded so far (the next one's index).
    next_step: u64,
    /// When the last step ended, in seconds since the start.
    last_step_end: f64,
    /// The counters at the last step's end.
    at_last_step: Snapshot,
    /// When the last sample was taken, in seconds since the start, and the bytes read then.
    last_sample: (f64, u64),
    /// Samples taken since the last step (which that step's bytes may be spread over).
    samples_in_step: usize,
}

/// The run's log, held by the engine and opened by the registry (see the module docs); it also
/// carries the run's stop request, which the engine polls ([`Recorder::check_cancelled`]).
#[derive(Debug, Default)]
pub struct Recorder {
    log: Mutex<Option<Log>>,
    /// The stop request of the run the recorder was first opened for (a lock-free poll).
    cancel: OnceLock<Cancel>,
}

impl Clone for Recorder {
    /// A closed recorder with the same stop request: a copy of an engine keeps a log of its
    /// own, and stops with the run.
    fn clone(&self) -> Self {
        Recorder {
            log: Mutex::default(),
            cancel: self.cancel.clone(),
        }
    }
}

/// What a closed [`Recorder`] hands to the run's stats.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recorded {
    /// The step records, in order.
    pub steps: Vec<StepRecord>,
    /// The I/O samples, in order.
    pub io: Vec<IoSample>,
}

impl Recorder {
    /// A closed recorder carrying `cancel`, the stop request of the run whose engine is being
    /// opened (so that the opening polls it too); the log's later opening keeps it.
    pub fn with_cancel(cancel: Option<&Cancel>) -> Self {
        let recorder = Recorder::default();
        if let Some(cancel) = cancel {
            let _ = recorder.cancel.set(cancel.clone());
        }
        recorder
    }

    /// The run's stop request, for loops that poll it without the engine (kernels over a CSR,
    /// an I/O context's rounds): the one given to [`with_cancel`](Self::with_cancel) or
    /// [`open`](Self::open), else a request never set.
    pub fn cancel(&self) -> Cancel {
        self.cancel.get().cloned().unwrap_or_default()
    }

    /// Opens the log: its clock starts at `start`, `observer` sees every step, `cancel` (if
    /// any) is the run's stop request, and the time and bytes up to now (opening the graph,
    /// `at`) become step 0. An engine serves one run: a second opening keeps the first's
    /// stop request.
    pub fn open(&self, start: Instant, observer: Option<Observer>, cancel: Option<Cancel>, at: Snapshot) {
        if let Some(cancel) = cancel {
            let _ = self.cancel.set(cancel);
        }
        let log = Log {
            start,
            observer,
            steps: Bounded::default(),
            io: Bounded::default(),
            next_step: 0,
            last_step_end: 0.0,
            at_last_step: Snapshot {
                bytes_live: at.bytes_live,
                ..Snapshot::default()
            },
            last_sample: (0.0, 0),
            samples_in_step: 0,
        };
        *self.lock() = Some(log);
        self.step(None, || at);
    }

    /// [`EngineError::Cancelled`] once the run's stop request is set (never for a recorder
    /// opened without one).
    pub fn check_cancelled(&self) -> Result<(), EngineError> {
        Ok(self.cancel.get().map_or(Ok(()), Cancel::check)?)
    }

    /// Whether the log is open (steps and samples are recorded).
    pub fn is_open(&self) -> bool {
        self.lock().is_some()
    }

    /// Ends a step with `active` vertices: `now` (called only when the log is open) gives the
    /// engine's counters.
    pub fn step(&self, active: Option<u64>, now: impl FnOnce() -> Snapshot) {
        let record = {
            let mut guard = self.lock();
            let Some(log) = guard.as_mut() else { return };
            let snap = now();
            let end = log.start.elapsed().as_secs_f64();
            log.sample(end, snap.bytes_read, !snap.bytes_live);
            let prev = std::mem::replace(&mut log.at_last_step, snap);
            let snap = &log.at_last_step;
            let record = StepRecord {
                step: log.next_step,
                steps: 1,
                active,
                bytes_read: snap.bytes_read.saturating_sub(prev.bytes_read),
                edges_processed: snap.edges.unwrap_or(0).saturating_sub(prev.edges.unwrap_or(0)),
                seconds: end - log.last_step_end,
                end_seconds: end,
                cache_hit_ratio: snap.cache_hit_ratio.clone(),
            };
            log.next_step += 1;
            log.last_step_end = end;
            log.samples_in_step = 0;
            log.steps.push(record.clone(), StepRecord::absorb);
            (log.observer.clone(), record)
        };
        // Outside the lock: an observer may take its time (a Python callback waits for the GIL).
        if let (Some(observer), record) = record {
            (observer.0)(&record);
        }
    }

    /// Takes an I/O sample of `bytes_read` (cumulative) now.
    pub fn sample(&self, bytes_read: u64) {
        let mut guard = self.lock();
        if let Some(log) = guard.as_mut() {
            let now = log.start.elapsed().as_secs_f64();
            log.sample(now, bytes_read, false);
        }
    }

    /// Closes the log with a step holding what no step counted — bytes read, and edges up to
    /// `edges` (the run's total, when the algorithm counts its own) — when there is any, or when
    /// no engine step was recorded; returns the records.
    pub fn close(&self, at: Snapshot, edges: Option<u64>) -> Recorded {
        let Some(counted) = self.steps_total() else {
            return Recorded::default();
        };
        let (bytes, engine_edges) = (at.bytes_read, at.edges.unwrap_or(0));
        let total_edges = edges.unwrap_or(engine_edges).max(engine_edges);
        let remaining = bytes > counted.0 || total_edges > counted.1 || counted.2 <= 1;
        if remaining {
            // The closing step counts the run's edges where the engine does not.
            self.step(None, || Snapshot {
                edges: Some(total_edges.max(counted.1)),
                ..at
            });
        }
        let Some(log) = self.lock().take() else {
            return Recorded::default();
        };
        Recorded {
            steps: log.steps.records,
            io: log.io.records,
        }
    }

    /// Bytes and edges the steps counted so far, and the number of steps.
    fn steps_total(&self) -> Option<(u64, u64, u64)> {
        let guard = self.lock();
        let log = guard.as_ref()?;
        Some((
            log.at_last_step.bytes_read,
            log.at_last_step.edges.unwrap_or(0),
            log.next_step,
        ))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Log>> {
        self.log.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Log {
    /// Records the bytes read since the last sample as an interval ending at `now`; `spread`
    /// shares them out evenly over the intervals since the last step (counters that show a
    /// round's bytes only at its end).
    fn sample(&mut self, now: f64, bytes_read: u64, spread: bool) {
        let (then, before) = self.last_sample;
        let bytes = bytes_read.saturating_sub(before);
        self.last_sample = (now, bytes_read.max(before));
        if now <= then && bytes == 0 {
            return;
        }
        let io = &mut self.io;
        io.push(
            IoSample {
                end_seconds: now,
                seconds: now - then,
                bytes_read: bytes,
            },
            IoSample::absorb,
        );
        self.samples_in_step += 1;
        if !spread || bytes == 0 {
            return;
        }
        // The intervals of this step still on their own (a thinning may have merged earlier ones).
        let len = io.records.len();
        let k = self.samples_in_step.min(len);
        let tail = &mut io.records[len - k..];
        let span: f64 = tail.iter().map(|s| s.seconds).sum();
        if span <= 0.0 {
            return;
        }
        let kept: u64 = tail[..k - 1].iter().map(|s| s.bytes_read).sum();
        let total = kept + bytes;
        let mut given = 0;
        for s in tail.iter_mut() {
            let share = (total as f64 * s.seconds / span) as u64;
            s.bytes_read = share;
            given += share;
        }
        // Rounding leftovers go to the last interval, so the bytes add up exactly.
        if let Some(last) = tail.last_mut() {
            last.bytes_read += total - given;
        }
    }
}

/// Runs `f` while a thread samples `g`'s bytes read every [`SAMPLE_INTERVAL`] (when `g`'s
/// recorder is open).
pub fn sampled<E: Engine, T>(g: &E, f: impl FnOnce() -> T) -> T {
    if !g.recorder().is_open() {
        return f();
    }
    let (done, wait) = mpsc::channel::<()>();
    std::thread::scope(|s| {
        s.spawn(move || {
            while let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(SAMPLE_INTERVAL) {
                g.recorder().sample(g.snapshot().bytes_read);
            }
        });
        let out = f();
        drop(done);
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(bytes: u64, edges: u64) -> Snapshot {
        Snapshot {
            bytes_read: bytes,
            edges: Some(edges),
            cache_hit_ratio: BTreeMap::new(),
            bytes_live: true,
        }
    }

    #[test]
    fn steps_record_differences_and_close_with_the_rest() {
        let r = Recorder::default();
        r.step(Some(1), || panic!("a closed recorder reads no counters"));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s2 = Arc::clone(&seen);
        let observer = Observer::new(move |rec| s2.lock().unwrap().push(rec.step));
        r.open(Instant::now(), Some(observer), None, snap(100, 0));
        r.step(Some(5), || snap(150, 10));
        r.step(Some(7), || snap(150, 30));
        let log = r.close(snap(170, 30), Some(40));
        let got: Vec<(u64, Option<u64>, u64, u64)> = log
            .steps
            .iter()
            .map(|s| (s.step, s.active, s.bytes_read, s.edges_processed))
            .collect();
        assert_eq!(
            got,
            [
                (0, None, 100, 0),
                (1, Some(5), 50, 10),
                (2, Some(7), 0, 20),
                (3, None, 20, 10)
            ]
        );
        assert_eq!(*seen.lock().unwrap(), [0, 1, 2, 3]);
        assert!(log.steps.windows(2).all(|w| w[0].end_seconds <= w[1].end_seconds));
        assert_eq!(log.io.iter().map(|s| s.bytes_read).sum::<u64>(), 170);
        assert!(!r.is_open());
    }

    #[test]
    fn the_stop_request_is_polled_once_set() {
        let r = Recorder::default();
        assert!(r.check_cancelled().is_ok());
        let cancel = Cancel::new();
        r.open(Instant::now(), None, Some(cancel.clone()), snap(0, 0));
        assert!(r.check_cancelled().is_ok());
        cancel.cancel();
        assert!(matches!(r.check_cancelled(), Err(EngineError::Cancelled)));
    }

    #[test]
    fn the_stop_request_given_at_construction_is_kept_and_handed_out() {
        assert!(!Recorder::default().cancel().is_cancelled(), "a request never set");
        let cancel = Cancel::new();
        let r = Recorder::with_cancel(Some(&cancel));
        // The opening's own request does not replace the engine's.
        r.open(Instant::now(), None, Some(Cancel::new()), snap(0, 0));
        cancel.cancel();
        assert!(r.cancel().is_cancelled());
        assert!(matches!(r.check_cancelled(), Err(EngineError::Cancelled)));
        assert!(r.clone().cancel().is_cancelled(), "a copy stops with the run");
    }

    #[test]
    fn closing_adds_nothing_when_the_steps_counted_everything() {
        let r = Recorder::default();
        r.open(Instant::now(), None, None, snap(0, 0));
        r.step(None, || snap(10, 3));
        assert_eq!(r.close(snap(10, 3), None).steps.len(), 2);
    }

    #[test]
    fn a_long_log_is_thinned_not_grown_and_keeps_its_totals() {
        let r = Recorder::default();
        r.open(Instant::now(), None, None, snap(0, 0));
        let n = 3 * MAX_RECORDS as u64 + 5;
        for i in 1..=n {
            r.step(Some(1), || snap(i, 2 * i));
        }
        let log = r.close(snap(n, 2 * n), None);
        assert!(log.steps.len() <= MAX_RECORDS && log.steps.len() > MAX_RECORDS / 4);
        assert_eq!(log.steps.iter().map(|s| s.steps).sum::<u64>(), n + 1);
        assert_eq!(log.steps.iter().map(|s| s.bytes_read).sum::<u64>(), n);
        assert_eq!(log.steps.iter().map(|s| s.edges_processed).sum::<u64>(), 2 * n);
        assert_eq!(log.steps.iter().filter_map(|s| s.active).sum::<u64>(), n);
        assert!(log.io.len() <= MAX_RECORDS);
        assert_eq!(log.io.iter().map(|s| s.bytes_read).sum::<u64>(), n);
    }

    #[test]
    fn a_round_counted_at_its_end_is_spread_over_its_step() {
        let r = Recorder::default();
        let round = |bytes| Snapshot {
            bytes_live: false,
            ..snap(bytes, 0)
        };
        r.open(Instant::now(), None, None, round(0));
        for _ in 0..3 {
            std::thread::sleep(Duration::from_millis(5));
            r.sample(0);
        }
        std::thread::sleep(Duration::from_millis(5));
        r.step(None, || round(4000));
        let log = r.close(round(4000), None);
        let io = &log.io;
        assert_eq!(io.iter().map(|s| s.bytes_read).sum::<u64>(), 4000);
        assert!(io.len() >= 4, "{io:?}");
        // Every interval of the step (after step 0's) got a share, not just the last one.
        assert!(io[1..].iter().all(|s| s.bytes_read > 0), "{io:?}");
    }
}
