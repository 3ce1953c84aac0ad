//! The network's input features: the exact 782-entry layout, computed the same way for
//! the trainer (full feature lists) and for the engine (differences between two boards).
//!
//! One perspective `P` (White or Black) sees the board with its own pieces as "ours".
//! For Black the board is mirrored vertically (rank r becomes 7 − r, files unchanged) and
//! the colours are swapped, so both perspectives use the same weights.
//!
//! | index      | feature                                                            |
//! |------------|--------------------------------------------------------------------|
//! | 0..384     | our pieces: `64 * piece + square` (P, N, B, R, Q, K; a1 = 0, h8 = 63) |
//! | 384..768   | their pieces: `384 + 64 * piece + square`                           |
//! | 768        | side to move is `P`                                                 |
//! | 769, 770   | our castling rights: short (king side), long (queen side)          |
//! | 771, 772   | their castling rights: short, long                                  |
//! | 773..781   | en-passant file a..h (only when the side to move has a pawn that could capture) |
//! | 781        | halfmove clock, `min(hmc, 100) / 100` (the only non-binary input)   |
//!
//! Horizontal mirroring (a property of the net, see `network`): a perspective whose own
//! king stands on files a–d sees the board mirrored left to right (file f becomes 7 − f
//! in the piece features and the en-passant file), so its king always appears on files
//! e–h. The 782 inputs stay the same; one set of weights serves both wings, which
//! halves what the net must learn from the data. The castling features keep their
//! meaning (short, long).

use cozy_chess::{BitBoard, Board, Color, File, Piece, Rank, Square};

use super::shape::INPUTS;

/// Largest halfmove clock value the input distinguishes (the input is `hmc / HMC_MAX`).
pub const HMC_MAX: usize = 100;
/// First auxiliary feature (side to move).
pub const STM: usize = 768;
/// First castling feature.
pub const CASTLE: usize = 769;
/// First en-passant file feature.
pub const EP: usize = 773;
/// The halfmove-clock feature (non-binary).
pub const HMC: usize = 781;

/// The output bucket of a position with `pieces` pieces on the board (kings included, so
/// 2..=32) for a net with `buckets` output buckets: the piece counts split into
/// `buckets` ranges of equal width, fewest pieces first. With 8 buckets: 2–5 pieces → 0,
/// …, 30–32 → 7. One bucket means one output for every position.
#[inline]
pub fn output_bucket(pieces: usize, buckets: usize) -> usize {
    (pieces.saturating_sub(2) * buckets / 31).min(buckets - 1)
}

/// Largest number of binary features that can be active in one perspective
/// (32 pieces + side to move + 4 castling + 1 en passant).
pub const MAX_ACTIVE: usize = 38;

/// Square as seen by `persp`.
#[inline(always)]
fn rel_square(persp: Color, sq: Square) -> usize {
    match persp {
        Color::White => sq as usize,
        Color::Black => sq as usize ^ 56,
    }
}

/// Index of a piece feature from `persp`'s point of view.
#[inline(always)]
pub fn piece_index(persp: Color, color: Color, piece: Piece, sq: Square) -> usize {
    let side = if color == persp { 0 } else { 384 };
    side + 64 * piece as usize + rel_square(persp, sq)
}

/// The en-passant file as a feature: set only when the side to move has a pawn next to
/// the double-pushed pawn (a pseudo-legal capture exists). This makes FENs that always
/// write the ep square and FENs that write it only for legal captures look the same.
#[inline]
pub fn ep_file(board: &Board) -> Option<File> {
    let file = board.en_passant()?;
    let stm = board.side_to_move();
    let rank = Rank::Fifth.relative_to(stm);
    let mut adjacent = BitBoard::EMPTY;
    if file as usize > 0 {
        adjacent |= Square::new(File::index(file as usize - 1), rank).bitboard();
    }
    if (file as usize) < 7 {
        adjacent |= Square::new(File::index(file as usize + 1), rank).bitboard();
    }
    if (adjacent & board.colored_pieces(stm, Piece::Pawn)).is_empty() {
        None
    } else {
        Some(file)
    }
}

/// Whether `persp` sees the board mirrored in a net with horizontal mirroring: its king
/// stands on files a–d.
#[inline(always)]
pub fn mirrored(board: &Board, persp: Color) -> bool {
    (board.king(persp).file() as usize) < 4
}

/// Feature `f` seen mirrored left to right: a piece's file or the en-passant file becomes
/// 7 − file (for a piece feature that is the low three bits); others stay.
#[inline(always)]
pub fn mirror_feature(f: usize) -> usize {
    if f < STM {
        f ^ 7
    } else if (EP..EP + 8).contains(&f) {
        EP + 7 - (f - EP)
    } else {
        f
    }
}

/// Auxiliary binary features of the castling rights and en-passant file (not the side to
/// move) from `persp`'s point of view, as a bit set over indices `768..781` (bit i ↔ 768 + i).
#[inline]
pub fn aux_bits(board: &Board, persp: Color) -> u32 {
    let mut bits = 0u32;
    for (k, color) in [persp, !persp].into_iter().enumerate() {
        let rights = board.castle_rights(color);
        if rights.short.is_some() {
            bits |= 1 << (CASTLE - STM + 2 * k);
        }
        if rights.long.is_some() {
            bits |= 1 << (CASTLE - STM + 2 * k + 1);
        }
    }
    if let Some(f) = ep_file(board) {
        bits |= 1 << (EP - STM + f as usize);
    }
    bits
}

/// Converts White-view [`aux_bits`] to Black's view (swaps the "our" and "their"
/// castling pairs, bits 1,2 ↔ 3,4; the en-passant file is the same).
#[inline(always)]
pub fn black_view(white_bits: u32) -> u32 {
    (white_bits & !0b11110) | ((white_bits >> 2) & 0b110) | ((white_bits << 2) & 0b11000)
}

/// The halfmove-clock input value, clamped to 100 (used as `hmc / 100`).
#[inline(always)]
pub fn hmc(board: &Board) -> usize {
    (board.halfmove_clock() as usize).min(HMC_MAX)
}

/// All active binary features of `persp` (pieces, side to move, castling, en passant),
/// appended to `out`, seen mirrored when `mirroring` (a net with horizontal mirroring)
/// and [`mirrored`]. The halfmove clock is not included; see [`hmc`].
pub fn active(board: &Board, persp: Color, mirroring: bool, out: &mut Vec<u16>) {
    let start = out.len();
    active_unmirrored(board, persp, out);
    if mirroring && mirrored(board, persp) {
        for f in &mut out[start..] {
            *f = mirror_feature(*f as usize) as u16;
        }
    }
}

fn active_unmirrored(board: &Board, persp: Color, out: &mut Vec<u16>) {
    for color in [Color::White, Color::Black] {
        for piece in Piece::ALL {
            for sq in board.colored_pieces(color, piece) {
                out.push(piece_index(persp, color, piece, sq) as u16);
            }
        }
    }
    aux_features(board, persp, out);
}

/// The active features of `persp` past the pieces (side to move, castling, en passant),
/// appended to `out`.
pub fn aux_features(board: &Board, persp: Color, out: &mut Vec<u16>) {
    if board.side_to_move() == persp {
        out.push(STM as u16);
    }
    let bits = aux_bits(board, persp);
    for i in 0..13 {
        if bits & (1 << i) != 0 {
            out.push((STM + i) as u16);
        }
    }
}

/// Dense feature vector of `persp` (782 floats, halfmove clock included); `mirroring`
/// as in [`active`].
pub fn dense(board: &Board, persp: Color, mirroring: bool) -> Vec<f32> {
    let mut v = vec![0f32; INPUTS];
    let mut idx = Vec::with_capacity(MAX_ACTIVE);
    active(board, persp, mirroring, &mut idx);
    for i in idx {
        v[i as usize] = 1.0;
    }
    v[HMC] = hmc(board) as f32 / HMC_MAX as f32;
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_buckets_split_piece_counts_evenly() {
        let eight: Vec<usize> = (2..=32).map(|n| output_bucket(n, 8)).collect();
        let mut want = Vec::new();
        for b in 0..8 {
            want.extend(std::iter::repeat_n(b, if b == 7 { 3 } else { 4 }));
        }
        assert_eq!(eight, want);
        assert!((2..=32).all(|n| output_bucket(n, 1) == 0));
        for buckets in 1..=crate::eval::shape::MAX_BUCKETS {
            let all: Vec<usize> = (2..=32).map(|n| output_bucket(n, buckets)).collect();
            assert!(
                all.windows(2).all(|w| w[0] <= w[1]),
                "not monotone for {buckets}"
            );
            assert_eq!((all[0], all[30]), (0, buckets - 1), "ends for {buckets}");
        }
    }

    #[test]
    fn start_position_features() {
        let b = Board::default();
        let mut w = Vec::new();
        active(&b, Color::White, false, &mut w);
        // 32 pieces + side to move + 4 castling rights.
        assert_eq!(w.len(), 37);
        let mut bl = Vec::new();
        active(&b, Color::Black, false, &mut bl);
        // Black sees 32 pieces + 4 castling rights, not side to move.
        assert_eq!(bl.len(), 36);
        // The start position is symmetric: Black's piece features equal White's.
        assert_eq!(
            w[..32]
                .iter()
                .copied()
                .collect::<std::collections::BTreeSet<_>>(),
            bl[..32]
                .iter()
                .copied()
                .collect::<std::collections::BTreeSet<_>>()
        );
        assert!(
            w.contains(&(piece_index(Color::White, Color::White, Piece::King, Square::E1) as u16))
        );
        assert_eq!(
            piece_index(Color::Black, Color::Black, Piece::King, Square::E8),
            4 + 5 * 64
        );
    }

    #[test]
    fn ep_feature_needs_adjacent_pawn() {
        // Double push with no black pawn next to it: no ep feature.
        let b: Board = "4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1".parse().expect("fen");
        assert_eq!(ep_file(&b), None);
        let b: Board = "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1".parse().expect("fen");
        assert_eq!(ep_file(&b), Some(File::E));
        assert_eq!(aux_bits(&b, Color::White), 1 << (EP - STM + 4));
    }

    #[test]
    fn mirroring_puts_the_king_on_files_e_to_h() {
        // White's king on c1 (mirrored for White), Black's on g8 (not mirrored); a white
        // pawn on d5 next to a black pawn that just came to e5: en passant on file e.
        let b: Board = "6k1/8/8/3Pp3/8/8/8/2K5 w - e6 0 2".parse().expect("fen");
        assert!(mirrored(&b, Color::White) && !mirrored(&b, Color::Black));
        let feats = |persp, mirroring| {
            let mut v = Vec::new();
            active(&b, persp, mirroring, &mut v);
            v.sort_unstable();
            v
        };
        let mut want: Vec<u16> = [
            piece_index(Color::White, Color::White, Piece::King, Square::F1), // c1
            piece_index(Color::White, Color::White, Piece::Pawn, Square::E5), // d5
            piece_index(Color::White, Color::Black, Piece::Pawn, Square::D5), // e5
            piece_index(Color::White, Color::Black, Piece::King, Square::B8), // g8
            STM,
            EP + 3, // file e seen as d
        ]
        .iter()
        .map(|&f| f as u16)
        .collect();
        want.sort_unstable();
        assert_eq!(feats(Color::White, true), want);
        // Not mirrored: Black's view is the same with or without mirroring.
        assert_eq!(feats(Color::Black, true), feats(Color::Black, false));
        // Mirroring twice is the identity, and it keeps features apart.
        for f in 0..INPUTS {
            assert_eq!(mirror_feature(mirror_feature(f)), f);
        }
        let images: std::collections::HashSet<usize> = (0..INPUTS).map(mirror_feature).collect();
        assert_eq!(images.len(), INPUTS);
    }

    #[test]
    fn black_view_swaps_castling_pairs() {
        for fen in [
            "r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1",
            "r3k2r/8/8/8/8/8/8/R3K2R b Qk - 0 1",
            "r3k2r/8/8/8/3pP3/8/8/R3K2R b KQkq e3 0 1",
        ] {
            let b: Board = fen.parse().expect("fen");
            assert_eq!(
                black_view(aux_bits(&b, Color::White)),
                aux_bits(&b, Color::Black),
                "{fen}"
            );
        }
    }
}
