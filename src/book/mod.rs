//! Polyglot opening book: keys, reader, move choice, opening names and the compiler.
//!
//! # Engine-facing API
//! - [`polyglot_key`]: the standard Polyglot Zobrist key of a [`Board`].
//! - [`Book`]: a sorted Polyglot book in memory ([`Book::from_bytes`], [`Book::load_file`]),
//!   with [`Book::probe`] (legal book moves, heaviest first) and [`Book::choose`]
//!   (weighted random choice with a temperature).
//! - [`default_book`] / [`default_names`]: the committed `book/lichess.bin` and
//!   `book/lichess-names.tsv`, embedded in the binary.
//! - [`OpeningNames`]: position key → (ECO, name), with [`OpeningNames::lookup`] for the
//!   exact position and [`OpeningNames::name_along`] / [`OpeningNames::name_for_game`] for
//!   the most recent named position of a game.
//! - [`compile::build_book`]: the compiler behind `rookery book build`.
//! - [`san::parse_san`] / [`san::move_to_san`]: SAN for cozy-chess moves.
//!
//! File format: see `docs/book.md`.

pub mod cli;
pub mod compile;
pub mod key;
pub mod randoms;
/// SAN lives in `crate::chess::san` (the human-game converter uses it too); re-exported
/// so `book::san` paths keep working.
pub use crate::chess::san;

pub use compile::{build_book, BuildOptions, BuildSummary};
pub use key::{decode_move, encode_move, polyglot_key};

use cozy_chess::{Board, Move};
use once_cell::sync::Lazy;
use rand::Rng;

/// Size of one Polyglot entry in bytes.
pub const ENTRY_SIZE: usize = 16;

/// One raw Polyglot entry (all fields as stored, big-endian on disk).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub key: u64,
    /// Polyglot move encoding (see [`encode_move`]).
    pub raw_move: u16,
    pub weight: u16,
    pub learn: u32,
}

impl Entry {
    /// The 16 big-endian bytes of this entry.
    pub fn to_bytes(&self) -> [u8; ENTRY_SIZE] {
        let mut out = [0u8; ENTRY_SIZE];
        out[..8].copy_from_slice(&self.key.to_be_bytes());
        out[8..10].copy_from_slice(&self.raw_move.to_be_bytes());
        out[10..12].copy_from_slice(&self.weight.to_be_bytes());
        out[12..].copy_from_slice(&self.learn.to_be_bytes());
        out
    }

    fn from_bytes(b: &[u8]) -> Entry {
        let mut key = [0u8; 8];
        key.copy_from_slice(&b[..8]);
        Entry {
            key: u64::from_be_bytes(key),
            raw_move: u16::from_be_bytes([b[8], b[9]]),
            weight: u16::from_be_bytes([b[10], b[11]]),
            learn: u32::from_be_bytes([b[12], b[13], b[14], b[15]]),
        }
    }
}

/// A legal book move of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The move in cozy-chess encoding (castling as king-takes-rook); always legal.
    pub mv: Move,
    pub weight: u16,
    pub learn: u32,
}

/// A Polyglot opening book held in memory, entries sorted by key.
#[derive(Clone, Debug, Default)]
pub struct Book {
    entries: Vec<Entry>,
}

impl Book {
    /// Parses a Polyglot book. Rejects an empty input, a length that is not a multiple
    /// of 16 bytes (truncated file) and keys that are not sorted ascending.
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, String> {
        if bytes.is_empty() {
            return Err("book is empty (0 bytes)".into());
        }
        if !bytes.len().is_multiple_of(ENTRY_SIZE) {
            return Err(format!(
                "book size {} bytes is not a multiple of {ENTRY_SIZE} (truncated or not a Polyglot book)",
                bytes.len()
            ));
        }
        let entries: Vec<Entry> = bytes
            .chunks_exact(ENTRY_SIZE)
            .map(Entry::from_bytes)
            .collect();
        if let Some(i) = entries.windows(2).position(|w| w[0].key > w[1].key) {
            return Err(format!(
                "book keys are not sorted: entry {} has key {:016x} after {:016x}",
                i + 1,
                entries[i + 1].key,
                entries[i].key
            ));
        }
        Ok(Book { entries })
    }

    /// Reads and parses a Polyglot book file.
    pub fn load_file(path: &str) -> Result<Book, String> {
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read book file '{path}': {e}"))?;
        Book::from_bytes(&bytes).map_err(|e| format!("{path}: {e}"))
    }

    /// Builds a book from entries (sorted here: key, then weight descending, then move).
    pub fn from_entries(mut entries: Vec<Entry>) -> Book {
        entries.sort_by(|a, b| {
            a.key
                .cmp(&b.key)
                .then(b.weight.cmp(&a.weight))
                .then(a.raw_move.cmp(&b.raw_move))
        });
        Book { entries }
    }

    /// The serialized book (16 bytes per entry).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.entries.iter().flat_map(|e| e.to_bytes()).collect()
    }

    /// All entries, sorted by key.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the book has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Number of distinct keys (positions).
    pub fn positions(&self) -> usize {
        let mut n = 0;
        let mut last = None;
        for e in &self.entries {
            if last != Some(e.key) {
                n += 1;
                last = Some(e.key);
            }
        }
        n
    }

    /// The raw entries stored under `key`, in file order.
    pub fn entries_for_key(&self, key: u64) -> &[Entry] {
        let start = self.entries.partition_point(|e| e.key < key);
        let end = start + self.entries[start..].partition_point(|e| e.key == key);
        &self.entries[start..end]
    }

    /// The legal book moves of `board`, heaviest first (ties in file order). Entries whose
    /// move is not legal in the position (key collisions, foreign books) are skipped.
    pub fn probe(&self, board: &Board) -> Vec<BookMove> {
        let entries = self.entries_for_key(polyglot_key(board));
        if entries.is_empty() {
            return Vec::new();
        }
        let legal = crate::chess::legal_moves(board);
        let mut out: Vec<BookMove> = Vec::with_capacity(entries.len());
        for e in entries {
            if let Some(mv) = key::legal_from_raw(board, e.raw_move, &legal) {
                if !out.iter().any(|b| b.mv == mv) {
                    out.push(BookMove {
                        mv,
                        weight: e.weight,
                        learn: e.learn,
                    });
                }
            }
        }
        out.sort_by_key(|b| std::cmp::Reverse(b.weight)); // stable: ties keep file order
        out
    }

    /// Picks a book move with probability ∝ weight^(1/temperature). With
    /// `temperature <= 0` (or not finite) the heaviest move is returned, ties going to the
    /// move stored first. If every weight is 0 the moves are equally likely. `None` when
    /// the position is not in the book.
    pub fn choose(&self, board: &Board, temperature: f64, rng: &mut impl Rng) -> Option<BookMove> {
        let moves = self.probe(board);
        let first = *moves.first()?;
        if !(temperature > 0.0 && temperature.is_finite()) || moves.len() == 1 {
            return Some(first);
        }
        // Work with logarithms: w^(1/T) = exp(ln w / T), shifted by the maximum.
        let logs: Vec<f64> = moves
            .iter()
            .map(|m| {
                if m.weight == 0 {
                    f64::NEG_INFINITY
                } else {
                    f64::from(m.weight).ln() / temperature
                }
            })
            .collect();
        let max = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let probs: Vec<f64> = if max == f64::NEG_INFINITY {
            vec![1.0; moves.len()]
        } else {
            logs.iter().map(|&l| (l - max).exp()).collect()
        };
        let total: f64 = probs.iter().sum();
        let mut x = rng.gen::<f64>() * total;
        for (m, p) in moves.iter().zip(&probs) {
            if x < *p {
                return Some(*m);
            }
            x -= p;
        }
        // Rounding left a sliver: take the last move with non-zero probability.
        moves
            .iter()
            .zip(&probs)
            .rev()
            .find(|(_, &p)| p > 0.0)
            .map(|(m, _)| *m)
    }
}

/// Opening names by position: Polyglot key → (ECO code, name).
#[derive(Clone, Debug, Default)]
pub struct OpeningNames {
    /// Sorted by key, keys unique.
    entries: Vec<(u64, String, String)>,
}

impl OpeningNames {
    /// Builds the index from (key, eco, name) triples; the first triple of a key wins.
    pub fn from_entries(mut entries: Vec<(u64, String, String)>) -> OpeningNames {
        entries.sort_by_key(|e| e.0);
        entries.dedup_by_key(|e| e.0);
        OpeningNames { entries }
    }

    /// Parses the name index format: one `key_hex<TAB>eco<TAB>name` line per position
    /// (16 hex digits). Empty lines and lines starting with `#` are ignored.
    pub fn from_tsv(text: &str) -> Result<OpeningNames, String> {
        let mut entries = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let mut parts = line.splitn(3, '\t');
            let (Some(k), Some(eco), Some(name)) = (parts.next(), parts.next(), parts.next())
            else {
                return Err(format!(
                    "name index line {}: expected key<TAB>eco<TAB>name",
                    i + 1
                ));
            };
            let key = u64::from_str_radix(k, 16)
                .map_err(|e| format!("name index line {}: bad key '{k}': {e}", i + 1))?;
            entries.push((key, eco.to_string(), name.to_string()));
        }
        Ok(OpeningNames::from_entries(entries))
    }

    /// Reads a name index file (see [`OpeningNames::from_tsv`]).
    pub fn load_file(path: &str) -> Result<OpeningNames, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read name index '{path}': {e}"))?;
        OpeningNames::from_tsv(&text).map_err(|e| format!("{path}: {e}"))
    }

    /// The index as `key_hex<TAB>eco<TAB>name` lines, sorted by key.
    pub fn to_tsv(&self) -> String {
        let mut out = String::new();
        for (k, eco, name) in &self.entries {
            out.push_str(&format!("{k:016x}\t{eco}\t{name}\n"));
        }
        out
    }

    /// Number of named positions.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no position is named.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// (ECO, name) of the position with this Polyglot key.
    pub fn lookup_key(&self, key: u64) -> Option<(&str, &str)> {
        let i = self.entries.binary_search_by_key(&key, |e| e.0).ok()?;
        let (_, eco, name) = &self.entries[i];
        Some((eco.as_str(), name.as_str()))
    }

    /// (ECO, name) of exactly this position.
    pub fn lookup(&self, board: &Board) -> Option<(&str, &str)> {
        self.lookup_key(polyglot_key(board))
    }

    /// The name of the most recent named position along a game, given the Polyglot keys
    /// of its positions in order (start position first).
    pub fn name_along(&self, keys: &[u64]) -> Option<(&str, &str)> {
        keys.iter().rev().find_map(|&k| self.lookup_key(k))
    }

    /// The name of the most recent named position of the game `start` + `moves` (moves
    /// in cozy-chess encoding; replay stops at the first illegal move).
    pub fn name_for_game(&self, start: &Board, moves: &[Move]) -> Option<(&str, &str)> {
        let mut board = start.clone();
        let mut keys = vec![polyglot_key(&board)];
        for &mv in moves {
            if board.try_play(mv).is_err() {
                break;
            }
            keys.push(polyglot_key(&board));
        }
        self.name_along(&keys)
    }
}

static DEFAULT_BOOK_BYTES: &[u8] =
    include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/book/lichess.bin"));
static DEFAULT_NAMES_TSV: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/book/lichess-names.tsv"
));

static DEFAULT_BOOK: Lazy<Book> =
    Lazy::new(|| Book::from_bytes(DEFAULT_BOOK_BYTES).unwrap_or_default());
static DEFAULT_NAMES: Lazy<OpeningNames> =
    Lazy::new(|| OpeningNames::from_tsv(DEFAULT_NAMES_TSV).unwrap_or_default());

/// The book compiled into the binary (`book/lichess.bin`). If the embedded file were
/// invalid this is an empty book (every probe misses); tests guard against that.
pub fn default_book() -> &'static Book {
    &DEFAULT_BOOK
}

/// The opening-name index compiled into the binary (`book/lichess-names.tsv`).
pub fn default_names() -> &'static OpeningNames {
    &DEFAULT_NAMES
}
