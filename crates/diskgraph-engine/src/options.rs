//! Run options as data: what an option is ([`OptionSpec`]: name, kind, default, help, the
//! engines that honour it), the values it takes ([`Value`]), and a run's given options
//! ([`Params`]).
//!
//! Engines declare their options here ([`ENGINE_OPTIONS`]) and algorithms declare theirs in
//! their descriptors (`diskgraph-algo`); the command line, the Python methods and their stubs,
//! `diskgraph algorithms` and the test harness are all generated from these declarations, so a
//! default is written once, beside the code that reads it.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use diskgraph_io::spelling;

use crate::{parse_size, EngineKind, Source, Sources};

/// One option: a name, what it holds, its default and who honours it.
#[derive(Debug)]
pub struct OptionSpec {
    /// Name in snake case (`max_gap`); the command line spells it `--max-gap`.
    pub name: &'static str,
    /// What values it takes.
    pub kind: OptionKind,
    /// The value when not given.
    pub default: Default,
    /// One line for `--help`, `diskgraph algorithms` and the Python docstrings.
    pub help: &'static str,
    /// The engines that honour it.
    pub engines: Engines,
    /// Values worth trying besides the default, as the command line spells them: the test
    /// harness runs each (a choice's names and a flag's values are tried without being listed).
    pub examples: &'static [&'static str],
}

/// The values an option takes.
#[derive(Debug)]
pub enum OptionKind {
    /// True or false.
    Flag,
    /// A whole number in `min..=max`.
    Count {
        /// Smallest value.
        min: u64,
        /// Largest value.
        max: u64,
    },
    /// A finite number strictly between `above` and `below`.
    Float {
        /// Exclusive lower bound.
        above: f64,
        /// Exclusive upper bound.
        below: f64,
    },
    /// A number of bytes, given as an integer or a size such as `64KiB`, at most `max`.
    Size {
        /// The most bytes.
        max: u64,
    },
    /// One of a few names.
    Choice(&'static [Choice]),
    /// A free name (a layout, a selection), checked where it is used.
    Text,
    /// A traversal source: an original vertex ID, `smallest` or `max-degree`.
    Source,
    /// Sources: a count K to sample, or original IDs `a,b,c`. `max` caps both (`None`: the
    /// number of vertices caps a count).
    Sources {
        /// The most sources.
        max: Option<usize>,
    },
    /// One number per vertex, in ascending original-ID order (a file on the command line, an
    /// array in Python).
    Vector,
}

impl OptionKind {
    /// A whole number of at least one.
    pub const POSITIVE: OptionKind = OptionKind::Count {
        min: 1,
        max: u32::MAX as u64,
    };
}

/// One name a [`OptionKind::Choice`] takes.
#[derive(Debug)]
pub struct Choice {
    /// The name.
    pub name: &'static str,
    /// What it means.
    pub help: &'static str,
    /// The engines that take it (of those that honour its option).
    pub engines: Engines,
}

impl Choice {
    /// A name every engine that honours the option takes.
    pub const fn new(name: &'static str, help: &'static str) -> Choice {
        Choice {
            name,
            help,
            engines: Engines::All,
        }
    }
}

/// An option's value when not given.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Default {
    /// No value: the option is off or chosen by the engine (e.g. the backend probes the kernel).
    Absent,
    /// A flag's value.
    Flag(bool),
    /// A count.
    Count(u64),
    /// A float.
    Float(f64),
    /// Bytes.
    Size(u64),
    /// A choice's name.
    Choice(&'static str),
    /// A source.
    Source(Source),
    /// Sample this many sources.
    Sample(usize),
}

/// Which engines honour an option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engines {
    /// Every engine the algorithm runs on.
    All,
    /// These engines only.
    Only(&'static [EngineKind]),
}

impl Engines {
    /// Whether `engine` honours the option.
    pub fn contains(self, engine: EngineKind) -> bool {
        match self {
            Engines::All => true,
            Engines::Only(list) => list.contains(&engine),
        }
    }
}

/// A given option's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A flag.
    Flag(bool),
    /// A count.
    Count(u64),
    /// A float.
    Float(f64),
    /// Bytes.
    Size(u64),
    /// A choice's name.
    Choice(&'static str),
    /// A name.
    Text(String),
    /// A source.
    Source(Source),
    /// Sources.
    Sources(Sources),
    /// One number per vertex.
    Vector(Arc<Vec<f64>>),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Flag(b) => write!(f, "{b}"),
            Value::Count(n) | Value::Size(n) => write!(f, "{n}"),
            Value::Float(x) => write!(f, "{x}"),
            Value::Choice(s) => f.write_str(s),
            Value::Text(s) => f.write_str(s),
            Value::Source(s) => write!(f, "{s}"),
            Value::Sources(s) => write!(f, "{s}"),
            Value::Vector(x) => write!(f, "[{} values]", x.len()),
        }
    }
}

impl fmt::Display for Default {
    /// The default as the command line would spell it (empty when absent).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Default::Absent => Ok(()),
            Default::Flag(b) => write!(f, "{b}"),
            Default::Count(n) => write!(f, "{n}"),
            Default::Size(n) => {
                let unit = [("GiB", 30), ("MiB", 20), ("KiB", 10)]
                    .into_iter()
                    .find(|&(_, shift)| *n >= 1 << shift && n % (1 << shift) == 0);
                match unit {
                    Some((unit, shift)) => write!(f, "{}{unit}", n >> shift),
                    None => write!(f, "{n}"),
                }
            }
            Default::Float(x) if (1e-3..1e6).contains(&x.abs()) => write!(f, "{x}"),
            Default::Float(x) => write!(f, "{x:e}"),
            Default::Choice(s) => f.write_str(s),
            Default::Source(s) => write!(f, "{s}"),
            Default::Sample(k) => write!(f, "{k}"),
        }
    }
}

impl OptionSpec {
    /// The command line's spelling: `--max-gap`.
    pub fn flag_name(&self) -> String {
        format!("--{}", self.name.replace('_', "-"))
    }

    /// The default as a value (`None` when absent).
    pub fn default_value(&self) -> Option<Value> {
        match self.default {
            Default::Absent => None,
            Default::Flag(b) => Some(Value::Flag(b)),
            Default::Count(n) => Some(Value::Count(n)),
            Default::Float(x) => Some(Value::Float(x)),
            Default::Size(n) => Some(Value::Size(n)),
            Default::Choice(s) => Some(Value::Choice(s)),
            Default::Source(s) => Some(Value::Source(s)),
            Default::Sample(k) => Some(Value::Sources(Sources::Sample(k))),
        }
    }

    /// Parses the command line's text for this option. A [`OptionKind::Vector`] takes no text
    /// (the command line reads it from a file).
    pub fn parse(&self, text: &str) -> Result<Value, String> {
        let value = match &self.kind {
            OptionKind::Flag => match text.trim().to_ascii_lowercase().as_str() {
                "true" | "yes" | "1" | "on" => Value::Flag(true),
                "false" | "no" | "0" | "off" => Value::Flag(false),
                _ => {
                    return Err(format!(
                        "{}: {text:?} is not true or false",
                        spelling::option(self.name)
                    ))
                }
            },
            OptionKind::Count { .. } => {
                let n: u64 = text
                    .trim()
                    .parse()
                    .map_err(|_| format!("{}: {text:?} is not a whole number", spelling::option(self.name)))?;
                Value::Count(n)
            }
            OptionKind::Float { .. } => {
                let x: f64 = text
                    .trim()
                    .parse()
                    .map_err(|_| format!("{}: {text:?} is not a number", spelling::option(self.name)))?;
                Value::Float(x)
            }
            OptionKind::Size { .. } => {
                Value::Size(parse_size(text).map_err(|e| format!("{}: {e}", spelling::option(self.name)))?)
            }
            OptionKind::Choice(choices) => {
                let lower = text.trim().to_ascii_lowercase();
                match choices.iter().find(|c| c.name == lower) {
                    Some(c) => Value::Choice(c.name),
                    None => return Err(self.unknown_choice(text)),
                }
            }
            OptionKind::Text => Value::Text(text.to_string()),
            OptionKind::Source => Value::Source(text.parse()?),
            OptionKind::Sources { .. } => Value::Sources(text.parse()?),
            OptionKind::Vector => return Err(format!("{} is read from a file", self.flag_name())),
        };
        self.check(&value)?;
        Ok(value)
    }

    /// The error for a name that is not one of a choice's.
    pub fn unknown_choice(&self, given: &str) -> String {
        let names: Vec<&str> = match &self.kind {
            OptionKind::Choice(choices) => choices.iter().map(|c| c.name).collect(),
            _ => Vec::new(),
        };
        format!(
            "unknown {} {given:?} (use {})",
            self.name.replace('_', " "),
            or_list(&names)
        )
    }

    /// Checks `value` against the option's kind and range.
    pub fn check(&self, value: &Value) -> Result<(), String> {
        let name = self.name;
        match (&self.kind, value) {
            (OptionKind::Flag, Value::Flag(_)) => Ok(()),
            (&OptionKind::Count { min, max }, &Value::Count(n)) => {
                if n < min {
                    Err(format!("{name} must be at least {min}, got {n}"))
                } else if n > max {
                    Err(format!("{name} must be at most {max}, got {n}"))
                } else {
                    Ok(())
                }
            }
            (&OptionKind::Float { above, below }, &Value::Float(x)) => {
                if x.is_finite() && x > above && x < below {
                    Ok(())
                } else if above.is_infinite() && below.is_infinite() {
                    Err(format!("{name} must be a finite number, got {x}"))
                } else if below.is_infinite() {
                    Err(format!("{name} must be a finite number above {above}, got {x}"))
                } else {
                    Err(format!("{name} must be between {above} and {below}, got {x}"))
                }
            }
            (&OptionKind::Size { max }, &Value::Size(n)) => {
                if n == 0 {
                    Err(format!("{name} must be a positive number of bytes"))
                } else if n > max {
                    Err(format!("{name} of {n} bytes is too large (at most {max} bytes)"))
                } else {
                    Ok(())
                }
            }
            (OptionKind::Choice(choices), Value::Choice(s)) if choices.iter().any(|c| c.name == *s) => Ok(()),
            (OptionKind::Text, Value::Text(_)) | (OptionKind::Source, Value::Source(_)) => Ok(()),
            // Their number is checked against the graph when they are resolved.
            (OptionKind::Sources { .. }, Value::Sources(_)) => Ok(()),
            // Infinities are values (min-plus products start from +inf); NaN is not.
            (OptionKind::Vector, Value::Vector(x)) => match x.iter().position(|v| v.is_nan()) {
                Some(i) => Err(format!("{name} must be numbers (inf allowed), but {name}[{i}] is NaN")),
                None => Ok(()),
            },
            (kind, value) => Err(format!("{name} takes {}, got {value}", kind.describe())),
        }
    }
}

impl OptionKind {
    /// What the kind takes, in a few words (for errors and help).
    pub fn describe(&self) -> String {
        match self {
            OptionKind::Flag => "true or false".into(),
            OptionKind::Count { min, max } if *max == u64::MAX => format!("a whole number of at least {min}"),
            OptionKind::Count { min, max } => format!("a whole number from {min} to {max}"),
            OptionKind::Float { .. } => "a number".into(),
            OptionKind::Size { .. } => "a size in bytes (e.g. 4096 or 64KiB)".into(),
            OptionKind::Choice(choices) => {
                let names: Vec<&str> = choices.iter().map(|c| c.name).collect();
                or_list(&names)
            }
            OptionKind::Text => "a name".into(),
            OptionKind::Source => "a vertex ID, smallest or max-degree".into(),
            OptionKind::Sources { .. } => "a count K or vertex IDs a,b,c".into(),
            OptionKind::Vector => "one number per vertex".into(),
        }
    }

    /// The placeholder of the value in `--help` (`N`, `SIZE`, ...).
    pub fn placeholder(&self) -> &'static str {
        match self {
            OptionKind::Flag => "BOOL",
            OptionKind::Count { .. } => "N",
            OptionKind::Float { .. } => "X",
            OptionKind::Size { .. } => "SIZE",
            OptionKind::Choice(_) => "NAME",
            OptionKind::Text => "NAME",
            OptionKind::Source => "ID",
            OptionKind::Sources { .. } => "K|IDS",
            OptionKind::Vector => "FILE",
        }
    }
}

/// `a, b or c`.
pub fn or_list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// A run's given options by name; what is not given takes its [`OptionSpec::default`].
///
/// Values are checked against their spec when set ([`Params::set`]); the typed getters then
/// trust them, and panic on a spec whose kind is not theirs (a programming error the test
/// harness would meet at once).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {
    given: BTreeMap<&'static str, Value>,
}

impl Params {
    /// No option given.
    pub fn new() -> Self {
        Params::default()
    }

    /// Sets `spec` to `value` after checking it.
    pub fn set(&mut self, spec: &OptionSpec, value: Value) -> Result<(), String> {
        spec.check(&value)?;
        self.given.insert(spec.name, value);
        Ok(())
    }

    /// [`set`](Self::set), for building params in code.
    ///
    /// # Panics
    /// If the value does not suit the option.
    pub fn with(mut self, spec: &OptionSpec, value: Value) -> Self {
        if let Err(e) = self.set(spec, value) {
            panic!("{e}");
        }
        self
    }

    /// The names of the given options, in name order.
    pub fn given(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.given.keys().copied()
    }

    /// Whether `spec` was given.
    pub fn is_given(&self, spec: &OptionSpec) -> bool {
        self.given.contains_key(spec.name)
    }

    /// The given value of `spec`, else its default.
    pub fn get(&self, spec: &OptionSpec) -> Option<Value> {
        self.given.get(spec.name).cloned().or_else(|| spec.default_value())
    }

    /// A flag's value.
    pub fn flag(&self, spec: &OptionSpec) -> bool {
        match self.get(spec) {
            Some(Value::Flag(b)) => b,
            None => false,
            other => mistyped(spec, other),
        }
    }

    /// A count's value, `None` when absent.
    pub fn count(&self, spec: &OptionSpec) -> Option<u64> {
        match self.get(spec) {
            Some(Value::Count(n)) => Some(n),
            None => None,
            other => mistyped(spec, other),
        }
    }

    /// A float's value, `None` when absent.
    pub fn float(&self, spec: &OptionSpec) -> Option<f64> {
        match self.get(spec) {
            Some(Value::Float(x)) => Some(x),
            None => None,
            other => mistyped(spec, other),
        }
    }

    /// A size's value in bytes, `None` when absent.
    pub fn size(&self, spec: &OptionSpec) -> Option<u64> {
        match self.get(spec) {
            Some(Value::Size(n)) => Some(n),
            None => None,
            other => mistyped(spec, other),
        }
    }

    /// A choice's name, `None` when absent.
    pub fn choice(&self, spec: &OptionSpec) -> Option<&'static str> {
        match self.get(spec) {
            Some(Value::Choice(s)) => Some(s),
            None => None,
            other => mistyped(spec, other),
        }
    }

    /// A name's value, `None` when absent.
    pub fn text(&self, spec: &OptionSpec) -> Option<String> {
        match self.get(spec) {
            Some(Value::Text(s)) => Some(s),
            None => None,
            other => mistyped(spec, other),
        }
    }

    /// A source's value.
    pub fn source(&self, spec: &OptionSpec) -> Source {
        match self.get(spec) {
            Some(Value::Source(s)) => s,
            None => Source::Smallest,
            other => mistyped(spec, other),
        }
    }

    /// Sources' value, `None` when absent.
    pub fn sources(&self, spec: &OptionSpec) -> Option<Sources> {
        match self.get(spec) {
            Some(Value::Sources(s)) => Some(s),
            None => None,
            other => mistyped(spec, other),
        }
    }

    /// The value of an option declared with a default, or given: `let n: u64 =
    /// params.value(&MRT)` (a count or a size as `u64`, a float as `f64`, a flag as `bool`, a
    /// choice's name as `&str`, a name as `String`).
    ///
    /// # Panics
    /// If the option has no value (declared without a default and not given) or is of another
    /// kind: a programming error, which the options' tests meet at once.
    pub fn value<T: FromValue>(&self, spec: &OptionSpec) -> T {
        match self.get(spec) {
            Some(v) => T::from_value(v).unwrap_or_else(|v| mistyped(spec, Some(v))),
            None => panic!("option {} has no default and was not given", spec.name),
        }
    }

    /// A choice's value as the type its names parse into (`T`'s `FromStr` takes every name the
    /// option declares), `None` when absent.
    ///
    /// # Panics
    /// If `T` refuses a name the option declares: a programming error (see [`parses_every_choice`]).
    pub fn chosen<T: FromStr>(&self, spec: &OptionSpec) -> Option<T>
    where
        T::Err: fmt::Display,
    {
        self.choice(spec).map(|name| {
            name.parse()
                .unwrap_or_else(|e| panic!("option {}: choice {name:?} does not parse: {e}", spec.name))
        })
    }

    /// [`chosen`](Self::chosen) of an option declared with a default.
    ///
    /// # Panics
    /// As [`value`](Self::value) and [`chosen`](Self::chosen).
    pub fn choice_value<T: FromStr>(&self, spec: &OptionSpec) -> T
    where
        T::Err: fmt::Display,
    {
        self.chosen(spec)
            .unwrap_or_else(|| panic!("option {} has no default and was not given", spec.name))
    }

    /// A vector's value, `None` when absent.
    pub fn vector(&self, spec: &OptionSpec) -> Option<Arc<Vec<f64>>> {
        match self.get(spec) {
            Some(Value::Vector(x)) => Some(x),
            None => None,
            other => mistyped(spec, other),
        }
    }
}

/// A Rust type an option's [`Value`] is read as ([`Params::value`]).
pub trait FromValue: Sized {
    /// The value as this type, or the value back when it is of another kind.
    fn from_value(value: Value) -> Result<Self, Value>;
}

/// `FromValue` for `$t`, read from the values of kinds `$kind`.
macro_rules! from_value {
    ($t:ty: $($kind:ident)|+) => {
        impl FromValue for $t {
            fn from_value(value: Value) -> Result<Self, Value> {
                match value {
                    $(Value::$kind(x) => Ok(x),)+
                    other => Err(other),
                }
            }
        }
    };
}

from_value!(u64: Count | Size);
from_value!(f64: Float);
from_value!(bool: Flag);
from_value!(&'static str: Choice);
from_value!(String: Text);
from_value!(Sources: Sources);

/// Whether every name `spec` declares parses as `T` (for the tests of each typed choice).
pub fn parses_every_choice<T: FromStr>(spec: &OptionSpec) -> bool {
    match &spec.kind {
        OptionKind::Choice(choices) => choices.iter().all(|c| c.name.parse::<T>().is_ok()),
        _ => false,
    }
}

/// Panics: a getter of one kind was used on an option of another.
fn mistyped(spec: &OptionSpec, value: Option<Value>) -> ! {
    panic!("option {} ({:?}) read as another kind: {value:?}", spec.name, spec.kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    const COUNT: OptionSpec = OptionSpec {
        name: "rounds",
        kind: OptionKind::Count { min: 1, max: 10 },
        default: Default::Count(4),
        help: "",
        engines: Engines::All,
        examples: &[],
    };
    const FRACTION: OptionSpec = OptionSpec {
        name: "fraction",
        kind: OptionKind::Float { above: 0.0, below: 1.0 },
        default: Default::Float(0.5),
        help: "",
        engines: Engines::All,
        examples: &[],
    };
    const PICK: OptionSpec = OptionSpec {
        name: "io",
        kind: OptionKind::Choice(&[Choice::new("uring", ""), Choice::new("pread", "")]),
        default: Default::Absent,
        help: "",
        engines: Engines::Only(&[EngineKind::Selective]),
        examples: &[],
    };

    #[test]
    fn text_is_parsed_and_checked() {
        assert_eq!(COUNT.parse("7"), Ok(Value::Count(7)));
        assert!(COUNT.parse("0").unwrap_err().contains("at least 1"));
        assert!(COUNT.parse("11").unwrap_err().contains("at most 10"));
        assert!(COUNT.parse("x").unwrap_err().contains("--rounds"));
        assert_eq!(FRACTION.parse("0.25"), Ok(Value::Float(0.25)));
        assert!(FRACTION.parse("1").is_err());
        assert!(FRACTION.parse("NaN").is_err());
        const ANY: OptionSpec = OptionSpec {
            kind: OptionKind::Float {
                above: f64::NEG_INFINITY,
                below: f64::INFINITY,
            },
            ..FRACTION
        };
        assert_eq!(ANY.parse("-3"), Ok(Value::Float(-3.0)));
        assert_eq!(
            ANY.parse("inf").unwrap_err(),
            "fraction must be a finite number, got inf"
        );
        assert_eq!(PICK.parse("PREAD"), Ok(Value::Choice("pread")));
        assert_eq!(
            PICK.parse("mmap").unwrap_err(),
            "unknown io \"mmap\" (use uring or pread)"
        );
    }

    #[test]
    fn params_fall_back_to_defaults() {
        let mut p = Params::new();
        assert_eq!(p.count(&COUNT), Some(4));
        assert_eq!(p.choice(&PICK), None);
        assert!(!p.is_given(&COUNT));
        p.set(&COUNT, Value::Count(2)).unwrap();
        assert_eq!(p.count(&COUNT), Some(2));
        assert!(p.set(&COUNT, Value::Float(2.0)).is_err(), "a value of another kind");
        assert_eq!(p.given().collect::<Vec<_>>(), ["rounds"]);
    }

    #[test]
    #[should_panic(expected = "read as another kind")]
    fn a_getter_of_another_kind_panics() {
        Params::new().flag(&COUNT);
    }
}
