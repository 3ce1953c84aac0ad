//! Training data: reads `FEN | score_cp_white | result_white` lines (plain text or gzip)
//! and self-play game files (`.vf`, `data::format`),
//! keeps each position compactly (White-view piece features, auxiliary bits, halfmove
//! clock, labels) and builds dense [B, 782] feature matrices for both perspectives.

use std::io::{BufRead, BufReader, Read};

use std::sync::Arc;

use cozy_chess::Color;

use super::sparse::{SparseBatch, PAD};

use crate::eval::features::{self, STM};

/// Positions in compact form.
#[derive(Default)]
pub struct Dataset {
    /// White-view piece feature indices (0..768) of all positions, concatenated.
    pieces: Vec<u16>,
    /// `pieces[offsets[i]..offsets[i + 1]]` belongs to position i.
    offsets: Vec<u32>,
    /// Bit 15: Black to move; bits 1..13: `aux_bits(board, White)`.
    aux: Vec<u16>,
    hmc: Vec<u8>,
    /// Labels from White's view.
    cp: Vec<f32>,
    result: Vec<f32>,
    /// Loss weight of the positions from `spans[k].0` on (one span per file read; see
    /// [`Self::begin_source`]); positions before the first span weigh 1.
    spans: Vec<(usize, f32)>,
    /// Features for a horizontally mirrored net (`features::mirrored`).
    pub mirroring: bool,
}

/// White-view piece features of the two kings.
const WHITE_KING: std::ops::Range<u16> = 320..384;
const BLACK_KING: std::ops::Range<u16> = 704..768;

/// Counters of a load.
#[derive(Default, Debug)]
pub struct LoadStats {
    pub lines: usize,
    pub bad: usize,
    pub first_bad: Option<String>,
}

const BLACK_TO_MOVE: u16 = 1 << 15;

impl Dataset {
    pub fn len(&self) -> usize {
        self.cp.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cp.is_empty()
    }

    /// Positions added from now on weigh `weight` in the loss (mixing data sets).
    pub fn begin_source(&mut self, weight: f32) {
        self.spans.push((self.len(), weight));
    }

    /// True if some position weighs other than 1.
    pub fn is_weighted(&self) -> bool {
        self.spans.iter().any(|&(_, w)| w != 1.0)
    }

    /// Loss weight of position `i`.
    pub fn weight(&self, i: usize) -> f32 {
        match self.spans.partition_point(|&(start, _)| start <= i) {
            0 => 1.0,
            k => self.spans[k - 1].1,
        }
    }

    /// Parses one line; `None` if it is malformed.
    fn parse_line(line: &str) -> Option<(cozy_chess::Board, f32, f32)> {
        let mut parts = line.split('|');
        let fen = parts.next()?.trim();
        let cp: f32 = parts.next()?.trim().parse().ok()?;
        let result: f32 = parts.next()?.trim().parse().ok()?;
        if parts.next().is_some() || !cp.is_finite() || !(0.0..=1.0).contains(&result) {
            return None;
        }
        let board = crate::chess::parse_fen(fen).ok()?;
        Some((board, cp, result))
    }

    /// Adds one parsed position.
    pub fn push(&mut self, board: &cozy_chess::Board, cp: f32, result: f32) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        for color in [Color::White, Color::Black] {
            for piece in cozy_chess::Piece::ALL {
                for sq in board.colored_pieces(color, piece) {
                    self.pieces
                        .push(features::piece_index(Color::White, color, piece, sq) as u16);
                }
            }
        }
        self.offsets.push(self.pieces.len() as u32);
        let mut aux = features::aux_bits(board, Color::White) as u16;
        if board.side_to_move() == Color::Black {
            aux |= BLACK_TO_MOVE;
        }
        self.aux.push(aux);
        self.hmc.push(features::hmc(board) as u8);
        self.cp.push(cp);
        self.result.push(result);
    }

    /// Reads lines from `reader` until `max` positions are held in total.
    pub fn read_from(&mut self, reader: impl BufRead, max: usize, stats: &mut LoadStats) {
        for line in reader.lines() {
            if self.len() >= max {
                break;
            }
            let line = match line {
                Ok(l) => l,
                Err(e) => {
                    stats.bad += 1;
                    stats
                        .first_bad
                        .get_or_insert_with(|| format!("read error: {e}"));
                    break;
                }
            };
            if line.trim().is_empty() {
                continue;
            }
            stats.lines += 1;
            match Self::parse_line(&line) {
                Some((board, cp, result)) => self.push(&board, cp, result),
                None => {
                    stats.bad += 1;
                    stats.first_bad.get_or_insert(line);
                }
            }
        }
    }

    /// Reads a self-play game file (`.vf`, see `data::format`): its training positions.
    /// A file that is not whole is an error naming the offset; nothing of it is used.
    pub fn read_games_file(
        &mut self,
        path: &str,
        max: usize,
        stats: &mut LoadStats,
    ) -> Result<(), String> {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read '{path}': {e}"))?;
        let (games, error) = crate::data::format::read_games(&bytes);
        if let Some(e) = error {
            return Err(format!(
                "'{path}' is damaged {e}; check it with `rookery data stats`"
            ));
        }
        for game in &games {
            for s in crate::data::format::samples(game) {
                if self.len() >= max {
                    return Ok(());
                }
                stats.lines += 1;
                self.push(&s.board, s.score_white as f32, s.result_white);
            }
        }
        Ok(())
    }

    /// Reads a plain-text or gzip file (detected by its magic bytes), or a self-play game
    /// file (by its `.vf` extension).
    pub fn read_file(
        &mut self,
        path: &str,
        max: usize,
        stats: &mut LoadStats,
    ) -> Result<(), String> {
        if path.ends_with(".vf") {
            return self.read_games_file(path, max, stats);
        }
        let mut file =
            std::fs::File::open(path).map_err(|e| format!("cannot open '{path}': {e}"))?;
        let mut magic = [0u8; 2];
        let n = file
            .read(&mut magic)
            .map_err(|e| format!("cannot read '{path}': {e}"))?;
        let file = std::fs::File::open(path).map_err(|e| format!("cannot open '{path}': {e}"))?;
        if n == 2 && magic == [0x1f, 0x8b] {
            let gz = flate2::read::MultiGzDecoder::new(file);
            self.read_from(BufReader::with_capacity(1 << 20, gz), max, stats);
        } else {
            self.read_from(BufReader::with_capacity(1 << 20, file), max, stats);
        }
        Ok(())
    }

    /// True if Black is to move in position `i`.
    pub fn black_to_move(&self, i: usize) -> bool {
        self.aux[i] & BLACK_TO_MOVE != 0
    }

    /// Number of pieces on the board in position `i` (kings included).
    pub fn pieces(&self, i: usize) -> usize {
        (self.offsets[i + 1] - self.offsets[i]) as usize
    }

    /// Training target of position `i` from the side to move's view:
    /// `lambda * result + (1 - lambda) * sigmoid(cp / scale)`.
    pub fn target(&self, i: usize, lambda: f32, scale: f32) -> f32 {
        let (cp, res) = if self.black_to_move(i) {
            (-self.cp[i], 1.0 - self.result[i])
        } else {
            (self.cp[i], self.result[i])
        };
        lambda * res + (1.0 - lambda) / (1.0 + (-cp / scale).exp())
    }

    /// Writes the dense features of position `i` into `stm` and `other` (each 782 long,
    /// zeroed by the caller): the reference the sparse batches are tested against.
    #[cfg(test)]
    pub fn fill(&self, i: usize, stm: &mut [f32], other: &mut [f32]) {
        let black = self.black_to_move(i);
        let (white_row, black_row) = if black { (other, stm) } else { (stm, other) };
        let ps = &self.pieces[self.offsets[i] as usize..self.offsets[i + 1] as usize];
        let (mw, mb) = self.mirrored(i);
        let (ow, ob) = (orient(mw), orient(mb));
        for &f in ps {
            white_row[ow(f as usize)] = 1.0;
            black_row[ob(flip(f as usize))] = 1.0;
        }
        let aux = (self.aux[i] & 0x1ffe) as u32;
        let black_aux = features::black_view(aux);
        for bit in 1..13 {
            if aux & (1 << bit) != 0 {
                white_row[ow(STM + bit)] = 1.0;
            }
            if black_aux & (1 << bit) != 0 {
                black_row[ob(STM + bit)] = 1.0;
            }
        }
        let h = self.hmc[i] as f32 / features::HMC_MAX as f32;
        white_row[features::HMC] = h;
        black_row[features::HMC] = h;
        if black {
            black_row[STM] = 1.0;
        } else {
            white_row[STM] = 1.0;
        }
    }

    /// Whether White's and Black's views of position `i` are mirrored (always false
    /// unless `mirroring`).
    fn mirrored(&self, i: usize) -> (bool, bool) {
        if !self.mirroring {
            return (false, false);
        }
        let ps = &self.pieces[self.offsets[i] as usize..self.offsets[i + 1] as usize];
        let file_of = |kings: std::ops::Range<u16>| {
            ps.iter().find(|f| kings.contains(f)).map_or(4, |&f| f & 7)
        };
        (file_of(WHITE_KING) < 4, file_of(BLACK_KING) < 4)
    }
}

impl Dataset {
    /// Sparse batch (side to move, other) and targets for `ids`: the active features of
    /// each perspective straight from the compact form, in ascending order, exactly the
    /// lists `SparseBatch::push_dense` would take from the dense rows of `Self::fill`.
    pub fn sparse_batch(&self, ids: &[usize], lambda: f32, scale: f32, bufs: &mut SparseBufs) {
        let (mut stm, mut other) = (SparseBatch::default(), SparseBatch::default());
        for batch in [&mut stm, &mut other] {
            batch.idx.reserve(ids.len() * features::MAX_ACTIVE);
            batch.hmc.reserve(ids.len());
        }
        bufs.target.clear();
        bufs.weight.clear();
        bufs.pieces.clear();
        let mut white = Vec::with_capacity(features::MAX_ACTIVE);
        let mut black = Vec::with_capacity(features::MAX_ACTIVE);
        for &i in ids {
            self.active_lists(i, &mut white, &mut black);
            let (s, o) = if self.black_to_move(i) {
                (&black, &white)
            } else {
                (&white, &black)
            };
            let h = self.hmc[i] as f32 / features::HMC_MAX as f32;
            for (batch, list) in [(&mut stm, s), (&mut other, o)] {
                batch.idx.extend_from_slice(list);
                batch
                    .idx
                    .resize(batch.idx.len() + features::MAX_ACTIVE - list.len(), PAD);
                batch.hmc.push(h);
            }
            bufs.target.push(self.target(i, lambda, scale));
            bufs.weight.push(self.weight(i));
            bufs.pieces.push(self.pieces(i) as u8);
        }
        bufs.weighted = self.is_weighted();
        bufs.stm = Arc::new(stm);
        bufs.other = Arc::new(other);
    }

    /// The active binary features of position `i` from White's and Black's view, each in
    /// ascending order (pieces, then side to move, castling, en passant).
    fn active_lists(&self, i: usize, white: &mut Vec<u16>, black: &mut Vec<u16>) {
        white.clear();
        black.clear();
        let ps = &self.pieces[self.offsets[i] as usize..self.offsets[i + 1] as usize];
        let (mw, mb) = self.mirrored(i);
        let (ow, ob) = (orient(mw), orient(mb));
        white.extend(ps.iter().map(|&f| ow(f as usize) as u16));
        black.extend(ps.iter().map(|&f| ob(flip(f as usize)) as u16));
        white.sort_unstable();
        black.sort_unstable();
        let to_move = if self.black_to_move(i) {
            &mut *black
        } else {
            &mut *white
        };
        to_move.push(STM as u16);
        let aux = (self.aux[i] & 0x1ffe) as u32;
        let views = [
            (&mut *white, aux, ow),
            (&mut *black, features::black_view(aux), ob),
        ];
        for (list, bits, o) in views {
            // Ascending still: castling is unchanged and at most one en-passant file is set.
            for bit in 1..13 {
                if bits & (1 << bit) != 0 {
                    list.push(o(STM + bit) as u16);
                }
            }
            list.truncate(features::MAX_ACTIVE);
        }
    }
}

/// Sparse batch buffers.
#[derive(Default)]
pub struct SparseBufs {
    pub stm: Arc<SparseBatch>,
    pub other: Arc<SparseBatch>,
    pub target: Vec<f32>,
    /// Loss weight per position, used when `weighted`.
    pub weight: Vec<f32>,
    pub weighted: bool,
    /// Pieces on the board per position (picks the output bucket).
    pub pieces: Vec<u8>,
}

/// A feature as a perspective sees it: mirrored left to right or not.
fn orient(mirrored: bool) -> fn(usize) -> usize {
    if mirrored {
        features::mirror_feature
    } else {
        std::convert::identity
    }
}

/// White-view piece feature → Black-view piece feature (swap colours, mirror ranks).
#[inline]
pub fn flip(f: usize) -> usize {
    let swapped = if f < 384 { f + 384 } else { f - 384 };
    swapped ^ 56
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::shape::INPUTS;

    /// The compact form rebuilds exactly the features the engine computes.
    #[test]
    fn dense_rows_match_engine_features() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b Kq - 17 1",
            "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1",
            "4k3/8/8/3Pp3/8/8/8/4K3 w - e6 0 1",
            // Kings on files a–d (mirrored views), castling rights, en passant.
            "1k5r/8/8/8/2pP4/8/8/R2K4 b - d3 0 1",
            "6k1/8/8/3Pp3/8/8/8/2K5 w - e6 0 2",
            // Double Chess960 with rights partly lost (Shredder FEN).
            "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFc - 0 1",
            "1rk2rr1/8/8/8/8/8/8/1RK2RR1 b Fb - 0 1",
        ];
        let mut ds = Dataset::default();
        for fen in fens {
            ds.push(&crate::chess::parse_fen(fen).expect("fen"), 10.0, 0.5);
        }
        for mirroring in [false, true] {
            ds.mirroring = mirroring;
            for (i, fen) in fens.iter().enumerate() {
                let b = crate::chess::parse_fen(fen).expect("fen");
                let mut s = vec![0.0; INPUTS];
                let mut o = vec![0.0; INPUTS];
                ds.fill(i, &mut s, &mut o);
                let stm = b.side_to_move();
                assert_eq!(s, features::dense(&b, stm, mirroring), "{fen}");
                assert_eq!(o, features::dense(&b, !stm, mirroring), "{fen}");
            }
        }
    }

    /// A Chess960 castling right is the feature of its side of the king (short: the rook
    /// right of it), whatever file the rook stands on, as the standard h- and a-file
    /// rights are.
    #[test]
    fn chess960_rights_are_the_short_and_long_features() {
        // White: king g1, short right (h-rook) and long right (f-rook); Black: king b8,
        // short right (c-rook) only.
        let fen = "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFc - 0 1";
        let board = crate::chess::parse_fen(fen).expect("fen");
        let mut ds = Dataset::default();
        ds.push(&board, 0.0, 0.5);
        let mut white = vec![0.0; INPUTS];
        let mut black = vec![0.0; INPUTS];
        ds.fill(0, &mut white, &mut black);
        let castling = |row: &[f32]| row[features::CASTLE..features::EP].to_vec();
        // Our short, our long, their short, their long.
        assert_eq!(castling(&white), [1.0, 1.0, 1.0, 0.0]);
        assert_eq!(castling(&black), [1.0, 0.0, 1.0, 1.0]);
    }

    /// A self-play file of a double Chess960 game (castling both ways on the way) gives
    /// the trainer every training position, with the engine's features.
    #[test]
    fn chess960_game_files_load_with_the_engine_features() {
        use crate::data::format::{self, Game};
        // White BQNNRKRB (Scharnagl 3) castles short, its king taking the g-rook; Black
        // nnrkbbqr (74) castles long, its king taking the c-rook.
        let start = cozy_chess::Board::double_chess960_startpos(3, 74);
        let line = "e2e4 e7e5 f1g1 d8c8 d1e3 a8b6 g2g3 h7h6";
        let mut board = start.clone();
        let mut moves = Vec::new();
        for text in line.split(' ') {
            let mv = crate::chess::parse_uci_move(&board, text).expect(text);
            moves.push((mv, 15));
            board.play(mv);
        }
        assert_eq!(board.king(Color::White), cozy_chess::Square::G1);
        assert_eq!(board.king(Color::Black), cozy_chess::Square::C8);
        let game = Game {
            start,
            moves,
            wdl: 1,
        };
        let path = std::env::temp_dir().join(format!("rookery-c960-{}.vf", std::process::id()));
        let mut bytes = Vec::new();
        format::write_game(&mut bytes, &game);
        std::fs::write(&path, bytes).expect("write");
        let mut ds = Dataset::default();
        let mut stats = LoadStats::default();
        ds.read_file(&path.to_string_lossy(), usize::MAX, &mut stats)
            .expect("reads");
        std::fs::remove_file(&path).ok();
        let samples = format::samples(&game);
        assert_eq!(ds.len(), samples.len());
        assert!(samples.len() >= 6);
        for (i, s) in samples.iter().enumerate() {
            let mut row = vec![0.0; INPUTS];
            let mut other = vec![0.0; INPUTS];
            ds.fill(i, &mut row, &mut other);
            let stm = s.board.side_to_move();
            assert_eq!(row, features::dense(&s.board, stm, false), "{:#}", s.board);
            assert_eq!(other, features::dense(&s.board, !stm, false));
        }
    }

    #[test]
    fn sparse_batches_equal_the_dense_rows() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b Kq - 17 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w Qk - 3 1",
            "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1",
            "4k3/8/8/3Pp3/8/8/8/4K3 w - e6 0 1",
            "8/8/8/8/8/8/8/K6k b - - 99 80",
            "1k5r/8/8/8/2pP4/8/8/R2K4 b - d3 0 1",
        ];
        let mut ds = Dataset::default();
        for fen in fens {
            ds.push(&crate::chess::parse_fen(fen).expect("fen"), -35.0, 0.0);
        }
        let ids: Vec<usize> = (0..fens.len()).rev().chain(0..fens.len()).collect();
        for mirroring in [false, true] {
            ds.mirroring = mirroring;
            let mut bufs = SparseBufs::default();
            ds.sparse_batch(&ids, 0.3, 400.0, &mut bufs);
            let (mut stm, mut other) = (SparseBatch::default(), SparseBatch::default());
            for &i in &ids {
                let mut s = vec![0.0; INPUTS];
                let mut o = vec![0.0; INPUTS];
                ds.fill(i, &mut s, &mut o);
                stm.push_dense(&s);
                other.push_dense(&o);
            }
            assert_eq!(bufs.stm.idx, stm.idx);
            assert_eq!(bufs.stm.hmc, stm.hmc);
            assert_eq!(bufs.other.idx, other.idx);
            assert_eq!(bufs.other.hmc, other.hmc);
            let targets: Vec<f32> = ids.iter().map(|&i| ds.target(i, 0.3, 400.0)).collect();
            assert_eq!(bufs.target, targets);
        }
    }

    #[test]
    fn sources_carry_their_weights() {
        let line = "8/8/8/8/8/8/8/K6k w - - 0 1 | 0 | 0.5\n";
        let mut ds = Dataset::default();
        let mut st = LoadStats::default();
        ds.read_from(line.as_bytes(), usize::MAX, &mut st);
        assert!(!ds.is_weighted());
        ds.begin_source(3.0);
        ds.read_from(line.repeat(2).as_bytes(), usize::MAX, &mut st);
        ds.begin_source(1.0);
        ds.read_from(line.as_bytes(), usize::MAX, &mut st);
        assert!(ds.is_weighted());
        let weights: Vec<f32> = (0..ds.len()).map(|i| ds.weight(i)).collect();
        assert_eq!(weights, [1.0, 3.0, 3.0, 1.0]);
        let mut bufs = SparseBufs::default();
        ds.sparse_batch(&[3, 1, 0], 0.3, 400.0, &mut bufs);
        assert_eq!(bufs.weight, [1.0, 3.0, 1.0]);
        assert!(bufs.weighted);
    }

    #[test]
    fn bad_lines_are_counted() {
        let text = "8/8/8/8/8/8/8/K6k w - - 0 1 | 0 | 0.5\nnot a fen | 3 | 1.0\n\
                    8/8/8/8/8/8/8/K6k w - - 0 1 | x | 0.5\n8/8/8/8/8/8/8/K6k b - - 0 1 | -20 | 0.0\n";
        let mut ds = Dataset::default();
        let mut st = LoadStats::default();
        ds.read_from(text.as_bytes(), usize::MAX, &mut st);
        assert_eq!((ds.len(), st.lines, st.bad), (2, 4, 2));
        // Black to move, White lost: from Black's view a win; cp -20 White → +20 for Black.
        let t = ds.target(1, 1.0, 400.0);
        assert_eq!(t, 1.0);
        let t = ds.target(1, 0.0, 400.0);
        assert!(t > 0.5 && t < 0.52, "{t}");
    }
}
