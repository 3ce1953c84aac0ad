//! The human-game file format (`.rkh`): whole games with both players' ratings, stored
//! compactly, from which every (position, move played, ratings, time control, clock)
//! sample is recovered by replaying the moves.
//!
//! A file is a gzip stream (flate2) of:
//! - the header: magic `RKHUMAN\0`, format version (u16 LE), then games until the end;
//! - per game, a 16-byte record header (all integers little-endian):
//!   `white_rating u16, black_rating u16, scale u8, source u8, flags u8, result u8,
//!   tc_base_s u16, tc_increment_s u16, tc_class u8, reserved u8, plies u16`,
//!   where flags bit 0 = validation split, bit 1 = per-move clocks, bit 2 = single-player
//!   archive; `tc_base_s = 0xFFFF` when the base is unknown;
//! - `plies` bytes, one per move: the index of the move played among the position's legal
//!   moves sorted by [`move_code`] (a position has at most 218 legal moves, so one byte
//!   suffices, and the index is legal by construction);
//! - when the clock flag is set, `plies` u32 values: the mover's clock after the move, in
//!   tenths of a second.
//!
//! The layout is documented for users in `data/human/README.md`.

use std::io::{Read, Write};

use cozy_chess::{Board, Color, Move};

use crate::chess::legal_moves;

pub const MAGIC: &[u8; 8] = b"RKHUMAN\0";
pub const VERSION: u16 = 1;
const RECORD_HEADER_BYTES: usize = 16;
const FLAG_VALIDATION: u8 = 1;
const FLAG_CLOCKS: u8 = 2;
const FLAG_SINGLE_PLAYER: u8 = 4;
/// `tc_base_s` value meaning "base time unknown" (TWIC has no `TimeControl` tag).
pub const UNKNOWN_BASE: u16 = u16::MAX;

/// Which rating system a game's numbers belong to; they are not comparable across scales
/// (chess.com and FIDE numbers differ from Lichess Glicko-2 by hundreds of points).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scale {
    Unknown = 0,
    Lichess = 1,
    ChessCom = 2,
    Fide = 3,
}

impl Scale {
    pub const ALL: [Scale; 4] = [Scale::Unknown, Scale::Lichess, Scale::ChessCom, Scale::Fide];
    pub fn from_u8(v: u8) -> Option<Scale> {
        Scale::ALL.get(v as usize).copied()
    }
    pub fn name(self) -> &'static str {
        match self {
            Scale::Unknown => "unknown",
            Scale::Lichess => "lichess",
            Scale::ChessCom => "chess.com",
            Scale::Fide => "fide",
        }
    }
}

/// The input a game came from; the single-player archives are capped at conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    OtherPgn = 0,
    KaggleLichess = 1,
    LichessArenas = 2,
    LichessElite = 3,
    LichessFgf = 4,
    LichessUserJishanshaikh4 = 5,
    LichessUserDrNykterstein = 6,
    ChessComUserApuzanov = 7,
    TwicOtb = 8,
}

impl Source {
    pub const ALL: [Source; 9] = [
        Source::OtherPgn,
        Source::KaggleLichess,
        Source::LichessArenas,
        Source::LichessElite,
        Source::LichessFgf,
        Source::LichessUserJishanshaikh4,
        Source::LichessUserDrNykterstein,
        Source::ChessComUserApuzanov,
        Source::TwicOtb,
    ];
    pub fn from_u8(v: u8) -> Option<Source> {
        Source::ALL.get(v as usize).copied()
    }
    pub fn name(self) -> &'static str {
        match self {
            Source::OtherPgn => "other-pgn",
            Source::KaggleLichess => "kaggle-lichess",
            Source::LichessArenas => "lichess-arenas",
            Source::LichessElite => "lichess-elite",
            Source::LichessFgf => "lichess-fgf",
            Source::LichessUserJishanshaikh4 => "lichess-user-jishanshaikh4",
            Source::LichessUserDrNykterstein => "lichess-user-drnykterstein",
            Source::ChessComUserApuzanov => "chesscom-user-apuzanov",
            Source::TwicOtb => "twic-otb",
        }
    }
    /// Every game of these involves the same player: correlated moves, so they are capped.
    pub fn is_single_player(self) -> bool {
        matches!(
            self,
            Source::LichessUserJishanshaikh4
                | Source::LichessUserDrNykterstein
                | Source::ChessComUserApuzanov
        )
    }
    /// The rating scale of every game of the source (`None`: decided per game).
    pub fn scale(self) -> Option<Scale> {
        match self {
            Source::OtherPgn => None,
            Source::ChessComUserApuzanov => Some(Scale::ChessCom),
            Source::TwicOtb => Some(Scale::Fide),
            _ => Some(Scale::Lichess),
        }
    }
}

/// Speed class, by Lichess's rule on base + 40 × increment (see `TimeControl::classify`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TimeClass {
    Unknown = 0,
    UltraBullet = 1,
    Bullet = 2,
    Blitz = 3,
    Rapid = 4,
    Classical = 5,
    Correspondence = 6,
    /// Over-the-board standard play whose exact control is not recorded (TWIC).
    OtbStandard = 7,
}

impl TimeClass {
    pub const ALL: [TimeClass; 8] = [
        TimeClass::Unknown,
        TimeClass::UltraBullet,
        TimeClass::Bullet,
        TimeClass::Blitz,
        TimeClass::Rapid,
        TimeClass::Classical,
        TimeClass::Correspondence,
        TimeClass::OtbStandard,
    ];
    pub fn from_u8(v: u8) -> Option<TimeClass> {
        TimeClass::ALL.get(v as usize).copied()
    }
    pub fn name(self) -> &'static str {
        match self {
            TimeClass::Unknown => "unknown",
            TimeClass::UltraBullet => "ultrabullet",
            TimeClass::Bullet => "bullet",
            TimeClass::Blitz => "blitz",
            TimeClass::Rapid => "rapid",
            TimeClass::Classical => "classical",
            TimeClass::Correspondence => "correspondence",
            TimeClass::OtbStandard => "otb-standard",
        }
    }
}

/// A game's time control: base and increment in seconds where known, and its class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TimeControl {
    /// [`UNKNOWN_BASE`] when not recorded.
    pub base_s: u16,
    pub increment_s: u16,
    pub class: TimeClass,
}

impl TimeControl {
    pub const UNKNOWN: TimeControl = TimeControl {
        base_s: UNKNOWN_BASE,
        increment_s: 0,
        class: TimeClass::Unknown,
    };

    /// Lichess's classes: base + 40 × increment < 30 s UltraBullet, < 180 Bullet,
    /// < 480 Blitz, < 1500 Rapid, else Classical (the rule SOURCE.md uses for all files).
    pub fn from_seconds(base_s: u32, increment_s: u32) -> TimeControl {
        // Saturating: a TimeControl tag is untrusted text and may hold any number.
        let estimate = base_s.saturating_add(increment_s.saturating_mul(40));
        let class = match estimate {
            0..=29 => TimeClass::UltraBullet,
            30..=179 => TimeClass::Bullet,
            180..=479 => TimeClass::Blitz,
            480..=1499 => TimeClass::Rapid,
            _ => TimeClass::Classical,
        };
        TimeControl {
            base_s: base_s.min(UNKNOWN_BASE as u32 - 1) as u16,
            increment_s: increment_s.min(u16::MAX as u32) as u16,
            class,
        }
    }
}

/// Result from White's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameResult {
    BlackWin = 0,
    Draw = 1,
    WhiteWin = 2,
    Unknown = 3,
}

impl GameResult {
    fn from_u8(v: u8) -> Option<GameResult> {
        [
            GameResult::BlackWin,
            GameResult::Draw,
            GameResult::WhiteWin,
            GameResult::Unknown,
        ]
        .get(v as usize)
        .copied()
    }
}

/// Train or validation; decided per game, never per position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Split {
    Train,
    Validation,
}

/// One game as stored: both ratings, where it came from, and its moves from the start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HumanGame {
    pub white_rating: u16,
    pub black_rating: u16,
    pub scale: Scale,
    pub source: Source,
    pub split: Split,
    pub result: GameResult,
    pub time_control: TimeControl,
    pub moves: Vec<Move>,
    /// Mover's clock after each move (tenths of a second), when the source records it.
    pub clocks: Option<Vec<u32>>,
}

/// One training sample recovered by replaying a game.
#[derive(Debug, Clone)]
pub struct HumanSample {
    pub board: Board,
    pub played: Move,
    pub mover_rating: u16,
    pub opponent_rating: u16,
    pub scale: Scale,
    pub source: Source,
    pub split: Split,
    pub time_control: TimeControl,
    /// Mover's clock after this move, tenths of a second.
    pub clock_tenths: Option<u32>,
    /// 0 for White's first move.
    pub ply: u16,
}

/// A total order on moves (from, to, promotion) that does not depend on move generation
/// order, so the stored indices survive a change of cozy-chess version.
pub fn move_code(mv: Move) -> u16 {
    let promo = mv.promotion.map_or(0, |p| p as u16 + 1);
    ((mv.from as u16) << 10) | ((mv.to as u16) << 4) | promo
}

fn sorted_legal_moves(board: &Board) -> Vec<Move> {
    let mut moves = legal_moves(board);
    moves.sort_by_key(|&mv| move_code(mv));
    moves
}

/// The game's stable 64-bit key (FNV-1a over moves and ratings): the duplicate key and
/// the seed of the train/validation split, identical on every machine and run.
pub fn game_key(moves: &[Move], white_rating: u16, black_rating: u16) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |byte: u8| {
        hash ^= byte as u64;
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    };
    for b in white_rating
        .to_le_bytes()
        .into_iter()
        .chain(black_rating.to_le_bytes())
    {
        feed(b);
    }
    for &mv in moves {
        for b in move_code(mv).to_le_bytes() {
            feed(b);
        }
    }
    hash
}

/// Validation when the key falls in the first `validation_per_mille` of 1000 buckets.
pub fn split_for(key: u64, validation_per_mille: u64) -> Split {
    // Mix before taking the bucket so nearby keys spread (FNV's low bits are weak).
    let mixed = key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
    if mixed % 1000 < validation_per_mille {
        Split::Validation
    } else {
        Split::Train
    }
}

impl HumanGame {
    /// Every (position, move played, …) of the game, by replaying from the start position.
    pub fn samples(&self) -> Vec<HumanSample> {
        let mut board = Board::default();
        let mut out = Vec::with_capacity(self.moves.len());
        for (ply, &mv) in self.moves.iter().enumerate() {
            let white_moves = board.side_to_move() == Color::White;
            let (mover_rating, opponent_rating) = if white_moves {
                (self.white_rating, self.black_rating)
            } else {
                (self.black_rating, self.white_rating)
            };
            out.push(HumanSample {
                board: board.clone(),
                played: mv,
                mover_rating,
                opponent_rating,
                scale: self.scale,
                source: self.source,
                split: self.split,
                time_control: self.time_control,
                clock_tenths: self.clocks.as_ref().and_then(|c| c.get(ply).copied()),
                ply: ply as u16,
            });
            board.play_unchecked(mv);
        }
        out
    }

    /// Appends the game's record; fails on an illegal move (the converter checks moves,
    /// so this only guards against misuse).
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), String> {
        if self.moves.len() > u16::MAX as usize {
            return Err(format!("game of {} plies is too long", self.moves.len()));
        }
        let mut flags = 0;
        if self.split == Split::Validation {
            flags |= FLAG_VALIDATION;
        }
        if self.clocks.is_some() {
            flags |= FLAG_CLOCKS;
        }
        if self.source.is_single_player() {
            flags |= FLAG_SINGLE_PLAYER;
        }
        out.extend_from_slice(&self.white_rating.to_le_bytes());
        out.extend_from_slice(&self.black_rating.to_le_bytes());
        out.extend_from_slice(&[
            self.scale as u8,
            self.source as u8,
            flags,
            self.result as u8,
        ]);
        out.extend_from_slice(&self.time_control.base_s.to_le_bytes());
        out.extend_from_slice(&self.time_control.increment_s.to_le_bytes());
        out.extend_from_slice(&[self.time_control.class as u8, 0]);
        out.extend_from_slice(&(self.moves.len() as u16).to_le_bytes());
        let mut board = Board::default();
        for &mv in &self.moves {
            let legal = sorted_legal_moves(&board);
            let index = legal
                .iter()
                .position(|&m| m == mv)
                .ok_or_else(|| format!("illegal move {mv} in {board}"))?;
            out.push(index as u8);
            board.play_unchecked(mv);
        }
        if let Some(clocks) = &self.clocks {
            if clocks.len() != self.moves.len() {
                return Err("one clock per move is required".into());
            }
            for c in clocks {
                out.extend_from_slice(&c.to_le_bytes());
            }
        }
        Ok(())
    }

    /// Reads one record at `bytes[*at..]`; `Ok(None)` at a clean end of data.
    pub fn decode(bytes: &[u8], at: &mut usize) -> Result<Option<HumanGame>, String> {
        if *at == bytes.len() {
            return Ok(None);
        }
        let start = *at;
        let truncated = || format!("record at byte {start} is truncated");
        let header = bytes
            .get(start..start + RECORD_HEADER_BYTES)
            .ok_or_else(truncated)?;
        let u16_at = |i: usize| u16::from_le_bytes([header[i], header[i + 1]]);
        let bad = |what: &str| format!("record at byte {start}: bad {what}");
        let scale = Scale::from_u8(header[4]).ok_or_else(|| bad("scale"))?;
        let source = Source::from_u8(header[5]).ok_or_else(|| bad("source"))?;
        let flags = header[6];
        let result = GameResult::from_u8(header[7]).ok_or_else(|| bad("result"))?;
        let class = TimeClass::from_u8(header[12]).ok_or_else(|| bad("time class"))?;
        let plies = u16_at(14) as usize;
        let mut pos = start + RECORD_HEADER_BYTES;
        let indices = bytes.get(pos..pos + plies).ok_or_else(truncated)?;
        pos += plies;
        let mut board = Board::default();
        let mut moves = Vec::with_capacity(plies);
        for &index in indices {
            let legal = sorted_legal_moves(&board);
            let mv = *legal
                .get(index as usize)
                .ok_or_else(|| bad("move index (not a legal move)"))?;
            moves.push(mv);
            board.play_unchecked(mv);
        }
        let clocks = if flags & FLAG_CLOCKS != 0 {
            let raw = bytes.get(pos..pos + 4 * plies).ok_or_else(truncated)?;
            pos += 4 * plies;
            Some(
                raw.chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect(),
            )
        } else {
            None
        };
        *at = pos;
        Ok(Some(HumanGame {
            white_rating: u16_at(0),
            black_rating: u16_at(2),
            scale,
            source,
            split: if flags & FLAG_VALIDATION != 0 {
                Split::Validation
            } else {
                Split::Train
            },
            result,
            time_control: TimeControl {
                base_s: u16_at(8),
                increment_s: u16_at(10),
                class,
            },
            moves,
            clocks,
        }))
    }
}

/// The samples of the games in one split, game by game (what a trainer iterates over).
pub fn samples_in(games: &[HumanGame], split: Split) -> impl Iterator<Item = HumanSample> + '_ {
    games
        .iter()
        .filter(move |g| g.split == split)
        .flat_map(HumanGame::samples)
}

/// Writes games as a complete `.rkh` file (header + records, gzip'd).
pub fn write_games(out: impl Write, games: &[HumanGame]) -> Result<(), String> {
    let mut raw = Vec::with_capacity(16 + games.len() * 96);
    raw.extend_from_slice(MAGIC);
    raw.extend_from_slice(&VERSION.to_le_bytes());
    for game in games {
        game.encode(&mut raw)?;
    }
    let mut gz = flate2::write::GzEncoder::new(out, flate2::Compression::best());
    gz.write_all(&raw).map_err(|e| e.to_string())?;
    gz.finish().map_err(|e| e.to_string())?;
    Ok(())
}

/// Reads every game of a `.rkh` stream; an error names the first bad record.
pub fn read_games(input: impl Read) -> Result<Vec<HumanGame>, String> {
    let mut raw = Vec::new();
    flate2::read::GzDecoder::new(input)
        .read_to_end(&mut raw)
        .map_err(|e| format!("not a gzip'd human-game file: {e}"))?;
    if raw.len() < 10 || &raw[..8] != MAGIC {
        return Err("not a human-game file (no RKHUMAN magic)".into());
    }
    let version = u16::from_le_bytes([raw[8], raw[9]]);
    if version != VERSION {
        return Err(format!(
            "human-game format version {version}; this build reads {VERSION}"
        ));
    }
    let mut at = 10;
    let mut games = Vec::new();
    while let Some(game) = HumanGame::decode(&raw, &mut at)? {
        games.push(game);
    }
    Ok(games)
}

/// Reads a `.rkh` file from disk.
pub fn read_file(path: &std::path::Path) -> Result<Vec<HumanGame>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    read_games(std::io::BufReader::new(file)).map_err(|e| format!("{}: {e}", path.display()))
}
