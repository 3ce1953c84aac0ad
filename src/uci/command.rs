//! Parsing of UCI input lines into commands. Never panics: anything unexpected becomes
//! an error message for an `info string`.

use crate::search::SearchLimits;

#[derive(Debug, Clone, PartialEq)]
pub enum PositionBase {
    StartPos,
    Fen(String),
}

#[derive(Debug, Clone)]
pub enum Command {
    Uci,
    IsReady,
    UciNewGame,
    SetOption {
        name: String,
        value: Option<String>,
    },
    Position {
        base: PositionBase,
        moves: Vec<String>,
    },
    /// `go`; move texts of `searchmoves` are resolved against the position later.
    Go {
        limits: SearchLimits,
        searchmoves: Vec<String>,
        perft: Option<u32>,
    },
    Stop,
    PonderHit,
    Quit,
    /// Non-standard: print the board.
    Display,
    /// Non-standard: print the static evaluation.
    Eval,
    /// Non-standard: run the bench.
    Bench {
        depth: Option<i32>,
    },
    /// Non-standard: opening FENs for OpenBench's datagen (`genfens N seed S book B`).
    Genfens(super::genfens::Request),
    /// Empty line: ignored.
    Nothing,
}

fn parse_number<T: std::str::FromStr>(keyword: &str, value: Option<&str>) -> Result<T, String> {
    let text = value.ok_or_else(|| format!("'{keyword}' needs a value"))?;
    // GUIs occasionally send negative clocks when a player is already out of time.
    text.parse::<T>()
        .map_err(|_| format!("bad value '{text}' for '{keyword}'"))
}

/// Clocks may arrive negative; treat them as zero rather than rejecting the command.
fn parse_millis(keyword: &str, value: Option<&str>) -> Result<u64, String> {
    let v: i64 = parse_number(keyword, value)?;
    Ok(v.max(0) as u64)
}

fn parse_go(tokens: &[&str]) -> Result<Command, String> {
    let mut limits = SearchLimits::default();
    let mut searchmoves = Vec::new();
    let mut perft = None;
    let mut i = 0;
    while i < tokens.len() {
        let keyword = tokens[i];
        let value = tokens.get(i + 1).copied();
        let mut takes_value = true;
        match keyword {
            "wtime" => limits.wtime = Some(parse_millis(keyword, value)?),
            "btime" => limits.btime = Some(parse_millis(keyword, value)?),
            "winc" => limits.winc = Some(parse_millis(keyword, value)?),
            "binc" => limits.binc = Some(parse_millis(keyword, value)?),
            "movestogo" => limits.movestogo = Some(parse_millis(keyword, value)?.max(1)),
            "movetime" => limits.movetime = Some(parse_millis(keyword, value)?),
            "depth" => {
                limits.depth = Some(parse_number::<i64>(keyword, value)?.clamp(1, 127) as i32)
            }
            "nodes" => limits.nodes = Some(parse_number::<u64>(keyword, value)?.max(1)),
            "mate" => limits.mate = Some(parse_number::<i64>(keyword, value)?.clamp(1, 60) as i32),
            "perft" => perft = Some(parse_number::<u32>(keyword, value)?.min(10)),
            "infinite" => {
                limits.infinite = true;
                takes_value = false;
            }
            "ponder" => {
                limits.ponder = true;
                takes_value = false;
            }
            "searchmoves" => {
                let mut j = i + 1;
                while j < tokens.len() && looks_like_move(tokens[j]) {
                    searchmoves.push(tokens[j].to_string());
                    j += 1;
                }
                i = j;
                continue;
            }
            other => return Err(format!("unknown go parameter '{other}'")),
        }
        i += if takes_value { 2 } else { 1 };
    }
    Ok(Command::Go {
        limits,
        searchmoves,
        perft,
    })
}

fn looks_like_move(token: &str) -> bool {
    let b = token.as_bytes();
    (4..=5).contains(&b.len())
        && (b'a'..=b'h').contains(&b[0])
        && (b'1'..=b'8').contains(&b[1])
        && (b'a'..=b'h').contains(&b[2])
        && (b'1'..=b'8').contains(&b[3])
}

fn parse_position(tokens: &[&str]) -> Result<Command, String> {
    let moves_at = tokens.iter().position(|&t| t == "moves");
    let (head, moves) = match moves_at {
        Some(i) => (
            &tokens[..i],
            tokens[i + 1..].iter().map(|s| s.to_string()).collect(),
        ),
        None => (tokens, Vec::new()),
    };
    let base = match head.first() {
        Some(&"startpos") if head.len() == 1 => PositionBase::StartPos,
        Some(&"fen") if head.len() > 1 => PositionBase::Fen(head[1..].join(" ")),
        Some(&"fen") => return Err("'position fen' needs a FEN".into()),
        _ => return Err("expected 'position startpos' or 'position fen <fen>'".into()),
    };
    Ok(Command::Position { base, moves })
}

fn parse_setoption(tokens: &[&str]) -> Result<Command, String> {
    if tokens.first() != Some(&"name") {
        return Err("expected 'setoption name <id> [value <x>]'".into());
    }
    let value_at = tokens.iter().position(|&t| t == "value");
    let name_end = value_at.unwrap_or(tokens.len());
    let name = tokens[1..name_end].join(" ");
    if name.is_empty() {
        return Err("setoption without an option name".into());
    }
    let value = value_at.map(|i| tokens[i + 1..].join(" "));
    Ok(Command::SetOption { name, value })
}

impl std::str::FromStr for Command {
    type Err = String;

    fn from_str(line: &str) -> Result<Command, String> {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some((&first, rest)) = tokens.split_first() else {
            return Ok(Command::Nothing);
        };
        Ok(match first {
            "uci" => Command::Uci,
            "isready" => Command::IsReady,
            "ucinewgame" => Command::UciNewGame,
            "setoption" => parse_setoption(rest)?,
            "position" => parse_position(rest)?,
            "go" => parse_go(rest)?,
            "stop" => Command::Stop,
            "ponderhit" => Command::PonderHit,
            "quit" => Command::Quit,
            "d" => Command::Display,
            "eval" => Command::Eval,
            "bench" => Command::Bench {
                depth: match rest.first() {
                    Some(d) => Some(d.parse().map_err(|_| format!("bad bench depth '{d}'"))?),
                    None => None,
                },
            },
            "genfens" => Command::Genfens(super::genfens::parse(rest)?),
            "debug" | "register" => Command::Nothing,
            other => return Err(format!("unknown command '{other}'")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_go_limits() {
        let Ok(Command::Go {
            limits,
            searchmoves,
            ..
        }) = "go wtime 1000 btime -5 winc 10 binc 10 movestogo 20 searchmoves e2e4 d2d4 depth 5"
            .parse()
        else {
            panic!("go did not parse")
        };
        assert_eq!(limits.wtime, Some(1000));
        assert_eq!(limits.btime, Some(0));
        assert_eq!(limits.movestogo, Some(20));
        assert_eq!(limits.depth, Some(5));
        assert_eq!(searchmoves, vec!["e2e4", "d2d4"]);
    }

    #[test]
    fn parses_position_and_options() {
        let Ok(Command::Position { base, moves }) =
            "position fen 8/8/8/8/8/8/8/K6k w - - 0 1 moves a1a2".parse()
        else {
            panic!()
        };
        assert_eq!(
            base,
            PositionBase::Fen("8/8/8/8/8/8/8/K6k w - - 0 1".into())
        );
        assert_eq!(moves, vec!["a1a2"]);
        let Ok(Command::SetOption { name, value }) =
            "setoption name Move Overhead value 100".parse()
        else {
            panic!()
        };
        assert_eq!(
            (name.as_str(), value.as_deref()),
            ("Move Overhead", Some("100"))
        );
    }

    #[test]
    fn parses_genfens_as_openbench_sends_it() {
        let Ok(Command::Genfens(request)) =
            "genfens 16 seed 123456789 book Books/8moves_v3.epd extra words".parse()
        else {
            panic!("genfens did not parse")
        };
        assert_eq!(
            (request.count, request.seed, request.book.as_deref()),
            (16, 123456789, Some("Books/8moves_v3.epd"))
        );
        let Ok(Command::Genfens(request)) = "genfens 4 seed 7 book None".parse() else {
            panic!("genfens without a book did not parse")
        };
        assert_eq!(request.book, None);
    }

    #[test]
    fn rejects_garbage() {
        assert!("go wtime abc".parse::<Command>().is_err());
        assert!("go depth".parse::<Command>().is_err());
        assert!("position".parse::<Command>().is_err());
        assert!("position fen".parse::<Command>().is_err());
        assert!("setoption value 3".parse::<Command>().is_err());
        assert!("xyzzy".parse::<Command>().is_err());
        assert!("genfens".parse::<Command>().is_err());
        assert!("genfens 10 book None".parse::<Command>().is_err());
        assert!("genfens 10 seed x book None".parse::<Command>().is_err());
        assert!(matches!("   ".parse::<Command>(), Ok(Command::Nothing)));
    }
}
