//! A progress bar on stderr (rates and ETA) when stderr is a terminal; silence otherwise.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// Draws import/generate progress with indicatif.
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
}
