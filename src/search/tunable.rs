//! Tunable search parameters: each is declared once (in `params.rs`, through
//! [`tunables!`]) with its default, range and SPSA settings.
//!
//! In the default build a parameter is a `const fn NAME() -> T` returning its default, so
//! the search compiles to the same constants as before. With the cargo feature `tune` it
//! reads an atomic global instead, and the UCI front end exposes it as a `spin` option of
//! the same name, so that an SPSA driver (OpenBench, `scripts/spsa.py`) can set it between
//! games. UCI has no fractional type: a floating-point parameter is the option `NAME_x100`
//! in hundredths (see `docs/tuning.md`).

/// Ints are set in their own unit, floats in hundredths.
pub const FLOAT_UNITS_PER_ONE: f64 = 100.0;

/// A parameter's type as the tuner sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TunableKind {
    Int,
    Float,
}

/// One tunable parameter's declaration, in the parameter's own unit.
#[derive(Clone, Copy, Debug)]
pub struct Tunable {
    pub name: &'static str,
    pub kind: TunableKind,
    pub default: f64,
    pub min: f64,
    pub max: f64,
    /// The SPSA perturbation size at the end of a run (OpenBench's `c_end`).
    pub c_end: f64,
    /// The SPSA learning rate at the end of a run (OpenBench's `r_end`).
    pub r_end: f64,
}

impl Tunable {
    fn scale(&self) -> f64 {
        match self.kind {
            TunableKind::Int => 1.0,
            TunableKind::Float => FLOAT_UNITS_PER_ONE,
        }
    }

    /// The UCI option's name: the parameter's, with `_x100` for a float.
    pub fn uci_name(&self) -> String {
        match self.kind {
            TunableKind::Int => self.name.to_string(),
            TunableKind::Float => format!("{}_x100", self.name),
        }
    }

    /// A value in the parameter's unit as the UCI option's integer.
    pub fn to_uci(&self, value: f64) -> i64 {
        (value * self.scale()).round() as i64
    }

    pub fn uci_default(&self) -> i64 {
        self.to_uci(self.default)
    }

    pub fn uci_min(&self) -> i64 {
        self.to_uci(self.min)
    }

    pub fn uci_max(&self) -> i64 {
        self.to_uci(self.max)
    }

    /// The option's `c_end` in the option's unit.
    pub fn uci_c_end(&self) -> f64 {
        // Rounded to a millionth so that `0.1` in hundredths prints as `10`.
        (self.c_end * self.scale() * 1e6).round() / 1e6
    }

    /// The `uci` listing's line.
    pub fn uci_line(&self) -> String {
        format!(
            "option name {} type spin default {} min {} max {}",
            self.uci_name(),
            self.uci_default(),
            self.uci_min(),
            self.uci_max()
        )
    }

    /// OpenBench's SPSA input line: `NAME, int, default, min, max, c_end, r_end`.
    pub fn openbench_line(&self) -> String {
        format!(
            "{}, int, {}, {}, {}, {}, {}",
            self.uci_name(),
            self.uci_default(),
            self.uci_min(),
            self.uci_max(),
            self.uci_c_end(),
            self.r_end
        )
    }
}

/// How a declared type converts from the UCI option's integer.
pub trait TunableType {
    const KIND: TunableKind;
    fn from_uci(value: i64) -> Self;
}

macro_rules! int_tunable_type {
    ($($ty:ty),*) => {$(
        impl TunableType for $ty {
            const KIND: TunableKind = TunableKind::Int;
            fn from_uci(value: i64) -> Self {
                // In range by construction: `set` only stores values within the
                // declared range, and `tunables!` checks that range fits the type.
                value as $ty
            }
        }
    )*};
}
int_tunable_type!(i32, u8, u64, usize);

impl TunableType for f64 {
    const KIND: TunableKind = TunableKind::Float;
    fn from_uci(value: i64) -> Self {
        value as f64 / FLOAT_UNITS_PER_ONE
    }
}

/// Declares the tunable parameters, each as
/// `/// doc` `NAME: type = default, min..=max, c_end C, r_end R;`
/// (type one of i32, u8, u64, usize, f64; min, max and C in the parameter's unit).
/// Generates `NAME()` for each and [`TUNABLES`](crate::search::params::TUNABLES), the
/// list of declarations; with the feature `tune`, also `set_tunable`.
macro_rules! tunables {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident: $ty:ident = $default:literal, $min:literal..=$max:literal,
            c_end $c_end:literal, r_end $r_end:literal;
    )*) => {
        $(
            $(#[doc = $doc])*
            #[cfg(not(feature = "tune"))]
            #[allow(non_snake_case)]
            #[inline(always)]
            pub const fn $name() -> $ty {
                $default
            }

            $(#[doc = $doc])*
            #[cfg(feature = "tune")]
            #[allow(non_snake_case)]
            #[inline]
            pub fn $name() -> $ty {
                use $crate::search::tunable::TunableType;
                $ty::from_uci(tune_values::VALUES[tune_values::Slot::$name as usize]
                    .load(std::sync::atomic::Ordering::Relaxed))
            }

            // The range must hold the default and fit the type.
            const _: () = assert!(
                ($min as f64) <= ($default as f64)
                    && ($default as f64) <= ($max as f64)
                    && ($min as f64) >= ($ty::MIN as f64)
                    && ($max as f64) <= ($ty::MAX as f64)
            );
        )*

        /// Every tunable parameter's declaration, in declaration order.
        pub const TUNABLES: &[$crate::search::tunable::Tunable] = &[$(
            $crate::search::tunable::Tunable {
                name: stringify!($name),
                kind: <$ty as $crate::search::tunable::TunableType>::KIND,
                default: $default as f64,
                min: $min as f64,
                max: $max as f64,
                c_end: $c_end as f64,
                r_end: $r_end,
            },
        )*];

        /// The current values (the UCI options' integers), one slot per parameter.
        #[cfg(feature = "tune")]
        mod tune_values {
            use std::sync::atomic::AtomicI64;

            #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
            pub(super) enum Slot { $($name),* }

            pub(super) static VALUES: once_cell::sync::Lazy<Vec<AtomicI64>> =
                once_cell::sync::Lazy::new(|| {
                    super::TUNABLES.iter().map(|t| AtomicI64::new(t.uci_default())).collect()
                });
        }

        /// Sets a parameter by its UCI option name (case-insensitive) to a UCI value;
        /// an unknown name or a value out of range is an error and changes nothing.
        /// `None` when `name` is no tunable's option.
        #[cfg(feature = "tune")]
        pub fn set_tunable(name: &str, value: &str) -> Option<Result<(), String>> {
            let index = TUNABLES.iter().position(|t| t.uci_name().eq_ignore_ascii_case(name))?;
            let t = &TUNABLES[index];
            let value = value.trim();
            let Ok(n) = value.parse::<i64>() else {
                return Some(Err(format!("option '{}' needs an integer, got '{value}'", t.uci_name())));
            };
            if n < t.uci_min() || n > t.uci_max() {
                return Some(Err(format!(
                    "option '{}' must be in {}..={}, got {n}",
                    t.uci_name(),
                    t.uci_min(),
                    t.uci_max()
                )));
            }
            tune_values::VALUES[index].store(n, std::sync::atomic::Ordering::Relaxed);
            Some(Ok(()))
        }
    };
}
pub(crate) use tunables;

/// `rookery tune-params`.
#[derive(clap::Args, Debug)]
pub struct TuneParamsArgs {
    /// Print the Markdown table of docs/tuning.md instead of OpenBench's lines.
    #[arg(long)]
    pub markdown: bool,
}

/// Prints the tunable parameters: OpenBench's SPSA input (or the docs' table). A build
/// without the feature `tune` has no such UCI options, which it says on stderr.
pub fn run_cli(args: &TuneParamsArgs) -> Result<(), String> {
    let tunables = crate::search::params::TUNABLES;
    if args.markdown {
        print!("{}", markdown_table(tunables));
    } else {
        print!("{}", openbench_table(tunables));
    }
    if !cfg!(feature = "tune") {
        eprintln!(
            "note: this build has no tuning options; build with `--features tune` to tune \
             (docs/tuning.md)"
        );
    }
    Ok(())
}

/// OpenBench's SPSA input, one parameter a line.
pub fn openbench_table(tunables: &[Tunable]) -> String {
    tunables.iter().map(|t| t.openbench_line() + "\n").collect()
}

/// The parameter table of `docs/tuning.md`.
pub fn markdown_table(tunables: &[Tunable]) -> String {
    let mut out = String::from(
        "| UCI option | Default | Min | Max | c_end | r_end |\n|---|---|---|---|---|---|\n",
    );
    for t in tunables {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} |\n",
            t.uci_name(),
            t.uci_default(),
            t.uci_min(),
            t.uci_max(),
            t.uci_c_end(),
            t.r_end
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::params::TUNABLES;

    #[test]
    fn declarations_are_unique_and_usable_by_spsa() {
        assert!(TUNABLES.len() >= 40, "only {} tunables", TUNABLES.len());
        for (i, t) in TUNABLES.iter().enumerate() {
            assert!(
                TUNABLES[i + 1..]
                    .iter()
                    .all(|u| !u.uci_name().eq_ignore_ascii_case(&t.uci_name())),
                "{} is declared twice",
                t.name
            );
            assert!(t.min < t.max, "{}: empty range", t.name);
            assert!(
                t.c_end > 0.0 && t.c_end <= t.max - t.min,
                "{}: c_end",
                t.name
            );
            assert!(t.r_end > 0.0 && t.r_end < 1.0, "{}: r_end", t.name);
            assert_eq!(
                t.to_uci(t.default) as f64 / t.scale(),
                t.default,
                "{}: the default is not a whole UCI value",
                t.name
            );
        }
    }

    #[test]
    fn openbench_lines_have_seven_fields_and_floats_are_hundredths() {
        let table = openbench_table(TUNABLES);
        assert_eq!(table.lines().count(), TUNABLES.len());
        for line in table.lines() {
            let fields: Vec<&str> = line.split(", ").collect();
            assert_eq!(fields.len(), 7, "{line}");
            assert_eq!(fields[1], "int", "{line}");
            for number in &fields[2..] {
                assert!(number.parse::<f64>().is_ok(), "{line}");
            }
        }
        let lmr_base = table
            .lines()
            .find(|l| l.starts_with("LMR_BASE_x100, "))
            .expect("LMR_BASE is a float tunable");
        assert_eq!(lmr_base, "LMR_BASE_x100, int, 175, 50, 300, 10, 0.002");
        assert!(table.contains("\nRFP_MARGIN, int, 75, "), "{table}");
    }

    #[test]
    #[cfg(not(feature = "tune"))]
    fn default_build_reads_the_declared_defaults() {
        use crate::search::params::{LMR_BASE, RFP_MARGIN};
        const MARGIN: i32 = RFP_MARGIN();
        assert_eq!(MARGIN, 75);
        assert_eq!(LMR_BASE(), 1.75);
    }

    #[test]
    #[cfg(feature = "tune")]
    fn set_tunable_changes_the_value_and_rejects_bad_values() {
        use crate::search::params::{set_tunable, LMR_DIVISOR, QS_DELTA};
        assert_eq!(QS_DELTA(), 200);
        assert_eq!(set_tunable("qs_delta", "250"), Some(Ok(())));
        assert_eq!(QS_DELTA(), 250);
        let out_of_range = set_tunable("QS_DELTA", "100000").expect("a tunable");
        assert!(out_of_range.unwrap_err().contains("must be in"));
        assert!(set_tunable("QS_DELTA", "2.5").expect("a tunable").is_err());
        assert_eq!(QS_DELTA(), 250);
        assert_eq!(set_tunable("QS_DELTA", "200"), Some(Ok(())));

        assert_eq!(set_tunable("LMR_DIVISOR_x100", "300"), Some(Ok(())));
        assert_eq!(LMR_DIVISOR(), 3.0);
        assert_eq!(set_tunable("LMR_DIVISOR_x100", "225"), Some(Ok(())));
        assert_eq!(set_tunable("LMR_DIVISOR", "3"), None);
        assert_eq!(set_tunable("Hash", "16"), None);
    }
}
