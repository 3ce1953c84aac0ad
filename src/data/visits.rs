//! The MCTS self-play format (`.mcv`): whole games with, for every position, the root's
//! visit distribution, the policy's training target (AlphaZero). Written by
//! `rookery datagen --mode mcts`, read by `rookery train-policy --visits`.
//!
//! A file is an 8-byte header, then games back to back (little-endian throughout):
//!
//! | bytes | field |
//! |---|---|
//! | 0..4 | magic `RMCV` |
//! | 4..6 | version (1) |
//! | 6..8 | 0 |
//!
//! Game: the 32-byte start board of the `.vf` format ([`super::format::pack_board`],
//! the result in byte 30: 0 Black won, 1 draw, 2 White won), a u16 ply count, then per
//! ply:
//!
//! | bytes | field |
//! |---|---|
//! | 0..2 | the move played (the `.vf` move encoding) |
//! | 2..4 | root value for the side to move, 0..65535 = loss..win (mean over its playouts) |
//! | 4 | flags: bit 0 the move was sampled by temperature (else the most visited) |
//! | 5 | n, the root's children with at least one visit (1..218) |
//! | 6.. | n × (u16 move, u32 visits) |
//!
//! About 6 + 6n bytes a position. The boards come from replaying the moves, so reading
//! checks every move (played and visited) for legality, and a truncated or corrupt game
//! is an error naming its byte offset; the games before it stay usable, and a rerun of
//! datagen cuts it off ([`whole_games_len`]).

use cozy_chess::{Board, Move};

use super::format::{pack_board, pack_move, unpack_board, unpack_move, FormatError, BOARD_BYTES};

pub const MAGIC: &[u8; 4] = b"RMCV";
pub const VERSION: u16 = 1;
pub const HEADER_BYTES: usize = 8;
/// The `.mcv` extension.
pub const EXTENSION: &str = "mcv";

const SAMPLED: u8 = 1;

/// One position of an MCTS game: the move played and what the search saw.
#[derive(Clone, Debug, PartialEq)]
pub struct VisitPly {
    pub played: Move,
    /// Root value for the side to move, 0 (loss) ..= 1 (win), as stored (1/65535 steps).
    pub root_value: f32,
    /// Whether the move was sampled in proportion to the visits rather than chosen as
    /// the most visited (the opening plies of a self-play game).
    pub sampled: bool,
    /// Root moves with their visits (visited moves only, generation order).
    pub visits: Vec<(Move, u32)>,
}

impl VisitPly {
    /// The most visited move (the first of equals).
    pub fn most_visited(&self) -> Option<Move> {
        let mut best: Option<(Move, u32)> = None;
        for &(mv, n) in &self.visits {
            if best.is_none_or(|(_, b)| n > b) {
                best = Some((mv, n));
            }
        }
        best.map(|(mv, _)| mv)
    }

    pub fn total_visits(&self) -> u64 {
        self.visits.iter().map(|&(_, n)| n as u64).sum()
    }
}

/// One MCTS self-play game.
#[derive(Clone, Debug, PartialEq)]
pub struct VisitGame {
    pub start: Board,
    /// 0 Black won, 1 draw, 2 White won.
    pub wdl: u8,
    pub plies: Vec<VisitPly>,
}

impl VisitGame {
    /// Each ply's board with the ply (replays the game).
    pub fn positions(&self) -> impl Iterator<Item = (Board, &VisitPly)> + '_ {
        let mut board = self.start.clone();
        self.plies.iter().map(move |ply| {
            let before = board.clone();
            board.play_unchecked(ply.played);
            (before, ply)
        })
    }
}

/// The file header.
pub fn header() -> [u8; HEADER_BYTES] {
    let mut out = [0u8; HEADER_BYTES];
    out[..4].copy_from_slice(MAGIC);
    out[4..6].copy_from_slice(&VERSION.to_le_bytes());
    out
}

/// Checks the header of a whole file's bytes.
pub fn check_header(bytes: &[u8]) -> Result<(), String> {
    if bytes.len() < HEADER_BYTES {
        return Err(format!(
            "{} bytes: too short for the {HEADER_BYTES}-byte .mcv header (truncated or not an .mcv file)",
            bytes.len()
        ));
    }
    if &bytes[..4] != MAGIC {
        return Err("not an .mcv file (no RMCV magic at the start)".into());
    }
    let version = u16::from_le_bytes([bytes[4], bytes[5]]);
    if version != VERSION {
        return Err(format!(
            ".mcv version {version}; this build reads version {VERSION}"
        ));
    }
    Ok(())
}

/// Appends one game to `out`. Errors when a count does not fit the format (a game of
/// more than 65,535 plies, a position with no visited move).
pub fn write_game(out: &mut Vec<u8>, game: &VisitGame) -> Result<(), String> {
    let plies = u16::try_from(game.plies.len())
        .map_err(|_| format!("{} plies do not fit a .mcv game", game.plies.len()))?;
    out.extend_from_slice(&pack_board(&game.start, game.wdl));
    out.extend_from_slice(&plies.to_le_bytes());
    let mut board = game.start.clone();
    for ply in &game.plies {
        let n = ply.visits.len();
        if n == 0 || n > u8::MAX as usize {
            return Err(format!("{n} visited root moves do not fit a .mcv position"));
        }
        out.extend_from_slice(&pack_move(&board, ply.played).to_le_bytes());
        let value = (ply.root_value.clamp(0.0, 1.0) * u16::MAX as f32).round() as u16;
        out.extend_from_slice(&value.to_le_bytes());
        out.push(if ply.sampled { SAMPLED } else { 0 });
        out.push(n as u8);
        for &(mv, visits) in &ply.visits {
            out.extend_from_slice(&pack_move(&board, mv).to_le_bytes());
            out.extend_from_slice(&visits.to_le_bytes());
        }
        board.play_unchecked(ply.played);
    }
    Ok(())
}

fn take<'a>(bytes: &'a [u8], at: usize, n: usize, what: &str) -> Result<&'a [u8], FormatError> {
    bytes.get(at..at + n).ok_or_else(|| FormatError {
        offset: at,
        what: format!("file ends inside {what} (truncated)"),
    })
}

/// Reads the game at `bytes[offset..]` (after the header); returns it and the offset
/// after it.
pub fn read_game(bytes: &[u8], offset: usize) -> Result<(VisitGame, usize), FormatError> {
    let err = |at: usize, what: String| FormatError { offset: at, what };
    let board_bytes: &[u8; BOARD_BYTES] = take(bytes, offset, BOARD_BYTES, "a start board")?
        .try_into()
        .expect("BOARD_BYTES long");
    let (start, wdl) =
        unpack_board(board_bytes).map_err(|e| err(offset, format!("bad start board: {e}")))?;
    let mut at = offset + BOARD_BYTES;
    let count = take(bytes, at, 2, "a ply count")?;
    let count = u16::from_le_bytes([count[0], count[1]]) as usize;
    at += 2;
    let mut board = start.clone();
    let mut plies = Vec::with_capacity(count);
    for _ in 0..count {
        let entry = take(bytes, at, 6, "a position")?;
        let played_bits = u16::from_le_bytes([entry[0], entry[1]]);
        let value = u16::from_le_bytes([entry[2], entry[3]]);
        let flags = entry[4];
        let n = entry[5] as usize;
        let played = unpack_move(&board, played_bits).ok_or_else(|| {
            err(
                at,
                format!("played move {played_bits:#06x} is not legal in {board}"),
            )
        })?;
        if flags & !SAMPLED != 0 {
            return Err(err(at + 4, format!("unknown flags {flags:#04x}")));
        }
        if n == 0 {
            return Err(err(at + 5, "a position without visited moves".into()));
        }
        at += 6;
        let mut visits = Vec::with_capacity(n);
        for _ in 0..n {
            let child = take(bytes, at, 6, "a visit count")?;
            let bits = u16::from_le_bytes([child[0], child[1]]);
            let count = u32::from_le_bytes([child[2], child[3], child[4], child[5]]);
            let mv = unpack_move(&board, bits).ok_or_else(|| {
                err(
                    at,
                    format!("visited move {bits:#06x} is not legal in {board}"),
                )
            })?;
            if count == 0 || visits.iter().any(|&(m, _)| m == mv) {
                return Err(err(
                    at,
                    "a visited move listed twice or with no visits".into(),
                ));
            }
            visits.push((mv, count));
            at += 6;
        }
        board.play_unchecked(played);
        plies.push(VisitPly {
            played,
            root_value: value as f32 / u16::MAX as f32,
            sampled: flags & SAMPLED != 0,
            visits,
        });
    }
    Ok((VisitGame { start, wdl, plies }, at))
}

/// Every game of a file's bytes, and the first error inside the games if the file is
/// not whole (the games before it are all good). A bad header is an error of its own.
pub fn read_games(bytes: &[u8]) -> Result<(Vec<VisitGame>, Option<FormatError>), String> {
    check_header(bytes)?;
    let mut games = Vec::new();
    let mut offset = HEADER_BYTES;
    while offset < bytes.len() {
        match read_game(bytes, offset) {
            Ok((game, next)) => {
                games.push(game);
                offset = next;
            }
            Err(e) => return Ok((games, Some(e))),
        }
    }
    Ok((games, None))
}

/// Reads a whole `.mcv` file; any error (the path named) fails the read.
pub fn read_file(path: &std::path::Path) -> Result<Vec<VisitGame>, String> {
    let bytes =
        std::fs::read(path).map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
    match read_games(&bytes).map_err(|e| format!("'{}': {e}", path.display()))? {
        (games, None) => Ok(games),
        (_, Some(e)) => Err(format!("'{}' {e}", path.display())),
    }
}

/// Length of the readable prefix (header and whole games): where a rerun appends.
/// An empty file has none (0: the header is to be written).
pub fn whole_games_len(bytes: &[u8]) -> usize {
    if check_header(bytes).is_err() {
        return 0;
    }
    let mut offset = HEADER_BYTES;
    while offset < bytes.len() {
        match read_game(bytes, offset) {
            Ok((_, next)) => offset = next,
            Err(_) => break,
        }
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::{legal_moves, parse_fen};

    /// A short game with made-up visits: every legal move visited, the first one most.
    fn sample_game() -> VisitGame {
        let start =
            parse_fen("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
                .unwrap();
        let mut board = start.clone();
        let mut plies = Vec::new();
        for k in 0..6 {
            let moves = legal_moves(&board);
            let visits: Vec<(Move, u32)> = moves
                .iter()
                .enumerate()
                .map(|(i, &m)| (m, if i == 0 { 300 } else { 1 + i as u32 }))
                .collect();
            let played = moves[k % moves.len()];
            plies.push(VisitPly {
                played,
                root_value: (k as f32 * 0.13) % 1.0,
                sampled: k % 2 == 0,
                visits,
            });
            board.play_unchecked(played);
        }
        VisitGame {
            start,
            wdl: 2,
            plies,
        }
    }

    fn file(games: &[VisitGame]) -> Vec<u8> {
        let mut out = header().to_vec();
        for g in games {
            write_game(&mut out, g).unwrap();
        }
        out
    }

    #[test]
    fn games_round_trip() {
        let game = sample_game();
        let bytes = file(&[game.clone(), game.clone()]);
        let (read, error) = read_games(&bytes).unwrap();
        assert_eq!(error, None);
        assert_eq!(read.len(), 2);
        for g in &read {
            assert_eq!((&g.start, g.wdl), (&game.start, game.wdl));
            for (a, b) in g.plies.iter().zip(&game.plies) {
                assert_eq!(
                    (a.played, a.sampled, &a.visits),
                    (b.played, b.sampled, &b.visits)
                );
                assert!((a.root_value - b.root_value).abs() < 1e-4);
            }
            assert_eq!(g.plies[0].most_visited(), Some(g.plies[0].visits[0].0));
        }
        assert_eq!(whole_games_len(&bytes), bytes.len());
    }

    #[test]
    fn a_truncated_file_keeps_its_whole_games_and_names_the_offset() {
        let game = sample_game();
        let bytes = file(&[game.clone(), game]);
        let one = file(&[sample_game()]).len();
        let cut = &bytes[..bytes.len() - 3];
        let (read, error) = read_games(cut).unwrap();
        assert_eq!(read.len(), 1);
        let error = error.expect("the cut game is an error");
        assert!(
            error.what.contains("truncated") && error.offset >= one,
            "{error}"
        );
        assert_eq!(whole_games_len(cut), one);
    }

    #[test]
    fn corrupt_bytes_and_headers_are_clear_errors() {
        let mut bytes = file(&[sample_game()]);
        // The first visited move's from-square of the first position: now illegal.
        let at = HEADER_BYTES + BOARD_BYTES + 2 + 6;
        bytes[at] ^= 0x3f;
        let (read, error) = read_games(&bytes).unwrap();
        assert!(read.is_empty());
        assert!(error.unwrap().what.contains("not legal"));
        let err = read_games(b"RVF?\x01\x00\x00\x00").unwrap_err();
        assert!(err.contains("not an .mcv file"), "{err}");
        let err = read_games(b"RMCV\x09\x00\x00\x00").unwrap_err();
        assert!(err.contains("version 9"), "{err}");
        assert!(read_games(b"RM").unwrap_err().contains("too short"));
        assert_eq!(whole_games_len(b""), 0);
    }
}
