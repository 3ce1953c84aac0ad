//! Helpers of the UCI session tests (`uci_session.rs`, `uci_games.rs`): reading `info`
//! lines, checking `bestmove` lines and writing `position` commands.

#![allow(dead_code)] // each test binary uses a different subset

use std::collections::HashMap;

use cozy_chess::Board;
use rookery::chess::STARTPOS_FEN;

use crate::common::{bestmove_of, resolve_move, Engine};

/// The fields of an `info ... pv ...` line.
#[derive(Debug)]
pub struct Info {
    pub fields: HashMap<String, String>,
    pub score: String,
    pub bound: bool,
    pub pv: Vec<String>,
}

pub fn parse_info(line: &str) -> Option<Info> {
    let mut words = line.split_whitespace().peekable();
    if words.next() != Some("info") || line.starts_with("info string") {
        return None;
    }
    let mut fields = HashMap::new();
    let mut score = String::new();
    let mut bound = false;
    let mut pv = Vec::new();
    while let Some(w) = words.next() {
        match w {
            "score" => {
                let kind = words.next()?;
                let value = words.next()?;
                score = format!("{kind} {value}");
            }
            "lowerbound" | "upperbound" => bound = true,
            "wdl" => {
                let w: Vec<_> = (0..3).filter_map(|_| words.next()).collect();
                fields.insert("wdl".into(), w.join(" "));
            }
            "pv" => {
                pv = words.by_ref().map(str::to_string).collect();
            }
            key => {
                fields.insert(key.to_string(), words.next()?.to_string());
            }
        }
    }
    Some(Info {
        fields,
        score,
        bound,
        pv,
    })
}

pub fn infos(lines: &[String]) -> Vec<Info> {
    lines.iter().filter_map(|l| parse_info(l)).collect()
}

/// Asserts the bestmove is legal in `board` (strict notation) and returns it.
pub fn assert_legal(board: &Board, best_line: &str, chess960: bool) -> cozy_chess::Move {
    let text = bestmove_of(best_line);
    let mv = resolve_move(board, text, chess960).unwrap_or_else(|e| panic!("{best_line}: {e}"));
    if let Some(ponder) = best_line.split_whitespace().nth(3) {
        let mut after = board.clone();
        after.play(mv);
        resolve_move(&after, ponder, chess960)
            .unwrap_or_else(|e| panic!("ponder move of '{best_line}': {e}"));
    }
    mv
}

pub fn position_cmd(fen: &str, moves: &[&str]) -> String {
    let base = if fen == STARTPOS_FEN {
        "position startpos".to_string()
    } else {
        format!("position fen {fen}")
    };
    if moves.is_empty() {
        base
    } else {
        format!("{base} moves {}", moves.join(" "))
    }
}

/// The FEN printed by `d`.
pub fn displayed_fen(e: &mut Engine) -> String {
    e.send("d");
    let line = e.expect("Fen: ");
    e.sync();
    line["Fen: ".len()..].to_string()
}
