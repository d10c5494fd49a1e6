//! Long-lived helper threads that run borrowed work: what `std::thread::scope` does, without
//! creating threads for every round.
//!
//! A [`Crew`] has a fixed number of seats. The thread of a seat is spawned the first time the
//! seat is used and then sleeps on its own condition variable between tasks; dropping the crew
//! wakes every thread with an exit order and joins it. [`CrewGuard::run`] hands a borrowed task
//! to some seats, runs the caller's share of the work on the calling thread, and returns only
//! once every helper is done with the task, which is what makes lending a non-`'static` task to
//! `'static` threads sound. Panics on a helper are caught there and resumed on the caller.
//!
//! Seats are *required* (they run the task, and the caller waits for them) or *optional*: when
//! the caller's share is done, optional seats whose thread has not yet picked the task up are
//! skipped, their order taken back, so the caller never waits for a thread that still has to be
//! scheduled only to find nothing left to do (fork-join on a loaded machine otherwise pays a
//! wake-up latency per round).

use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, TryLockError};
use std::thread::JoinHandle;

/// The work a helper runs, given its seat.
pub(crate) type Task<'t> = dyn Fn(usize) + Sync + 't;

type Panic = Box<dyn Any + Send>;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

enum Order {
    Idle,
    /// The task, its lifetime erased: valid until the seat reports it done (see `run`).
    Run(&'static Task<'static>),
    Exit,
}

struct Seat {
    order: Mutex<Order>,
    cv: Condvar,
}

/// What the crew's threads share; kept alive by every thread (never borrowed from a caller's
/// stack, so a helper may touch it after its task ended).
struct Shared {
    seats: Vec<Seat>,
    /// Helpers still running the current task, and the first panic among them.
    running: Mutex<(usize, Option<Panic>)>,
    done: Condvar,
}

/// Long-lived helper threads, one per seat, spawned on first use.
pub(crate) struct Crew {
    shared: Arc<Shared>,
    /// Handles of the spawned threads; the lock also makes tasks run one at a time.
    threads: Mutex<Vec<Option<JoinHandle<()>>>>,
    name: Box<dyn Fn(usize) -> String + Send + Sync>,
}

/// Exclusive use of a crew (one task at a time).
pub(crate) struct CrewGuard<'c> {
    crew: &'c Crew,
    threads: MutexGuard<'c, Vec<Option<JoinHandle<()>>>>,
}

impl Crew {
    /// A crew of `seats` seats; the thread of seat `i` is named `name(i)`.
    pub(crate) fn new(seats: usize, name: impl Fn(usize) -> String + Send + Sync + 'static) -> Self {
        Crew {
            shared: Arc::new(Shared {
                seats: (0..seats)
                    .map(|_| Seat {
                        order: Mutex::new(Order::Idle),
                        cv: Condvar::new(),
                    })
                    .collect(),
                running: Mutex::new((0, None)),
                done: Condvar::new(),
            }),
            threads: Mutex::new((0..seats).map(|_| None).collect()),
            name: Box::new(name),
        }
    }

    /// Waits until no other task runs on the crew.
    pub(crate) fn lock(&self) -> CrewGuard<'_> {
        CrewGuard {
            crew: self,
            threads: lock(&self.threads),
        }
    }

    /// The crew if no other task runs on it.
    pub(crate) fn try_lock(&self) -> Option<CrewGuard<'_>> {
        let threads = match self.threads.try_lock() {
            Ok(g) => g,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => return None,
        };
        Some(CrewGuard { crew: self, threads })
    }

    /// Threads spawned so far.
    #[cfg(test)]
    pub(crate) fn spawned(&self) -> usize {
        lock(&self.threads).iter().filter(|t| t.is_some()).count()
    }
}

fn helper(shared: Arc<Shared>, seat: usize) {
    let me = &shared.seats[seat];
    loop {
        let task = {
            let mut order = lock(&me.order);
            loop {
                match std::mem::replace(&mut *order, Order::Idle) {
                    Order::Run(task) => break task,
                    Order::Exit => return,
                    Order::Idle => order = me.cv.wait(order).unwrap_or_else(PoisonError::into_inner),
                }
            }
        };
        let result = catch_unwind(AssertUnwindSafe(|| task(seat)));
        // From here on the task may be gone: only `shared` is touched.
        let mut running = lock(&shared.running);
        if let Err(p) = result {
            running.1.get_or_insert(p);
        }
        running.0 -= 1;
        if running.0 == 0 {
            shared.done.notify_all();
        }
    }
}

impl CrewGuard<'_> {
    /// Runs `task(seat)` on the threads of the `required` and `optional` seats (all distinct,
    /// below the crew's size) while the calling thread runs `caller`, and returns `caller`'s
    /// result once every required seat and every optional seat that started the task finished
    /// it; optional seats that had not started when `caller` returned are skipped. A panic in
    /// `caller` or in a helper is resumed here, after all of them finished.
    ///
    /// # Panics
    /// If a thread cannot be spawned (before any work starts), or if a seat is out of range.
    pub(crate) fn run<R>(
        &mut self,
        required: &[usize],
        optional: &[usize],
        task: &Task<'_>,
        caller: impl FnOnce() -> R,
    ) -> R {
        let shared = &self.crew.shared;
        let seats: Vec<usize> = required.iter().chain(optional).copied().collect();
        // Every thread exists before any is given work: no failure can occur between handing
        // out the task and waiting for it.
        for &s in &seats {
            if self.threads[s].is_none() {
                let sh = shared.clone();
                let handle = std::thread::Builder::new()
                    .name((self.crew.name)(s))
                    .spawn(move || helper(sh, s))
                    .expect("spawn a diskgraph-io thread");
                self.threads[s] = Some(handle);
            }
        }
        {
            let mut running = lock(&shared.running);
            debug_assert_eq!(running.0, 0);
            running.0 = seats.len();
            running.1 = None;
        }
        // SAFETY: only the lifetime is erased. Helpers use the task until they decrement
        // `running`, and this function does not return (or unwind: `caller` runs under
        // `catch_unwind` and nothing else here panics) before `running` is back to zero, so the
        // task outlives every use.
        let erased: &'static Task<'static> = unsafe { std::mem::transmute::<&Task<'_>, &'static Task<'static>>(task) };
        for &s in &seats {
            let seat = &shared.seats[s];
            *lock(&seat.order) = Order::Run(erased);
            seat.cv.notify_one();
        }
        let mine = catch_unwind(AssertUnwindSafe(caller));
        // Take back the optional orders nobody picked up: those seats never see the task.
        let mut revoked = 0;
        for &s in optional {
            let mut order = lock(&shared.seats[s].order);
            if matches!(*order, Order::Run(_)) {
                *order = Order::Idle;
                revoked += 1;
            }
        }
        let theirs = {
            let mut running = lock(&shared.running);
            running.0 -= revoked;
            while running.0 > 0 {
                running = shared.done.wait(running).unwrap_or_else(PoisonError::into_inner);
            }
            running.1.take()
        };
        match (mine, theirs) {
            (Err(p), _) | (Ok(_), Some(p)) => resume_unwind(p),
            (Ok(r), None) => r,
        }
    }
}

impl Drop for Crew {
    fn drop(&mut self) {
        for seat in &self.shared.seats {
            *lock(&seat.order) = Order::Exit;
            seat.cv.notify_one();
        }
        let threads = std::mem::take(self.threads.get_mut().unwrap_or_else(PoisonError::into_inner));
        for t in threads.into_iter().flatten() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn runs_borrowed_work_and_reuses_threads() {
        let crew = Crew::new(3, |i| format!("crew-test-{i}"));
        assert_eq!(crew.spawned(), 0);
        let hits: Vec<AtomicUsize> = (0..4).map(|_| AtomicUsize::new(0)).collect();
        // Fewer under Miri, whose busy-waiting caller makes each round slow.
        let rounds = if cfg!(miri) { 40 } else { 1000 };
        for round in 0..rounds {
            let seats: &[usize] = if round % 2 == 0 { &[0, 2] } else { &[1] };
            let started = AtomicUsize::new(0);
            let r = crew.lock().run(
                &[],
                seats,
                &|s| {
                    hits[s].fetch_add(1, Ordering::Relaxed);
                    started.fetch_add(1, Ordering::Release);
                },
                || {
                    hits[3].fetch_add(1, Ordering::Relaxed);
                    // Let every helper start, so that none is skipped.
                    while started.load(Ordering::Acquire) < seats.len() {
                        std::thread::yield_now();
                    }
                    round
                },
            );
            assert_eq!(r, round);
        }
        let got: Vec<usize> = hits.iter().map(|h| h.load(Ordering::Relaxed)).collect();
        assert_eq!(got, [rounds / 2, rounds / 2, rounds / 2, rounds]);
        assert_eq!(crew.spawned(), 3);
    }

    #[test]
    fn helpers_not_started_are_skipped() {
        let crew = Crew::new(2, |i| format!("crew-test-{i}"));
        let runs = AtomicUsize::new(0);
        for _ in 0..1000 {
            crew.lock().run(
                &[],
                &[0, 1],
                &|_| {
                    runs.fetch_add(1, Ordering::Relaxed);
                },
                || {},
            );
        }
        // Every started helper finished before `run` returned, and none ran a task twice.
        let n = runs.load(Ordering::Relaxed);
        assert!(n <= 2000, "{n}");
        // Required seats always run, even when the caller is done at once.
        let before = runs.load(Ordering::Relaxed);
        for _ in 0..100 {
            crew.lock().run(
                &[0, 1],
                &[],
                &|_| {
                    runs.fetch_add(1, Ordering::Relaxed);
                },
                || {},
            );
        }
        assert_eq!(runs.load(Ordering::Relaxed), before + 200);
        // A round that waits for its optional helpers gets them all.
        let started = AtomicUsize::new(0);
        crew.lock().run(
            &[],
            &[0, 1],
            &|_| {
                started.fetch_add(1, Ordering::Release);
            },
            || {
                while started.load(Ordering::Acquire) < 2 {
                    std::thread::yield_now();
                }
            },
        );
        assert_eq!(started.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn panics_come_back_to_the_caller() {
        let crew = Crew::new(2, |i| format!("crew-test-{i}"));
        let started = AtomicUsize::new(0);
        let r = catch_unwind(AssertUnwindSafe(|| {
            crew.lock().run(
                &[],
                &[0, 1],
                &|s| {
                    started.fetch_add(1, Ordering::Release);
                    if s == 1 {
                        panic!("helper {s}");
                    }
                },
                || {
                    while started.load(Ordering::Acquire) < 2 {
                        std::thread::yield_now();
                    }
                    5
                },
            )
        }));
        let p = r.unwrap_err();
        assert_eq!(p.downcast_ref::<String>().map(String::as_str), Some("helper 1"));
        let r = catch_unwind(AssertUnwindSafe(|| {
            crew.lock().run(&[0], &[], &|_| {}, || panic!("caller"))
        }));
        assert_eq!(r.unwrap_err().downcast_ref::<&str>(), Some(&"caller"));
        // Still usable.
        assert_eq!(crew.lock().run(&[0, 1], &[], &|_| {}, || 7), 7);
    }
}
