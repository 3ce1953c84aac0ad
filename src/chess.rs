//! Board helpers on top of cozy-chess: FEN parsing that tolerates what GUIs send,
//! UCI move notation (standard and Chess960 castling), and a game position that
//! remembers the hashes of earlier positions for repetition detection. SAN reading and
//! writing lives in [`san`] (used by the book compiler and the human-game converter).

use cozy_chess::{
    get_between_rays, get_bishop_moves, get_knight_moves, get_line_rays, get_pawn_attacks,
    get_rook_moves, BitBoard, Board, Color, File, Move, Piece, Square,
};

pub mod san;

pub const STARTPOS_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Parses a FEN (or Shredder-FEN) string. Accepts FENs without the move counters and
/// clamps a halfmove clock above 100, which cozy-chess would reject.
pub fn parse_fen(fen: &str) -> Result<Board, String> {
    let mut fields: Vec<String> = fen.split_whitespace().map(str::to_string).collect();
    if fields.len() < 4 {
        return Err(format!(
            "FEN needs at least 4 fields, got {}: '{fen}'",
            fields.len()
        ));
    }
    if fields.len() > 6 {
        return Err(format!("FEN has too many fields: '{fen}'"));
    }
    if fields.len() == 4 {
        fields.push("0".into());
    }
    if fields.len() == 5 {
        fields.push("1".into());
    }
    match fields[4].parse::<u32>() {
        Ok(n) if n > 100 => fields[4] = "100".into(),
        Ok(_) => {}
        Err(_) => return Err(format!("bad halfmove clock '{}'", fields[4])),
    }
    match fields[5].parse::<u32>() {
        Ok(0) => fields[5] = "1".into(),
        Ok(n) if n > 9999 => return Err(format!("fullmove number {n} out of range")),
        Ok(_) => {}
        Err(_) => return Err(format!("bad fullmove number '{}'", fields[5])),
    }
    let text = fields.join(" ");
    // Standard FEN first (KQkq), then Shredder FEN (HAha) for Chess960 positions, then
    // X-FEN (KQkq meaning the outermost rooks, as many GUIs send for Chess960).
    Board::from_fen(&text, false)
        .or_else(|_| Board::from_fen(&text, true))
        .or_else(|e| {
            let mut shredder = fields.clone();
            shredder[2] = xfen_castling_to_shredder(&fields[0], &fields[2]).ok_or(e)?;
            Board::from_fen(&shredder.join(" "), true)
        })
        .map_err(|e| format!("invalid FEN '{fen}': {e}"))
}

/// Writes a FEN that [`parse_fen`] (and other readers) read back as the same position:
/// standard FEN (KQkq) while every castling rook stands on the a- or h-file, where KQkq
/// is exact; Shredder FEN (the rooks' files, e.g. HFca) otherwise, as in Chess960
/// positions, where KQkq would name the wrong rook or none.
pub fn fen(board: &Board) -> String {
    let standard_files = Color::ALL.iter().all(|&color| {
        let rights = board.castle_rights(color);
        rights.short.is_none_or(|f| f == File::H) && rights.long.is_none_or(|f| f == File::A)
    });
    if standard_files {
        format!("{board}")
    } else {
        format!("{board:#}")
    }
}

/// Rewrites X-FEN castling rights (K/Q: the outermost rook on that side of the king) as
/// Shredder-FEN file letters. None if the placement has no such king or rook.
fn xfen_castling_to_shredder(placement: &str, castling: &str) -> Option<String> {
    let ranks: Vec<&str> = placement.split('/').collect();
    if ranks.len() != 8 || castling == "-" {
        return None;
    }
    let expand = |rank: &str| -> Vec<char> {
        rank.chars()
            .flat_map(|c| match c.to_digit(10) {
                Some(n) => vec!['.'; n as usize],
                None => vec![c],
            })
            .collect()
    };
    let mut out = String::new();
    for c in castling.chars() {
        let white = c.is_ascii_uppercase();
        let row = expand(if white { ranks[7] } else { ranks[0] });
        let (king, rook) = if white { ('K', 'R') } else { ('k', 'r') };
        let king_file = row.iter().position(|&x| x == king)?;
        let file = match c.to_ascii_uppercase() {
            'K' => (king_file + 1..row.len()).rev().find(|&f| row[f] == rook)?,
            'Q' => (0..king_file).find(|&f| row[f] == rook)?,
            f @ 'A'..='H' => (f as u8 - b'A') as usize,
            _ => return None,
        };
        let letter = (b'A' + file as u8) as char;
        out.push(if white {
            letter
        } else {
            letter.to_ascii_lowercase()
        });
    }
    Some(out)
}

/// All legal moves of a position, in cozy-chess order.
pub fn legal_moves(board: &Board) -> Vec<Move> {
    let mut moves = Vec::with_capacity(64);
    board.generate_moves(|pm| {
        moves.extend(pm);
        false
    });
    moves
}

/// True if `mv` is a castling move in cozy-chess's king-takes-own-rook encoding.
pub fn is_castle(board: &Board, mv: Move) -> bool {
    board.colors(board.side_to_move()).has(mv.to) && board.piece_on(mv.from) == Some(Piece::King)
}

/// Formats a move for UCI. cozy-chess encodes castling as king-takes-rook, which is the
/// Chess960 convention; standard games want the king's destination (e1g1).
pub fn move_to_uci(board: &Board, mv: Move, chess960: bool) -> String {
    if !chess960 && is_castle(board, mv) {
        let file = if mv.to.file() > mv.from.file() {
            File::G
        } else {
            File::C
        };
        let to = Square::new(file, mv.from.rank());
        return Move {
            from: mv.from,
            to,
            promotion: None,
        }
        .to_string();
    }
    mv.to_string()
}

/// Parses a UCI move and returns the matching legal move. Castling is accepted both as
/// king-to-destination (e1g1) and as king-takes-rook (e1h1), whatever the mode.
pub fn parse_uci_move(board: &Board, text: &str) -> Option<Move> {
    let parsed: Move = text.parse().ok()?;
    let legal = legal_moves(board);
    if legal.contains(&parsed) {
        return Some(parsed);
    }
    // Standard castling notation: the king moves two files (or lands on c/g in 960).
    legal.into_iter().find(|&mv| {
        is_castle(board, mv) && mv.from == parsed.from && parsed.promotion.is_none() && {
            let file = if mv.to.file() > mv.from.file() {
                File::G
            } else {
                File::C
            };
            parsed.to == Square::new(file, mv.from.rank())
        }
    })
}

/// True when neither side has enough material to mate (K v K, K+minor v K,
/// K+B v K+B with bishops on the same colour).
pub fn insufficient_material(board: &Board) -> bool {
    let heavy = board.pieces(Piece::Pawn) | board.pieces(Piece::Rook) | board.pieces(Piece::Queen);
    if !heavy.is_empty() {
        return false;
    }
    let minors = board.pieces(Piece::Knight) | board.pieces(Piece::Bishop);
    match minors.len() {
        0 | 1 => true,
        _ => {
            let bishops = board.pieces(Piece::Bishop);
            if board.pieces(Piece::Knight).is_empty() {
                let dark = cozy_chess::BitBoard(0xAA55_AA55_AA55_AA55);
                (bishops & dark).is_empty() || (bishops & !dark).is_empty()
            } else {
                false
            }
        }
    }
}

/// A game position: the current board plus the hashes of the positions before it,
/// back to the last irreversible move, for threefold-repetition checks.
#[derive(Clone, Debug)]
pub struct Position {
    pub board: Board,
    /// Hashes of earlier positions (oldest first), not including `board`.
    pub history: Vec<u64>,
    /// Where the game record starts (start position or the `position fen`).
    pub start: Board,
    /// Every move played from `start` (for opening names).
    pub moves: Vec<Move>,
}

impl Default for Position {
    fn default() -> Self {
        Position::new(Board::default())
    }
}

impl Position {
    pub fn new(board: Board) -> Self {
        Position {
            start: board.clone(),
            board,
            history: Vec::new(),
            moves: Vec::new(),
        }
    }

    /// Plies since the start of the game, from the fullmove counter (works for FENs too).
    pub fn game_ply(&self) -> usize {
        let full = self.board.fullmove_number().max(1) as usize;
        2 * (full - 1) + (self.board.side_to_move() == Color::Black) as usize
    }

    /// Builds a position from a FEN and a list of UCI moves; fails on the first illegal move.
    pub fn from_fen_and_moves(fen: &str, moves: &[&str]) -> Result<Self, String> {
        let mut pos = Position::new(parse_fen(fen)?);
        for text in moves {
            let mv = parse_uci_move(&pos.board, text)
                .ok_or_else(|| format!("illegal move '{text}' in position {}", pos.board))?;
            pos.play(mv);
        }
        Ok(pos)
    }

    /// Plays a legal move, recording the previous position for repetition checks.
    pub fn play(&mut self, mv: Move) {
        self.history.push(self.board.hash());
        self.moves.push(mv);
        self.board.play_unchecked(mv);
        if self.board.halfmove_clock() == 0 {
            self.history.clear();
        }
    }

    /// How many times the current position occurred before (same side to move).
    pub fn repetitions(&self) -> usize {
        let h = self.board.hash();
        self.history
            .iter()
            .rev()
            .skip(1)
            .step_by(2)
            .filter(|&&x| x == h)
            .count()
    }
}

/// What the side to move needs to know whether a move gives check without playing it:
/// for each piece type the squares from which it would attack the enemy king, and our
/// pieces that alone block one of our sliders from that king (moving one off the line
/// uncovers check). It answers for every move but castling, en passant and promotions
/// ([`CheckInfo::simple_move_gives_check`]).
pub struct CheckInfo {
    king: Square,
    squares: [BitBoard; Piece::NUM],
    discoverers: BitBoard,
}

impl CheckInfo {
    pub fn new(board: &Board) -> Self {
        let us = board.side_to_move();
        let king = board.king(!us);
        let occupied = board.occupied();
        let diagonal = get_bishop_moves(king, occupied);
        let orthogonal = get_rook_moves(king, occupied);
        let squares = [
            get_pawn_attacks(king, !us),
            get_knight_moves(king),
            diagonal,
            orthogonal,
            diagonal | orthogonal,
            BitBoard::EMPTY,
        ];
        let queens = board.colored_pieces(us, Piece::Queen);
        let snipers = (get_bishop_moves(king, BitBoard::EMPTY)
            & (board.colored_pieces(us, Piece::Bishop) | queens))
            | (get_rook_moves(king, BitBoard::EMPTY)
                & (board.colored_pieces(us, Piece::Rook) | queens));
        let mut discoverers = BitBoard::EMPTY;
        for sniper in snipers {
            let between = get_between_rays(sniper, king) & occupied;
            if between.len() == 1 {
                discoverers |= between & board.colors(us);
            }
        }
        CheckInfo {
            king,
            squares,
            discoverers,
        }
    }

    /// Whether `mv`, a move of `piece` that is not castling, en passant or a promotion,
    /// gives check. A capture is such a move too: it leaves every square but `from` as
    /// occupied as before, which is all the precomputed squares depend on.
    pub fn simple_move_gives_check(&self, piece: Piece, mv: Move) -> bool {
        self.squares[piece as usize].has(mv.to)
            || (self.discoverers.has(mv.from) && !get_line_rays(mv.from, self.king).has(mv.to))
    }
}

/// Colour helper: +1 for White, -1 for Black.
pub fn sign(color: Color) -> i32 {
    if color == Color::White {
        1
    } else {
        -1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `CheckInfo` agrees with playing the move, for every move but castling, en passant
    /// and promotions in the trees (to depth 3) of positions rich in pins, discovered
    /// checks, captures and slider play.
    #[test]
    fn check_info_matches_playing_the_move() {
        fn walk(board: &Board, depth: u32, counts: &mut (usize, usize, usize)) {
            let info = CheckInfo::new(board);
            let them = board.colors(!board.side_to_move());
            for mv in legal_moves(board) {
                let mut child = board.clone();
                child.play_unchecked(mv);
                let piece = board.piece_on(mv.from).unwrap();
                let en_passant =
                    piece == Piece::Pawn && mv.from.file() != mv.to.file() && !them.has(mv.to);
                let simple = mv.promotion.is_none() && !en_passant && !is_castle(board, mv);
                if simple {
                    let checks = !child.checkers().is_empty();
                    assert_eq!(
                        info.simple_move_gives_check(piece, mv),
                        checks,
                        "{board} {mv}"
                    );
                    counts.0 += 1;
                    counts.1 += checks as usize;
                    counts.2 += (checks && them.has(mv.to)) as usize;
                }
                if depth > 1 {
                    walk(&child, depth - 1, counts);
                }
            }
        }
        let mut counts = (0, 0, 0);
        for fen in [
            STARTPOS_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "4k3/3p4/8/1B6/4N3/8/4R3/4K2Q w - - 0 1",
        ] {
            walk(&parse_fen(fen).unwrap(), 3, &mut counts);
        }
        assert!(
            counts.0 > 100_000 && counts.1 > 1_000 && counts.2 > 100,
            "moves, checks, checking captures: {counts:?}"
        );
    }

    #[test]
    fn castling_notation_round_trip() {
        let board = parse_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        let mv = parse_uci_move(&board, "e1g1").unwrap();
        assert_eq!(mv.to, Square::H1);
        assert_eq!(move_to_uci(&board, mv, false), "e1g1");
        assert_eq!(move_to_uci(&board, mv, true), "e1h1");
        assert_eq!(parse_uci_move(&board, "e1h1"), Some(mv));
        let long = parse_uci_move(&board, "e1c1").unwrap();
        assert_eq!(long.to, Square::A1);
    }

    #[test]
    fn fen_clamps_halfmove_and_rejects_garbage() {
        assert!(parse_fen("8/8/8/8/8/8/8/K6k w - - 150 80").is_ok());
        assert!(parse_fen("8/8/8/8/8/8/8/K6k w - -").is_ok());
        assert!(parse_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq").is_err());
        assert!(parse_fen("8/8/8/8/8/8/8/8 w - - 0 1").is_err());
        assert!(parse_fen("4k3/8/8/8/8/8/8/4K3 w K - 0 1").is_err());
    }

    #[test]
    fn fen_writes_shredder_castling_only_where_kqkq_would_be_wrong() {
        let cases = [
            (STARTPOS_FEN, STARTPOS_FEN),
            // Chess960 start 0: the rooks on f and h.
            (
                "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1",
                "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1",
            ),
            // King on b, rooks on a and h: KQkq is exact.
            (
                "rkbbnnqr/pppppppp/8/8/8/8/PPPPPPPP/RKBBNNQR w HAha - 0 1",
                "rkbbnnqr/pppppppp/8/8/8/8/PPPPPPPP/RKBBNNQR w KQkq - 0 1",
            ),
            // The castling rook on g with another rook on h: K would name the h-rook.
            (
                "4k3/8/8/8/8/8/8/5KRR w G - 0 1",
                "4k3/8/8/8/8/8/8/5KRR w G - 0 1",
            ),
            (
                "r1rk4/8/8/8/8/8/8/4K3 b c - 0 1",
                "r1rk4/8/8/8/8/8/8/4K3 b c - 0 1",
            ),
        ];
        for (input, written) in cases {
            let board = parse_fen(input).unwrap_or_else(|e| panic!("{input}: {e:?}"));
            assert_eq!(fen(&board), written);
            assert_eq!(parse_fen(&fen(&board)), Ok(board.clone()), "{input}");
        }
        let twin_rooks = Board::from_fen("4k3/8/8/8/8/8/8/5KRR w G - 0 1", true).unwrap();
        assert_ne!(parse_fen(&twin_rooks.to_string()), Ok(twin_rooks));
        for n in 0..960 {
            let board = Board::double_chess960_startpos(n, 959 - n);
            assert_eq!(parse_fen(&fen(&board)), Ok(board.clone()), "{n}");
        }
    }

    #[test]
    fn threefold_detection() {
        let moves = [
            "g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8",
        ];
        let pos = Position::from_fen_and_moves(STARTPOS_FEN, &moves).unwrap();
        assert_eq!(pos.repetitions(), 2);
    }

    #[test]
    fn insufficient_material_cases() {
        assert!(insufficient_material(
            &parse_fen("8/8/8/8/8/8/8/K6k w - - 0 1").unwrap()
        ));
        assert!(insufficient_material(
            &parse_fen("8/8/8/8/8/8/8/KN5k w - - 0 1").unwrap()
        ));
        assert!(!insufficient_material(
            &parse_fen("8/8/8/8/8/8/8/KNN4k w - - 0 1").unwrap()
        ));
        assert!(!insufficient_material(
            &parse_fen("8/8/8/8/8/8/P7/K6k w - - 0 1").unwrap()
        ));
    }
}
