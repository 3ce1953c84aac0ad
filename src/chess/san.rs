//! Standard Algebraic Notation (SAN) parsing on top of cozy-chess, which has none.
//!
//! A SAN token is matched against the legal moves of the position: piece letter,
//! optional origin file and/or rank, optional capture mark, destination square,
//! optional promotion (`=Q`, or `Q` directly after the rank), and any `+`, `#`, `!`,
//! `?` suffixes (ignored). Castling is `O-O` / `O-O-O` (also with zeros).

use crate::chess::{is_castle, legal_moves};
use cozy_chess::{Board, File, Move, Piece, Rank, Square};

fn piece_from_letter(c: char) -> Option<Piece> {
    match c {
        'N' => Some(Piece::Knight),
        'B' => Some(Piece::Bishop),
        'R' => Some(Piece::Rook),
        'Q' => Some(Piece::Queen),
        'K' => Some(Piece::King),
        _ => None,
    }
}

fn file_of(c: char) -> Option<File> {
    ('a'..='h')
        .contains(&c)
        .then(|| File::index(c as usize - 'a' as usize))
}

fn rank_of(c: char) -> Option<Rank> {
    ('1'..='8')
        .contains(&c)
        .then(|| Rank::index(c as usize - '1' as usize))
}

/// Parses one SAN move in `board` and returns the unique legal move it denotes.
pub fn parse_san(board: &Board, san: &str) -> Result<Move, String> {
    let text = san.trim().trim_end_matches(['+', '#', '!', '?']);
    let legal = legal_moves(board);
    let bad = |why: &str| format!("SAN '{san}': {why} in {board}");

    let castle_side = match text {
        "O-O" | "0-0" => Some(true),
        "O-O-O" | "0-0-0" => Some(false),
        _ => None,
    };
    if let Some(short) = castle_side {
        return legal
            .into_iter()
            .find(|&mv| is_castle(board, mv) && ((mv.to.file() > mv.from.file()) == short))
            .ok_or_else(|| bad("castling is not legal"));
    }

    let chars: Vec<char> = text.chars().collect();
    if chars.len() < 2 {
        return Err(bad("too short"));
    }
    // Promotion: "e8=Q" or "e8Q".
    let (body, promotion) = match chars.iter().position(|&c| c == '=') {
        Some(i) => {
            if i + 2 != chars.len() {
                return Err(bad("bad promotion"));
            }
            let p = piece_from_letter(chars[i + 1])
                .filter(|&p| p != Piece::King)
                .ok_or_else(|| bad("bad promotion piece"))?;
            (&chars[..i], Some(p))
        }
        None => {
            let n = chars.len();
            match piece_from_letter(chars[n - 1]) {
                Some(p) if n >= 3 && chars[n - 2].is_ascii_digit() && p != Piece::King => {
                    (&chars[..n - 1], Some(p))
                }
                _ => (&chars[..], None),
            }
        }
    };
    let (piece, body) = match body.first().copied().and_then(piece_from_letter) {
        Some(p) => (p, &body[1..]),
        None => (Piece::Pawn, body),
    };
    if body.len() < 2 {
        return Err(bad("no destination square"));
    }
    let n = body.len();
    let to = match (file_of(body[n - 2]), rank_of(body[n - 1])) {
        (Some(f), Some(r)) => Square::new(f, r),
        _ => return Err(bad("bad destination square")),
    };
    let mut from_file = None;
    let mut from_rank = None;
    let mut capture = false;
    for &c in &body[..n - 2] {
        if c == 'x' || c == ':' {
            capture = true;
        } else if let Some(f) = file_of(c) {
            from_file = Some(f);
        } else if let Some(r) = rank_of(c) {
            from_rank = Some(r);
        } else {
            return Err(bad("unexpected character"));
        }
    }
    if piece == Piece::Pawn && from_file.is_none() {
        if capture {
            return Err(bad("pawn capture without origin file"));
        }
        from_file = Some(to.file());
    }
    let mut found = legal.into_iter().filter(|&mv| {
        mv.to == to
            && mv.promotion == promotion
            && board.piece_on(mv.from) == Some(piece)
            && !is_castle(board, mv)
            && from_file.is_none_or(|f| mv.from.file() == f)
            && from_rank.is_none_or(|r| mv.from.rank() == r)
    });
    match (found.next(), found.next()) {
        (Some(mv), None) => Ok(mv),
        (None, _) => Err(bad("no such legal move")),
        (Some(_), Some(_)) => Err(bad("ambiguous")),
    }
}

/// Formats a legal move in SAN (with `+` / `#` suffixes), the inverse of [`parse_san`].
pub fn move_to_san(board: &Board, mv: Move) -> String {
    let mut out = String::new();
    if is_castle(board, mv) {
        out.push_str(if mv.to.file() > mv.from.file() {
            "O-O"
        } else {
            "O-O-O"
        });
    } else {
        let piece = board.piece_on(mv.from).unwrap_or(Piece::Pawn);
        let capture =
            board.occupied().has(mv.to) || (piece == Piece::Pawn && mv.from.file() != mv.to.file());
        if piece == Piece::Pawn {
            if capture {
                out.push(char::from(mv.from.file()));
            }
        } else {
            out.push(char::from(piece).to_ascii_uppercase());
            // Disambiguate among other pieces of the same kind reaching the same square.
            let rivals: Vec<Move> = legal_moves(board)
                .into_iter()
                .filter(|m| {
                    m.to == mv.to
                        && m.from != mv.from
                        && board.piece_on(m.from) == Some(piece)
                        && !is_castle(board, *m)
                })
                .collect();
            if !rivals.is_empty() {
                if rivals.iter().all(|m| m.from.file() != mv.from.file()) {
                    out.push(char::from(mv.from.file()));
                } else if rivals.iter().all(|m| m.from.rank() != mv.from.rank()) {
                    out.push(char::from(mv.from.rank()));
                } else {
                    out.push(char::from(mv.from.file()));
                    out.push(char::from(mv.from.rank()));
                }
            }
        }
        if capture {
            out.push('x');
        }
        out.push_str(&mv.to.to_string());
        if let Some(p) = mv.promotion {
            out.push('=');
            out.push(char::from(p).to_ascii_uppercase());
        }
    }
    let mut after = board.clone();
    if after.try_play(mv).is_ok() && !after.checkers().is_empty() {
        let mate = legal_moves(&after).is_empty();
        out.push(if mate { '#' } else { '+' });
    }
    out
}

/// Splits a PGN-like move list ("1. e4 e5 2. Nf3", also "1.e4" or "1...e5") into SAN
/// tokens, dropping move numbers and game results.
pub fn san_tokens(pgn: &str) -> Vec<&str> {
    pgn.split_whitespace()
        .map(|tok| tok.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.'))
        .filter(|tok| {
            !tok.is_empty()
                && !matches!(
                    *tok,
                    "*" | "1-0" | "0-1" | "1/2-1/2" | "-0" | "-1" | "/2-1/2"
                )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::parse_fen;

    fn play(sans: &[&str]) -> Board {
        let mut b = Board::default();
        for s in sans {
            let mv = parse_san(&b, s).unwrap();
            b.play(mv);
        }
        b
    }

    #[test]
    fn parses_common_moves() {
        let b = play(&[
            "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Bxc6", "dxc6", "O-O", "Bg4",
        ]);
        assert_eq!(
            b.to_string(),
            "r2qkbnr/1pp2ppp/p1p5/4p3/4P1b1/5N2/PPPP1PPP/RNBQ1RK1 w kq - 2 6"
        );
    }

    #[test]
    fn disambiguation_promotion_and_errors() {
        let b = parse_fen("4k3/1P6/8/8/8/8/8/R3K2R w KQ - 0 1").unwrap();
        assert_eq!(
            parse_san(&b, "b8=Q+").unwrap().promotion,
            Some(Piece::Queen)
        );
        assert_eq!(parse_san(&b, "b8N").unwrap().promotion, Some(Piece::Knight));
        assert!(parse_san(&b, "b8").is_err());
        let castle = parse_san(&b, "O-O-O").unwrap();
        assert_eq!((castle.from, castle.to), (Square::E1, Square::A1));
        let b = parse_fen("4k3/8/8/8/8/8/8/R3K2R w - - 0 1").unwrap();
        assert!(parse_san(&b, "Rd1").is_ok());
        assert!(parse_san(&b, "Rf1").is_ok());
        assert!(parse_san(&b, "O-O").is_err());
        let b = parse_fen("4k3/8/8/8/8/8/8/R4RK1 w - - 0 1").unwrap();
        assert!(parse_san(&b, "Rd1").is_err(), "ambiguous");
        assert_eq!(parse_san(&b, "Rad1").unwrap().from, Square::A1);
        assert_eq!(parse_san(&b, "Rfd1").unwrap().from, Square::F1);
        assert!(parse_san(&Board::default(), "Nf4").is_err());
        assert!(parse_san(&Board::default(), "zz").is_err());
    }

    #[test]
    fn san_round_trip() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            "4k3/8/8/8/8/8/8/R4RK1 w - - 0 1",
            "1k6/8/8/8/8/8/2Q5/Q1Q4K w - - 0 1",
        ];
        for fen in fens {
            let b = parse_fen(fen).unwrap();
            for mv in legal_moves(&b) {
                let san = move_to_san(&b, mv);
                assert_eq!(parse_san(&b, &san), Ok(mv), "{san} in {fen}");
            }
        }
        let b = parse_fen("4k3/8/8/8/8/8/8/R4RK1 w - - 0 1").unwrap();
        let mv = parse_san(&b, "Rad1").unwrap();
        assert_eq!(move_to_san(&b, mv), "Rad1");
        let b = parse_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1").unwrap();
        assert_eq!(move_to_san(&b, parse_san(&b, "Ra8").unwrap()), "Ra8#");
        assert_eq!(
            move_to_san(
                &Board::default(),
                parse_san(&Board::default(), "Nf3").unwrap()
            ),
            "Nf3"
        );
    }

    #[test]
    fn tokenizes_pgn() {
        assert_eq!(
            san_tokens("1. e4 e5 2.Nf3 2...Nc6 *"),
            vec!["e4", "e5", "Nf3", "Nc6"]
        );
    }
}
