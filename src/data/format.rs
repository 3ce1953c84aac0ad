//! The self-play data format: whole games, as viriformat (Viridithas, read by the bullet
//! trainer) lays them out — a 32-byte marlinformat board for the start position, then
//! 4 bytes per move (the move and the search score of the position it was played in),
//! then 4 zero bytes. A 150-ply game costs 32 + 150·4 + 4 = 636 bytes, about 4.2 bytes a
//! position.
//!
//! Start board (32 bytes, little-endian):
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | occupancy bitboard (bit i = square i, a1 = 0) |
//! | 8..24 | one nibble per occupied square in square order, low nibble first: bits 0–2 piece (0 pawn … 5 king, 6 rook that can still castle), bit 3 black |
//! | 24 | bit 7: Black to move; bits 0–6: en-passant square (64: none) |
//! | 25 | halfmove clock |
//! | 26..28 | fullmove number |
//! | 28..30 | score of the start position (unused here, 0) |
//! | 30 | game result: 0 Black won, 1 draw, 2 White won |
//! | 31 | 0 |
//!
//! Move (u16): bits 0–5 from, 6–11 to (castling: the rook's square, so Chess960 works),
//! 12–13 promotion piece (knight, bishop, rook, queen), 14–15 kind (0 normal, 1 en passant,
//! 2 castling, 3 promotion). Score (i16): White's view, centipawns; beyond ±30,000 a mate.
//!
//! Reading replays every game: a move that is not legal, a result byte out of range, a
//! board that cannot exist or a file that ends inside a game is an error that names the
//! byte offset; everything before it stays usable. Bit flips that keep a game legal (in
//! a score, say) are caught by the sha256 in the data manifest (`data/README.md`).

use std::fmt;

use crate::search::movepick::captured_piece;

use cozy_chess::{
    BitBoard, Board, BoardBuilder, CastleRights, Color, File, Move, Piece, Rank, Square,
};

/// Size of the start board.
pub const BOARD_BYTES: usize = 32;
/// Scores at or beyond this magnitude are mates.
pub const MATE_SCORE: i16 = 30_000;

/// One self-play game.
#[derive(Clone, Debug, PartialEq)]
pub struct Game {
    pub start: Board,
    /// Each move with the search score (White's view, cp) of the position it was played in.
    pub moves: Vec<(Move, i16)>,
    /// 0 Black won, 1 draw, 2 White won.
    pub wdl: u8,
}

impl Game {
    /// The result from White's point of view (1, 0.5, 0).
    pub fn result_white(&self) -> f32 {
        self.wdl as f32 / 2.0
    }
}

/// Where and why a file could not be read.
#[derive(Clone, Debug, PartialEq)]
pub struct FormatError {
    /// Byte offset of the game (or move) that is bad.
    pub offset: usize,
    pub what: String,
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "at byte {}: {}", self.offset, self.what)
    }
}

fn piece_code(piece: Piece) -> u8 {
    piece as u8 // Pawn 0, Knight 1, Bishop 2, Rook 3, Queen 4, King 5
}

/// The 32-byte start board.
pub fn pack_board(board: &Board, wdl: u8) -> [u8; BOARD_BYTES] {
    let mut out = [0u8; BOARD_BYTES];
    let occupied = board.occupied();
    out[..8].copy_from_slice(&occupied.0.to_le_bytes());
    let castling_rooks = castling_rook_squares(board);
    for (n, sq) in occupied.into_iter().enumerate() {
        let piece = board.piece_on(sq).expect("occupied square has a piece");
        let color = board.color_on(sq).expect("occupied square has a colour");
        let mut code = if castling_rooks.has(sq) {
            6
        } else {
            piece_code(piece)
        };
        if color == Color::Black {
            code |= 8;
        }
        out[8 + n / 2] |= code << (4 * (n % 2));
    }
    let ep = board.en_passant().map_or(64u8, |file| {
        Square::new(file, Rank::Third.relative_to(!board.side_to_move())) as u8
    });
    out[24] = ep
        | if board.side_to_move() == Color::Black {
            0x80
        } else {
            0
        };
    out[25] = board.halfmove_clock();
    out[26..28].copy_from_slice(&board.fullmove_number().to_le_bytes());
    out[30] = wdl;
    out
}

/// Squares of the rooks that still carry a castling right.
fn castling_rook_squares(board: &Board) -> BitBoard {
    let mut rooks = BitBoard::EMPTY;
    for color in Color::ALL {
        let rights = board.castle_rights(color);
        let rank = Rank::First.relative_to(color);
        for file in [rights.short, rights.long].into_iter().flatten() {
            rooks |= Square::new(file, rank).bitboard();
        }
    }
    rooks
}

/// Reads a start board; the result byte comes back with it.
pub fn unpack_board(bytes: &[u8; BOARD_BYTES]) -> Result<(Board, u8), String> {
    let occupied = BitBoard(u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes")));
    if occupied.len() > 32 {
        return Err(format!("{} pieces on the board", occupied.len()));
    }
    let squares: Vec<(Square, u8)> = occupied
        .into_iter()
        .enumerate()
        .map(|(n, sq)| (sq, (bytes[8 + n / 2] >> (4 * (n % 2))) & 0xF))
        .collect();
    let color_of = |code: u8| {
        if code & 8 != 0 {
            Color::Black
        } else {
            Color::White
        }
    };
    let king_file = |color: Color| {
        squares
            .iter()
            .find(|&&(_, c)| c & 7 == 5 && color_of(c) == color)
            .map(|&(sq, _)| sq.file())
    };
    let mut builder = BoardBuilder::empty();
    let mut castling = [[None::<File>; 2]; 2]; // [colour][0 short, 1 long]
    for &(sq, code) in &squares {
        let color = color_of(code);
        let piece = match code & 7 {
            6 => {
                // A rook that can still castle: the short side if right of its king.
                let king = king_file(color).ok_or("castling rook without a king")?;
                let side = if sq.file() > king { 0 } else { 1 };
                castling[color as usize][side] = Some(sq.file());
                Piece::Rook
            }
            7 => return Err(format!("bad piece code {code}")),
            p => Piece::index(p as usize),
        };
        *builder.square_mut(sq) = Some((piece, color));
    }
    for color in Color::ALL {
        *builder.castle_rights_mut(color) = CastleRights {
            short: castling[color as usize][0],
            long: castling[color as usize][1],
        };
    }
    builder.side_to_move = if bytes[24] & 0x80 != 0 {
        Color::Black
    } else {
        Color::White
    };
    let ep = bytes[24] & 0x7F;
    builder.en_passant = match ep {
        64 => None,
        0..=63 => Some(Square::index(ep as usize)),
        _ => return Err(format!("bad en-passant square {ep}")),
    };
    builder.halfmove_clock = bytes[25];
    builder.fullmove_number = u16::from_le_bytes([bytes[26], bytes[27]]).max(1);
    let wdl = bytes[30];
    if wdl > 2 {
        return Err(format!("bad result byte {wdl}"));
    }
    let board = builder
        .build()
        .map_err(|e| format!("impossible position ({e:?})"))?;
    Ok((board, wdl))
}

/// The move in the viriformat layout.
pub fn pack_move(board: &Board, mv: Move) -> u16 {
    let mut bits = mv.from as u16 | (mv.to as u16) << 6;
    let piece = board.piece_on(mv.from);
    let kind = if let Some(promo) = mv.promotion {
        bits |= (promo as u16 - Piece::Knight as u16) << 12;
        3
    } else if piece == Some(Piece::King) && board.colors(board.side_to_move()).has(mv.to) {
        2
    } else if piece == Some(Piece::Pawn)
        && mv.from.file() != mv.to.file()
        && board.piece_on(mv.to).is_none()
    {
        1
    } else {
        0
    };
    bits | kind << 14
}

/// Reads a move of `board`; `None` if it is not legal there or its kind does not match.
pub fn unpack_move(board: &Board, bits: u16) -> Option<Move> {
    let from = Square::index((bits & 63) as usize);
    let to = Square::index((bits >> 6 & 63) as usize);
    let kind = bits >> 14;
    let promotion =
        (kind == 3).then(|| Piece::index(Piece::Knight as usize + (bits >> 12 & 3) as usize));
    let mv = Move {
        from,
        to,
        promotion,
    };
    (board.is_legal(mv) && pack_move(board, mv) == bits).then_some(mv)
}

/// Appends one game to `out`.
pub fn write_game(out: &mut Vec<u8>, game: &Game) {
    out.extend_from_slice(&pack_board(&game.start, game.wdl));
    let mut board = game.start.clone();
    for &(mv, score) in &game.moves {
        out.extend_from_slice(&pack_move(&board, mv).to_le_bytes());
        out.extend_from_slice(&score.to_le_bytes());
        board.play_unchecked(mv);
    }
    out.extend_from_slice(&[0; 4]);
}

/// Reads the game at `bytes[offset..]`; returns it and the offset after it.
pub fn read_game(bytes: &[u8], offset: usize) -> Result<(Game, usize), FormatError> {
    let err = |at: usize, what: String| FormatError { offset: at, what };
    let header: &[u8; BOARD_BYTES] = bytes
        .get(offset..offset + BOARD_BYTES)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| {
            err(
                offset,
                "file ends inside a game's start board (truncated)".into(),
            )
        })?;
    let (start, wdl) =
        unpack_board(header).map_err(|e| err(offset, format!("bad start board: {e}")))?;
    let mut board = start.clone();
    let mut moves = Vec::new();
    let mut at = offset + BOARD_BYTES;
    loop {
        let entry = bytes
            .get(at..at + 4)
            .ok_or_else(|| err(at, "file ends inside a game (truncated)".into()))?;
        let bits = u16::from_le_bytes([entry[0], entry[1]]);
        let score = i16::from_le_bytes([entry[2], entry[3]]);
        if bits == 0 && score == 0 {
            at += 4;
            break;
        }
        let mv = unpack_move(&board, bits)
            .ok_or_else(|| err(at, format!("move {bits:#06x} is not legal in {board}")))?;
        if score == i16::MIN {
            return Err(err(at, "score out of range".into()));
        }
        board.play_unchecked(mv);
        moves.push((mv, score));
        at += 4;
    }
    Ok((Game { start, moves, wdl }, at))
}

/// Every game of a file, and the first error if the file is not whole: the games before
/// the error are all good.
pub fn read_games(bytes: &[u8]) -> (Vec<Game>, Option<FormatError>) {
    let mut games = Vec::new();
    let mut offset = 0;
    while offset < bytes.len() {
        match read_game(bytes, offset) {
            Ok((game, next)) => {
                games.push(game);
                offset = next;
            }
            Err(e) => return (games, Some(e)),
        }
    }
    (games, None)
}

/// Length of the readable prefix of a file (whole games only): where a rerun of datagen
/// appends after cutting off a game that a kill left half-written.
pub fn whole_games_len(bytes: &[u8]) -> usize {
    let mut offset = 0;
    while offset < bytes.len() {
        match read_game(bytes, offset) {
            Ok((_, next)) => offset = next,
            Err(_) => break,
        }
    }
    offset
}

/// A training position taken from a game.
#[derive(Clone, Debug)]
pub struct Sample {
    pub board: Board,
    /// Search score, White's view.
    pub score_white: i16,
    /// Game result, White's view.
    pub result_white: f32,
}

/// The positions of a game a net should learn from: not in check, best move quiet (not a
/// capture or promotion), score not a mate.
pub fn samples(game: &Game) -> Vec<Sample> {
    let mut out = Vec::with_capacity(game.moves.len());
    let mut board = game.start.clone();
    for &(mv, score) in &game.moves {
        // The search's own capture test: en passant counts, castling (king-takes-own-rook
        // in cozy-chess) does not, and a king's capture is a capture.
        let noisy = mv.promotion.is_some() || captured_piece(&board, mv).is_some();
        if board.checkers().is_empty() && !noisy && score.abs() < MATE_SCORE {
            out.push(Sample {
                board: board.clone(),
                score_white: score,
                result_white: game.result_white(),
            });
        }
        board.play_unchecked(mv);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boards() -> Vec<Board> {
        [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w Kq - 3 17",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 99 80",
        ]
        .iter()
        .map(|f| f.parse().expect("fen"))
        .chain([Board::from_fen(
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            true,
        )
        .expect("960 fen")])
        .collect()
    }

    /// Chess960 boards: every start position, double Chess960 ones, rights partly lost
    /// (of either colour), a castling rook with a second rook beside it on the same side
    /// of its king, and positions a few dozen random plies (castling among them) into
    /// double Chess960 games.
    fn chess960_boards() -> Vec<Board> {
        use rand::seq::SliceRandom;
        use rand::SeedableRng;
        let mut out: Vec<Board> = (0..960).map(Board::chess960_startpos).collect();
        let mut rng = rand::rngs::StdRng::seed_from_u64(960);
        for n in 0..40u32 {
            let mut board = Board::double_chess960_startpos(n * 24, 959 - n * 17);
            out.push(board.clone());
            for _ in 0..60 {
                let moves = crate::chess::legal_moves(&board);
                let Some(&mv) = moves.choose(&mut rng) else {
                    break;
                };
                board.play_unchecked(mv);
                out.push(board.clone());
            }
        }
        out.extend(
            [
                "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFca - 0 1",
                "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w Fc - 0 1",
                "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR b Ha - 0 1",
                "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w ca - 0 1",
                "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HF - 0 1",
                "4k3/8/8/8/8/8/8/5KRR w G - 0 1",
                "4k3/8/8/8/8/8/8/RR2K3 w B - 0 1",
                "r1rk4/8/8/8/8/8/8/4K3 b c - 0 1",
                "1rk2rr1/8/8/8/8/8/8/1RK2RR1 w FBfb - 0 1",
            ]
            .iter()
            .map(|f| Board::from_fen(f, true).unwrap_or_else(|e| panic!("{f}: {e:?}"))),
        );
        out
    }

    #[test]
    fn chess960_boards_keep_their_castling_rooks() {
        let boards = chess960_boards();
        let mut lost = 0;
        for b in &boards {
            let (back, _) = unpack_board(&pack_board(b, 1)).expect("unpacks");
            assert_eq!(back, *b, "{b:#}");
            for color in Color::ALL {
                assert_eq!(back.castle_rights(color), b.castle_rights(color), "{b:#}");
            }
            let rights = Color::ALL.map(|c| b.castle_rights(c));
            lost += rights.iter().any(|r| r.short.is_some() != r.long.is_some()) as usize;
        }
        // The random games lost some rights but not all.
        assert!(lost > 100, "{lost} boards with a right lost");
    }

    #[test]
    fn chess960_moves_round_trip() {
        let mut castles = 0;
        for b in chess960_boards() {
            for mv in crate::chess::legal_moves(&b) {
                assert_eq!(
                    unpack_move(&b, pack_move(&b, mv)),
                    Some(mv),
                    "{mv} in {b:#}"
                );
                castles += crate::chess::is_castle(&b, mv) as usize;
            }
        }
        assert!(castles > 200, "{castles} castling moves");
    }

    #[test]
    fn boards_round_trip() {
        for b in boards() {
            for wdl in 0..3 {
                let (back, w) = unpack_board(&pack_board(&b, wdl)).expect("unpacks");
                assert_eq!(w, wdl);
                assert_eq!(back, b, "{b}");
            }
        }
    }

    /// One game per case: the first position is kept only when its move is quiet and the
    /// position is not in check and its score not a mate.
    #[test]
    fn samples_keep_only_quiet_positions() {
        let cases = [
            ("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "a1a2", 20, true), // quiet rook move
            ("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "e1a1", 20, true), // castling
            ("4k3/8/8/8/8/8/3n4/4K3 w - - 0 1", "e1d2", 20, false), // king capture
            ("r3k3/8/8/8/8/8/8/R3K3 w - - 0 1", "a1a8", 20, false), // rook capture
            ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "e5d6", 20, false), // en passant
            ("4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8q", 20, false), // promotion
            ("4k3/8/8/8/8/8/8/r3K3 w - - 0 1", "e1e2", 20, false), // in check
            ("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "a1a2", MATE_SCORE, false), // mate score
        ];
        for (fen, mv, score, kept) in cases {
            let start: Board = fen.parse().expect("fen");
            let game = Game {
                start,
                moves: vec![(mv.parse().expect("move"), score)],
                wdl: 1,
            };
            assert_eq!(samples(&game).len(), kept as usize, "{fen} {mv}");
        }
    }

    #[test]
    fn every_legal_move_round_trips() {
        for b in boards() {
            b.generate_moves(|moves| {
                for mv in moves {
                    assert_eq!(unpack_move(&b, pack_move(&b, mv)), Some(mv), "{mv} in {b}");
                }
                false
            });
        }
    }
}
