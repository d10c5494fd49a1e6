//! Ctrl-C during the commands that write or run long (`run`, `threshold`, `graph500`, `import`,
//! `generate`, `partition`, `split`, `reorder`, `select`, `compress`, `export`, `verify`): the
//! first SIGINT sets a flag, the one stop request ([`Cancel`]) those commands poll — `run` and
//! `threshold` through the engine, `compress` and `verify` directly, the preparation commands
//! through [`Progress::interrupted`](diskgraph_prep::Progress::interrupted) — so they unwind,
//! removing their scratch files and temporaries and publishing nothing, and the command exits
//! with [`EXIT_INTERRUPTED`]; a second SIGINT ends the process at once with the same status.
//! The other commands (`info`, `cost`, `algorithms`, `device`) only read, and keep SIGINT's
//! default action.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock};

use diskgraph_algo::AlgoError;
use diskgraph_engine::{Cancel, EngineError};
use signal_hook::consts::SIGINT;
use signal_hook::SigId;

/// Exit status of a command stopped by Ctrl-C (128 + SIGINT, as a shell reports it).
pub const EXIT_INTERRUPTED: i32 = 130;

/// Set by the first SIGINT while [`Catch`] is held.
static REQUESTED: LazyLock<Arc<AtomicBool>> = LazyLock::new(Arc::default);

/// SIGINT caught into the flag while held; dropping it gives SIGINT back its earlier action.
pub struct Catch {
    ids: Vec<SigId>,
}

impl Catch {
    /// Starts catching SIGINT, with the flag cleared.
    pub fn start() -> std::io::Result<Catch> {
        REQUESTED.store(false, Ordering::SeqCst);
        // Registered first, so it sees the flag as the previous SIGINT left it: the second one
        // exits.
        let second =
            signal_hook::flag::register_conditional_shutdown(SIGINT, EXIT_INTERRUPTED, Arc::clone(&REQUESTED))?;
        let first = signal_hook::flag::register(SIGINT, Arc::clone(&REQUESTED))?;
        Ok(Catch {
            ids: vec![second, first],
        })
    }
}

impl Drop for Catch {
    fn drop(&mut self) {
        for id in self.ids.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}

/// Whether Ctrl-C was pressed since catching started.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

/// The stop request of a run, set by Ctrl-C.
pub fn cancel() -> Cancel {
    Cancel::from_flag(Arc::clone(&REQUESTED))
}

/// Whether `e` is a command's error for having been stopped by Ctrl-C.
pub fn is_interrupt(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.is::<diskgraph_prep::Interrupted>()
            || matches!(c.downcast_ref::<EngineError>(), Some(EngineError::Cancelled))
            || matches!(
                c.downcast_ref::<AlgoError>(),
                Some(AlgoError::Engine(EngineError::Cancelled))
            )
    })
}
