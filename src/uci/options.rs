//! UCI options: their one declaration each (printed on `uci`, documented in the README,
//! giving the engine its starting settings) and validated `setoption` values.

#[derive(Clone, Debug)]
pub enum Kind {
    Spin {
        default: i64,
        min: i64,
        max: i64,
    },
    Check {
        default: bool,
    },
    Button,
    Text {
        default: &'static str,
    },
    /// One of `vars` (matched case-insensitively; the value is the declared spelling).
    Combo {
        default: &'static str,
        vars: &'static [&'static str],
    },
}

/// Which option a declaration is: the engine reaches an option's handler and default
/// through this id (matched exhaustively), never through its UCI name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionId {
    Hash,
    ClearHash,
    Threads,
    MoveOverhead,
    MultiPv,
    Ponder,
    Chess960,
    ShowWdl,
    LimitStrength,
    Elo,
    SkillLevel,
    HumanTiming,
    ShowHumanMoves,
    HumanModelRating,
    HumanTemperature,
    HumanGuard,
    HumanGuardDepth,
    Seed,
    SyzygyPath,
    SyzygyProbeDepth,
    Syzygy50MoveRule,
    SyzygyProbeLimit,
    EvalFile,
    OwnBook,
    BookFile,
    BookDepth,
    BookTemperature,
    SearchMode,
    PolicyFile,
}

/// One UCI option: everything about it is declared here once. The `uci` listing,
/// `setoption` validation, the engine's starting settings ([`Kind`] defaults, read with
/// [`spin_default`] / [`check_default`] / [`text_default`]) and the README's option table
/// (checked by a test against [`readme_table`]) all come from this table.
pub struct OptionDecl {
    pub id: OptionId,
    /// The UCI name (matched case-insensitively by `setoption`).
    pub name: &'static str,
    pub kind: Kind,
    /// What the option changes (the README table's "Meaning" column).
    pub help: &'static str,
}

use crate::search::params::{
    DEFAULT_HASH_MB, DEFAULT_MOVE_OVERHEAD_MS, DEFAULT_MULTIPV, DEFAULT_SYZYGY_50_MOVE_RULE,
    DEFAULT_SYZYGY_PROBE_DEPTH, DEFAULT_SYZYGY_PROBE_LIMIT,
};

/// `BookTemperature` is a spin (UCI has no fractional type) counted in hundredths.
pub const BOOK_TEMPERATURE_UNITS_PER_ONE: f64 = 100.0;

pub const OPTIONS: &[OptionDecl] = &[
    OptionDecl {
        id: OptionId::Hash,
        name: "Hash",
        kind: Kind::Spin {
            default: DEFAULT_HASH_MB as i64,
            min: 1,
            max: 16384,
        },
        help: "Transposition table size in MB.",
    },
    OptionDecl {
        id: OptionId::ClearHash,
        name: "Clear Hash",
        kind: Kind::Button,
        help: "Empties the table and the move-ordering history.",
    },
    OptionDecl {
        id: OptionId::Threads,
        name: "Threads",
        kind: Kind::Spin {
            default: 1,
            min: 1,
            max: 256,
        },
        help: "Search threads (Lazy SMP, shared table).",
    },
    OptionDecl {
        id: OptionId::MoveOverhead,
        name: "Move Overhead",
        kind: Kind::Spin {
            default: DEFAULT_MOVE_OVERHEAD_MS as i64,
            min: 0,
            max: 5000,
        },
        help: "Milliseconds reserved per move for GUI/network lag.",
    },
    OptionDecl {
        id: OptionId::MultiPv,
        name: "MultiPV",
        kind: Kind::Spin {
            default: DEFAULT_MULTIPV as i64,
            min: 1,
            max: 256,
        },
        help: "Number of principal variations reported.",
    },
    OptionDecl {
        id: OptionId::Ponder,
        name: "Ponder",
        kind: Kind::Check { default: false },
        help: "Declared for GUIs; pondering itself is driven by `go ponder`/`ponderhit`. \
               After `ponderhit` the clock counts from `ponderhit`, and time already spent \
               pondering counts toward the move's budget, so a long ponder means an instant reply.",
    },
    OptionDecl {
        id: OptionId::Chess960,
        name: "UCI_Chess960",
        kind: Kind::Check { default: false },
        help: "Chess960 castling notation (king takes rook) in output. Input accepts both \
               notations always.",
    },
    OptionDecl {
        id: OptionId::ShowWdl,
        name: "UCI_ShowWDL",
        kind: Kind::Check { default: false },
        help: "Adds `wdl W D L` to `info` lines: per mille chances from the model fitted to \
               Rookery's self-play games (score and material; docs/net.md). `cp` is scaled so \
               that 100 means a 50 % chance to win at typical material.",
    },
    OptionDecl {
        id: OptionId::LimitStrength,
        name: "UCI_LimitStrength",
        kind: Kind::Check { default: false },
        help: "Play at the rating `UCI_Elo` instead of full strength. Up to 1900 the move is \
               drawn from the human model for a player of that strength (the prior net and \
               Rookery's search of every move at depths 1, 3 and 5, combined; docs/human.md), \
               so the level errs as people do; from ~1650 a deeper search (depth 8-10) of the \
               moves it could draw also vetoes those that give away more than the level \
               allows (at 1750 the blunders strong players almost never make, at the top \
               anything clearly worse than the best of them). Above it, a smaller search \
               choosing among near-best moves.",
    },
    OptionDecl {
        id: OptionId::Elo,
        name: "UCI_Elo",
        kind: Kind::Spin {
            default: 1500,
            min: crate::human::levels::HUMAN_MIN_ELO as i64,
            max: crate::search::strength::MAX_ELO as i64,
        },
        help: "The rating played at with `UCI_LimitStrength`, on Stockfish 15.1's `UCI_Elo` \
               scale at 10+0.1 (calibration in docs/strength.md). Values from 2600 up play at \
               full strength (2658 ± 50 on this scale with the embedded net, \
               docs/strength.md) and say so.",
    },
    OptionDecl {
        id: OptionId::SkillLevel,
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
        id: OptionId::HumanTiming,
        name: "Human Timing",
        kind: Kind::Check { default: true },
        help: "Under a strength limit, on a clock: think like a person (quick when the move is \
               obvious, longer when it is hard, never more than the engine's normal time) \
               instead of answering at once.",
    },
    OptionDecl {
        id: OptionId::ShowHumanMoves,
        name: "Show Human Moves",
        kind: Kind::Check { default: false },
        help: "Before each move, `info string human R: <move> <p>% …`: the five moves a \
               person of level R is most likely to play here. At a human level (`UCI_Elo` \
               up to 1900 under `UCI_LimitStrength`) R is the level and the moves and \
               probabilities are the human model's, the ones the level draws from \
               (docs/human.md); otherwise R is 2800 (the prior's top rating bucket) and the \
               line is the embedded human prior's alone (microseconds, no search). \
               Nothing for a finished game.",
    },
    OptionDecl {
        id: OptionId::HumanModelRating,
        name: "Human Model Rating",
        kind: Kind::Spin {
            default: 0,
            min: 0,
            max: 3000,
        },
        help: "For calibration (`scripts/calibrate.sh`): the rating a human level asks the \
               human model about, instead of the level's own (0).",
    },
    OptionDecl {
        id: OptionId::HumanTemperature,
        name: "Human Temperature",
        kind: Kind::Spin {
            default: 0,
            min: 0,
            max: 300,
        },
        help: "For calibration: a human level's temperature in hundredths (100 draws as often \
               as the players do, lower favours their likelier moves), instead of the \
               level's own (0).",
    },
    OptionDecl {
        id: OptionId::HumanGuard,
        name: "Human Guard",
        kind: Kind::Spin {
            default: 0,
            min: 0,
            max: 100,
        },
        help: "For calibration: the largest share of the expected result, in hundredths, that \
               a human level's move may give away by its deeper search (100: no guard), \
               instead of the level's own (0).",
    },
    OptionDecl {
        id: OptionId::HumanGuardDepth,
        name: "Human Guard Depth",
        kind: Kind::Spin {
            default: 0,
            min: 0,
            max: 20,
        },
        help: "For calibration: the depth of a guarded human level's search of its \
               candidate moves, instead of the level's own (0).",
    },
    OptionDecl {
        id: OptionId::Seed,
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
        id: OptionId::SyzygyPath,
        name: "SyzygyPath",
        kind: Kind::Text { default: "<empty>" },
        help: "Folders of Syzygy tables (`.rtbw`/`.rtbz`), separated by `:` (`;` on Windows); \
               `<empty>` unloads them. The search probes win/draw/loss after captures and pawn \
               moves and picks root moves by distance to zeroing. A folder that cannot be \
               read or holds no tables gets an `info string error` and the previous tables stay.",
    },
    OptionDecl {
        id: OptionId::SyzygyProbeDepth,
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
        id: OptionId::Syzygy50MoveRule,
        name: "Syzygy50MoveRule",
        kind: Kind::Check {
            default: DEFAULT_SYZYGY_50_MOVE_RULE,
        },
        help: "Count tablebase wins that the fifty-move rule spoils as draws (turn off for \
               correspondence rules without it).",
    },
    OptionDecl {
        id: OptionId::SyzygyProbeLimit,
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
        id: OptionId::EvalFile,
        name: "EvalFile",
        kind: Kind::Text {
            default: "<default>",
        },
        help: "A `.safetensors` network to load instead of the embedded one (`<default>` \
               restores it). A missing or malformed file is rejected with an \
               `info string error` and the previous net stays.",
    },
    OptionDecl {
        id: OptionId::OwnBook,
        name: "OwnBook",
        kind: Kind::Check { default: true },
        help: "Play from the opening book when it has the position.",
    },
    OptionDecl {
        id: OptionId::BookFile,
        name: "BookFile",
        kind: Kind::Text { default: "<empty>" },
        help: "A Polyglot `.bin` book to use instead of the embedded one (`<empty>` = embedded). \
               A missing, truncated or unsorted file is rejected with an `info string error` and \
               the previous book stays.",
    },
    OptionDecl {
        id: OptionId::BookDepth,
        name: "BookDepth",
        kind: Kind::Spin {
            default: 20,
            min: 0,
            max: 400,
        },
        help: "Last game ply (counted from the FEN's move number) at which the book is consulted.",
    },
    OptionDecl {
        id: OptionId::BookTemperature,
        name: "BookTemperature",
        kind: Kind::Spin {
            default: 75,
            min: 0,
            max: 1000,
        },
        help: "Sampling temperature T over book weights in hundredths (75 = 0.75): \
               probability ∝ weight^(1/T); 0 always plays the heaviest move.",
    },
    OptionDecl {
        id: OptionId::SearchMode,
        name: "SearchMode",
        kind: Kind::Combo {
            default: "alphabeta",
            vars: &["alphabeta", "mcts"],
        },
        help: "`alphabeta`: the principal variation search. `mcts`: Monte-Carlo tree search \
               (PUCT, a learnt policy prior, the same value net; docs/mcts.md), whose tree takes \
               the `Hash` memory instead of the table and is kept between moves; `go nodes` \
               counts playouts and `depth` is the mean playout length.",
    },
    OptionDecl {
        id: OptionId::PolicyFile,
        name: "PolicyFile",
        kind: Kind::Text {
            default: "<default>",
        },
        help: "MCTS prior: `<default>` the embedded self-play policy net (policy-sp4-mz1, \
               docs/policy.md), `<hand>` the hand-written prior, or a policy net's file \
               (`.safetensors` from `rookery train-policy`). Applies in `SearchMode mcts` and \
               clears the tree. A missing or malformed file is rejected with an `info string \
               error` and the previous prior stays.",
    },
];

/// The declaration of `id` (each id is declared exactly once; a unit test checks it).
pub fn decl(id: OptionId) -> &'static OptionDecl {
    OPTIONS
        .iter()
        .find(|o| o.id == id)
        .unwrap_or_else(|| panic!("option {id:?} is not declared"))
}

/// The declared default of a spin option.
pub fn spin_default(id: OptionId) -> i64 {
    match decl(id).kind {
        Kind::Spin { default, .. } => default,
        _ => panic!("option {id:?} is not a spin"),
    }
}

/// The declared default of a check option.
pub fn check_default(id: OptionId) -> bool {
    match decl(id).kind {
        Kind::Check { default } => default,
        _ => panic!("option {id:?} is not a check"),
    }
}

/// The declared default of a string or combo option.
pub fn text_default(id: OptionId) -> &'static str {
    match decl(id).kind {
        Kind::Text { default } | Kind::Combo { default, .. } => default,
        _ => panic!("option {id:?} is not a string"),
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
            Kind::Combo { default, vars } => {
                (format!("combo {}", vars.join(" \\| ")), default.to_string())
            }
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
            Kind::Combo { default, vars } => {
                let vars: String = vars.iter().map(|v| format!(" var {v}")).collect();
                format!(
                    "option name {} type combo default {default}{vars}",
                    self.name
                )
            }
        }
    }
}

/// A parsed option value; [`parse`] gives each [`Kind`] its own variant.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    Bool(bool),
    Text(String),
    Pressed,
}

impl Value {
    /// The number of a spin option's value.
    pub fn int(&self) -> i64 {
        match self {
            Value::Int(n) => *n,
            other => unreachable!("parse gives spin options an Int, not {other:?}"),
        }
    }

    /// The state of a check option's value.
    pub fn bool(&self) -> bool {
        match self {
            Value::Bool(b) => *b,
            other => unreachable!("parse gives check options a Bool, not {other:?}"),
        }
    }

    /// The text of a string option's value.
    pub fn text(&self) -> &str {
        match self {
            Value::Text(t) => t,
            other => unreachable!("parse gives string options a Text, not {other:?}"),
        }
    }
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
        (Kind::Combo { vars, .. }, Some(v)) => {
            match vars.iter().find(|x| x.eq_ignore_ascii_case(v)) {
                Some(var) => Value::Text(var.to_string()),
                None => {
                    return Err(format!(
                        "option '{}' must be one of {}, got '{v}'",
                        decl.name,
                        vars.join(", ")
                    ))
                }
            }
        }
        (Kind::Text { .. }, None) => Value::Text(String::new()),
        (_, None) => return Err(format!("option '{}' needs a value", decl.name)),
    };
    Ok((decl, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_id_and_name_is_declared_once() {
        for (i, a) in OPTIONS.iter().enumerate() {
            for b in &OPTIONS[i + 1..] {
                assert_ne!(a.id, b.id, "{:?} is declared twice", a.id);
                assert!(
                    !a.name.eq_ignore_ascii_case(b.name),
                    "'{}' is declared twice",
                    a.name
                );
            }
            assert_eq!(decl(a.id).name, a.name);
        }
    }

    #[test]
    fn parse_gives_each_kind_its_value_and_rejects_bad_ones() {
        let (decl, value) = parse("booktemperature", Some("150")).expect("a spin value");
        assert_eq!(
            (decl.id, value),
            (OptionId::BookTemperature, Value::Int(150))
        );
        assert!(parse("BookTemperature", Some("0.75")).is_err());
        assert!(parse("BookTemperature", Some("1001")).is_err());
        let (decl, value) = parse("Syzygy50MoveRule", Some("FALSE")).expect("a check value");
        assert_eq!(
            (decl.id, value),
            (OptionId::Syzygy50MoveRule, Value::Bool(false))
        );
        assert!(parse("Syzygy50MoveRule", Some("maybe")).is_err());
        let (decl, value) = parse("searchmode", Some("MCTS")).expect("a combo value");
        assert_eq!(
            (decl.id, value),
            (OptionId::SearchMode, Value::Text("mcts".into()))
        );
        assert!(parse("SearchMode", Some("minimax")).is_err());
        assert!(parse("SearchMode", None).is_err());
        assert!(parse("No Such Option", Some("1")).is_err());
    }
}
