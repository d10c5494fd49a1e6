//! Progress on stderr when stderr is a terminal, silence otherwise: a bar (rates and ETA) for
//! the preparation commands ([`Bar`]; it also passes Ctrl-C on to them), a line of the
//! engine's steps for run ([`StepLine`]).

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use diskgraph_engine::{human_bytes, Observer, StepRecord};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// Draws the progress of a preparation command (import, generate, partition, reorder, ...) with
/// indicatif, and asks it to stop once Ctrl-C was pressed.
pub struct Bar {
    bar: Option<ProgressBar>,
    bytes: bool,
}

impl Bar {
    /// A bar that draws only if stderr is a terminal. `bytes` says the first phase counts bytes.
    pub fn new(bytes: bool) -> Self {
        let visible = std::io::stderr().is_terminal();
        Bar {
            bar: visible.then(|| ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())),
            bytes,
        }
    }
}

impl diskgraph_prep::Progress for Bar {
    fn phase(&mut self, name: &str, total: Option<u64>) {
        let Some(bar) = &self.bar else { return };
        let units = if self.bytes {
            "{bytes}/{total_bytes} ({bytes_per_sec}, ETA {eta})"
        } else {
            "{human_pos}/{human_len} ({rate}, ETA {eta})"
        };
        let template = match total {
            Some(_) => format!("{{msg:18}} [{{bar:30}}] {units}"),
            None => "{msg:18} {spinner} {human_pos} ({rate}) {elapsed}".to_string(),
        };
        let style = ProgressStyle::with_template(&template)
            .expect("valid template")
            .with_key("rate", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.1} M/s", s.per_sec() / 1e6);
            })
            .progress_chars("=> ");
        bar.set_style(style);
        bar.set_length(total.unwrap_or(0));
        bar.set_position(0);
        bar.reset_eta();
        bar.set_message(name.to_string());
        self.bytes = false;
    }

    fn update(&mut self, done: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(done);
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    fn interrupted(&self) -> bool {
        crate::interrupt::requested()
    }
}

/// A run's steps as they end, on one line of stderr: the step, its active vertices, the bytes it
/// read and their rate, and the bytes read so far.
pub struct StepLine {
    bar: ProgressBar,
}

impl StepLine {
    /// A line for a run, or `None` when stderr is not a terminal.
    pub fn new() -> Option<StepLine> {
        if !std::io::stderr().is_terminal() {
            return None;
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(ProgressStyle::with_template("{spinner} {elapsed} {msg}").expect("valid template"));
        Some(StepLine { bar })
    }

    /// The observer that updates the line.
    pub fn observer(&self) -> Observer {
        let bar = self.bar.clone();
        let total = Arc::new(AtomicU64::new(0));
        Observer::new(move |r: &StepRecord| {
            let so_far = total.fetch_add(r.bytes_read, Relaxed) + r.bytes_read;
            bar.set_message(step_text(r, so_far));
            bar.tick();
        })
    }

    /// Clears the line (the run's summary follows).
    pub fn finish(self) {
        self.bar.finish_and_clear();
    }
}

/// What the line says of step `r`, `so_far` bytes read in all.
fn step_text(r: &StepRecord, so_far: u64) -> String {
    let active = r.active.map_or_else(String::new, |a| format!(", {a} active"));
    let what = if r.step == 0 {
        "opened".to_string()
    } else {
        format!("step {}", r.step)
    };
    format!(
        "{what}{active}: {} read ({:.1} MB/s), {} edges; {} read in all",
        human_bytes(r.bytes_read),
        r.bytes_per_second() / 1e6,
        r.edges_processed,
        human_bytes(so_far)
    )
}
