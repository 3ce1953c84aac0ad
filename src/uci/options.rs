//! UCI options: their one declaration each (printed on `uci`, documented in the README,
//! giving the engine its starting settings) and validated `setoption` values.

#[derive(Clone, Debug)]
pub enum Kind {
    Spin { default: i64, min: i64, max: i64 },
    Check { default: bool },
    Button,
    Text { default: &'static str },
}

/// One UCI option: everything about it is declared here once. The `uci` listing,
/// `setoption` validation, the engine's starting settings ([`Kind`] defaults, read with
/// [`spin_default`] / [`check_default`] / [`text_default`]) and the README's option table
/// (checked by a test against [`readme_table`]) all come from this table.
pub struct OptionDecl {
    pub name: &'static str,
    pub kind: Kind,
    /// What the option changes (the README table's "Meaning" column).
    pub help: &'static str,
}

use crate::search::params::{
    DEFAULT_HASH_MB, DEFAULT_MOVE_OVERHEAD_MS, DEFAULT_MULTIPV, DEFAULT_SYZYGY_PROBE_DEPTH,
    DEFAULT_SYZYGY_PROBE_LIMIT,
};

pub const OPTIONS: &[OptionDecl] = &[
    OptionDecl {
        name: "Hash",
        kind: Kind::Spin {
            default: DEFAULT_HASH_MB as i64,
            min: 1,
            max: 16384,
        },
        help: "Transposition table size in MB.",
    },
    OptionDecl {
        name: "Clear Hash",
        kind: Kind::Button,
        help: "Empties the table and the move-ordering history.",
    },
    OptionDecl {
        name: "Threads",
        kind: Kind::Spin {
            default: 1,
            min: 1,
            max: 256,
        },
        help: "Search threads (Lazy SMP, shared table).",
    },
    OptionDecl {
        name: "Move Overhead",
        kind: Kind::Spin {
            default: DEFAULT_MOVE_OVERHEAD_MS as i64,
            min: 0,
            max: 5000,
        },
        help: "Milliseconds reserved per move for GUI/network lag.",
    },
    OptionDecl {
        name: "MultiPV",
        kind: Kind::Spin {
            default: DEFAULT_MULTIPV as i64,
            min: 1,
            max: 256,
        },
        help: "Number of principal variations reported.",
    },
    OptionDecl {
        name: "Ponder",
        kind: Kind::Check { default: false },
        help: "Declared for GUIs; pondering itself is driven by `go ponder`/`ponderhit`. \
               After `ponderhit` the clock counts from `ponderhit`, and time already spent \
               pondering counts toward the move's budget, so a long ponder means an instant reply.",
    },
    OptionDecl {
        name: "UCI_Chess960",
        kind: Kind::Check { default: false },
        help: "Chess960 castling notation (king takes rook) in output. Input accepts both \
               notations always.",
    },
    OptionDecl {
        name: "UCI_ShowWDL",
        kind: Kind::Check { default: false },
        help: "Adds `wdl W D L` to `info` lines: per mille chances from the model fitted to \
               Rookery's self-play games (score and material; docs/net.md). `cp` is scaled so \
               that 100 means a 50 % chance to win at typical material.",
    },
    OptionDecl {
        name: "UCI_LimitStrength",
        kind: Kind::Check { default: false },
        help: "Play at the rating `UCI_Elo` instead of full strength: a smaller search, a \
               choice among near-best moves that widens as the rating falls, more errors in \
               hard positions and time trouble (never a dropped piece at 2000 and above).",
    },
    OptionDecl {
        name: "UCI_Elo",
        kind: Kind::Spin {
            default: 1500,
            min: crate::search::strength::MIN_ELO as i64,
            max: crate::search::strength::MAX_ELO as i64,
        },
        help: "The rating played at with `UCI_LimitStrength`, on Stockfish 15.1's `UCI_Elo` \
               scale at 10+0.1 (calibration in docs/strength.md). Values from 2100 up play at \
               full strength (2580 ± 51 measured on 2026-11-29 with the embedded \
               rookery-gen13; 2521 ± 50 with rookery-gen11-hmb8, 2487 ± 50 with \
               rookery-gen9-sq, 2390 ± 52 with rookery-gen4) and say so.",
    },
    OptionDecl {
        name: "Skill Level",
        kind: Kind::Spin {
            default: 20,
            min: 0,
            max: 20,
        },
        help: "Another way to set the level: 0 = the lowest `UCI_Elo`, 20 = full strength, \
               evenly between. Ignored while `UCI_LimitStrength` is on.",
    },
    OptionDecl {
        name: "Human Timing",
        kind: Kind::Check { default: true },
        help: "Under a strength limit, on a clock: think like a person (quick when the move is \
               obvious, longer when it is hard, never more than the engine's normal time) \
               instead of answering at once.",
    },
    OptionDecl {
        name: "Seed",
        kind: Kind::Spin {
            default: 0,
            min: 0,
            max: 2_147_483_647,
        },
        help: "Seed for the strength limit's move choices and thinking times (0 = a new seed \
               each game). The same seed, position and level give the same move.",
    },
    OptionDecl {
        name: "SyzygyPath",
        kind: Kind::Text { default: "<empty>" },
        help: "Folders of Syzygy tables (`.rtbw`/`.rtbz`), separated by `:` (`;` on Windows); \
               `<empty>` unloads them. The search probes win/draw/loss after captures and pawn \
               moves and picks root moves by distance to zeroing. A folder that cannot be \
               read or holds no tables gets an `info string error` and the previous tables stay.",
    },
    OptionDecl {
        name: "SyzygyProbeDepth",
        kind: Kind::Spin {
            default: DEFAULT_SYZYGY_PROBE_DEPTH as i64,
            min: 1,
            max: 100,
        },
        help: "Least remaining depth at which positions with as many pieces as the largest \
               table are probed (fewer pieces: always). Raise it if probes are slow (tables on \
               a slow disk).",
    },
    OptionDecl {
        name: "Syzygy50MoveRule",
        kind: Kind::Check { default: true },
        help: "Count tablebase wins that the fifty-move rule spoils as draws (turn off for \
               correspondence rules without it).",
    },
    OptionDecl {
        name: "SyzygyProbeLimit",
        kind: Kind::Spin {
            default: DEFAULT_SYZYGY_PROBE_LIMIT as i64,
            min: 0,
            max: 7,
        },
        help: "Most pieces (kings included) in a position the tables are asked about; 0 turns \
               probing off.",
    },
    OptionDecl {
        name: "EvalFile",
        kind: Kind::Text {
            default: "<default>",
        },
        help: "A `.safetensors` network to load instead of the embedded one (`<default>` \
               restores it). A missing or malformed file is rejected with an \
               `info string error` and the previous net stays.",
    },
    OptionDecl {
        name: "OwnBook",
        kind: Kind::Check { default: true },
        help: "Play from the opening book when it has the position.",
    },
    OptionDecl {
        name: "BookFile",
        kind: Kind::Text { default: "<empty>" },
        help: "A Polyglot `.bin` book to use instead of the embedded one (`<empty>` = embedded). \
               A missing, truncated or unsorted file is rejected with an `info string error` and \
               the previous book stays.",
    },
    OptionDecl {
        name: "BookDepth",
        kind: Kind::Spin {
            default: 20,
            min: 0,
            max: 400,
        },
        help: "Last game ply (counted from the FEN's move number) at which the book is consulted.",
    },
    OptionDecl {
        name: "BookTemperature",
        kind: Kind::Text { default: "0.75" },
        help: "Sampling temperature over book weights: probability ∝ weight^(1/T); 0 always \
               plays the heaviest move.",
    },
];

fn decl(name: &str) -> &'static OptionDecl {
    OPTIONS
        .iter()
        .find(|o| o.name == name)
        .unwrap_or_else(|| panic!("option '{name}' is not declared"))
}

/// The declared default of a spin option.
pub fn spin_default(name: &str) -> i64 {
    match decl(name).kind {
        Kind::Spin { default, .. } => default,
        _ => panic!("option '{name}' is not a spin"),
    }
}

/// The declared default of a check option.
pub fn check_default(name: &str) -> bool {
    match decl(name).kind {
        Kind::Check { default } => default,
        _ => panic!("option '{name}' is not a check"),
    }
}

/// The declared default of a string option.
pub fn text_default(name: &str) -> &'static str {
    match decl(name).kind {
        Kind::Text { default } => default,
        _ => panic!("option '{name}' is not a string"),
    }
}

/// The README's option table (Markdown), generated from [`OPTIONS`].
pub fn readme_table() -> String {
    let mut out = String::from("| Option | Type | Default | Meaning |\n|---|---|---|---|\n");
    for o in OPTIONS {
        let (kind, default) = match &o.kind {
            Kind::Spin { default, min, max } => (format!("spin {min}–{max}"), default.to_string()),
            Kind::Check { default } => ("check".to_string(), default.to_string()),
            Kind::Button => ("button".to_string(), String::new()),
            Kind::Text { default } if default.starts_with('<') => {
                ("string".to_string(), format!("`{default}`"))
            }
            Kind::Text { default } => ("string".to_string(), default.to_string()),
        };
        let default = if default.is_empty() {
            String::new()
        } else {
            format!(" {default}")
        };
        out.push_str(&format!(
            "| `{}` | {kind} |{default} | {} |\n",
            o.name, o.help
        ));
    }
    out
}

impl OptionDecl {
    pub fn uci_line(&self) -> String {
        match &self.kind {
            Kind::Spin { default, min, max } => {
                format!(
                    "option name {} type spin default {default} min {min} max {max}",
                    self.name
                )
            }
            Kind::Check { default } => {
                format!("option name {} type check default {default}", self.name)
            }
            Kind::Button => format!("option name {} type button", self.name),
            Kind::Text { default } => {
                format!("option name {} type string default {default}", self.name)
            }
        }
    }
}

/// A parsed option value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    Bool(bool),
    Text(String),
    Pressed,
}

/// Finds the declaration (names are case-insensitive in UCI) and validates the value.
pub fn parse(name: &str, value: Option<&str>) -> Result<(&'static OptionDecl, Value), String> {
    let decl = OPTIONS
        .iter()
        .find(|o| o.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| format!("unknown option '{name}'"))?;
    let value = match (&decl.kind, value.map(str::trim)) {
        (Kind::Button, _) => Value::Pressed,
        (Kind::Spin { min, max, .. }, Some(v)) => {
            let n: i64 = v
                .parse()
                .map_err(|_| format!("option '{}' needs an integer, got '{v}'", decl.name))?;
            if n < *min || n > *max {
                return Err(format!(
                    "option '{}' must be in {min}..={max}, got {n}",
                    decl.name
                ));
            }
            Value::Int(n)
        }
        (Kind::Check { .. }, Some(v)) => match v.to_ascii_lowercase().as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => {
                return Err(format!(
                    "option '{}' needs true or false, got '{v}'",
                    decl.name
                ))
            }
        },
        (Kind::Text { .. }, Some(v)) => Value::Text(v.to_string()),
        (Kind::Text { .. }, None) => Value::Text(String::new()),
        (_, None) => return Err(format!("option '{}' needs a value", decl.name)),
    };
    Ok((decl, value))
}
