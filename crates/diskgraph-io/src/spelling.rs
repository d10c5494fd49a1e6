//! How messages name an option: as the command line's flag (`--memory 4GiB`, `--force`) or as
//! Python's keyword argument (`memory=4GiB`, `force=True`). A message that names an option
//! spells it through these functions; the program the library runs in chooses the spelling
//! once (the Python package when it loads, the command line while it runs). Commands quoted
//! for the shell (`` `diskgraph partition G --shards auto` ``) keep the flags: they are not
//! spelled here.

use std::fmt::Display;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// Whether options are spelled as Python's keyword arguments.
static PYTHON: AtomicBool = AtomicBool::new(false);

/// Spells options as Python's keyword arguments (`true`) or as the command line's flags
/// (`false`, the default) from now on; returns the spelling before.
pub fn spell_for_python(python: bool) -> bool {
    PYTHON.swap(python, Relaxed)
}

/// Whether options are spelled as Python's keyword arguments (for a message that says more
/// than an option's name differently in Python).
pub fn for_python() -> bool {
    PYTHON.load(Relaxed)
}

/// The option `name` (snake case, as declared) named alone: `--max-gap` or `max_gap`.
pub fn option(name: &str) -> String {
    match PYTHON.load(Relaxed) {
        true => name.replace('-', "_"),
        false => format!("--{}", name.replace('_', "-")),
    }
}

/// The option `name` set to `value`: `--memory 4GiB` or `memory=4GiB`.
pub fn setting(name: &str, value: impl Display) -> String {
    match PYTHON.load(Relaxed) {
        true => format!("{}={value}", option(name)),
        false => format!("{} {value}", option(name)),
    }
}

/// The switch `name` turned on: `--force` or `force=True`.
pub fn switch(name: &str) -> String {
    match PYTHON.load(Relaxed) {
        true => format!("{}=True", option(name)),
        false => option(name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_spellings() {
        // One test, as the spelling is the process's.
        assert_eq!(
            (option("max_gap"), setting("memory", "4GiB"), switch("force")),
            ("--max-gap".into(), "--memory 4GiB".into(), "--force".into())
        );
        spell_for_python(true);
        let python = (option("max_gap"), setting("memory", "4GiB"), switch("force"));
        spell_for_python(false);
        assert_eq!(python, ("max_gap".into(), "memory=4GiB".into(), "force=True".into()));
    }
}
