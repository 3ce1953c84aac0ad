//! `rookery book …` subcommands: `build` (compile the Polyglot book from the Lichess
//! opening lines and games), `probe` (list the book moves of a position) and `stats`.

use super::compile::{DEFAULT_GAMES_SOURCE, DEFAULT_OPENINGS_SOURCE};
use super::{
    build_book, default_book, default_names, polyglot_key, Book, BuildOptions, OpeningNames,
};
use crate::chess::{move_to_uci, parse_fen, parse_uci_move};
use cozy_chess::Board;
use std::collections::{HashSet, VecDeque};
use std::path::PathBuf;

#[derive(clap::Subcommand, Debug)]
pub enum BookCommand {
    /// Compile the Polyglot book and the opening-name index.
    Build(BuildArgs),
    /// List the book moves of a position with weights, shares and the opening name.
    Probe(ProbeArgs),
    /// Print book statistics (entries, positions, size, max ply).
    Stats(StatsArgs),
}

#[derive(clap::Args, Debug)]
pub struct BuildArgs {
    /// Opening TSV files or directories of them (eco<TAB>name<TAB>pgn). The default is the
    /// committed source data (see docs/book.md).
    #[arg(long, num_args = 1.., default_value = DEFAULT_OPENINGS_SOURCE)]
    pub openings: Vec<PathBuf>,
    /// Game CSV files, plain or .gz (Lichess/Kaggle columns incl. id, rated, winner,
    /// ratings, moves). The default is the committed source data (see docs/book.md).
    #[arg(long, num_args = 1.., default_value = DEFAULT_GAMES_SOURCE)]
    pub games: Vec<PathBuf>,
    /// Use no games, only the theory lines.
    #[arg(long)]
    pub no_games: bool,
    /// Output book.
    #[arg(long, default_value = "book/lichess.bin")]
    pub out: PathBuf,
    /// Output name index (default: <out stem>-names.tsv next to the book).
    #[arg(long)]
    pub names_out: Option<PathBuf>,
    /// Minimum rating of the side to move for its game moves to count.
    #[arg(long, default_value_t = 1600)]
    pub min_rating: u32,
    /// Use only the first N plies of each game.
    #[arg(long, default_value_t = 20)]
    pub max_ply: usize,
    /// Minimum number of qualifying games for a move to get a game weight.
    #[arg(long, default_value_t = 2)]
    pub min_games: u32,
    /// Minimum score (mover's view, 0..1) for a move to get a game weight.
    #[arg(long, default_value_t = 0.3)]
    pub min_score: f64,
    /// Use rated games only.
    #[arg(long)]
    pub rated_only: bool,
    /// Base weight of every move of a named theory line.
    #[arg(long, default_value_t = 1)]
    pub theory_weight: u32,
}

#[derive(clap::Args, Debug)]
pub struct ProbeArgs {
    /// Position to probe (default: start position, or the end of --moves).
    #[arg(long, conflicts_with = "moves")]
    pub fen: Option<String>,
    /// Moves from the start position in UCI (e2e4 e7e5 …; castling e1g1 or e1h1).
    #[arg(long, num_args = 1..)]
    pub moves: Vec<String>,
    /// Book file (default: the book built into the binary).
    #[arg(long)]
    pub file: Option<String>,
    /// Name index file (default: the index built into the binary).
    #[arg(long)]
    pub names: Option<String>,
    /// Print only "<uci_move> <weight>" lines (standard UCI castling, e1g1).
    #[arg(long)]
    pub raw: bool,
}

#[derive(clap::Args, Debug)]
pub struct StatsArgs {
    /// Book file (default: the book built into the binary).
    #[arg(long)]
    pub file: Option<String>,
    /// Depth cap (plies) of the walk from the start position.
    #[arg(long, default_value_t = 60)]
    pub depth: usize,
}

/// Runs a `rookery book` subcommand.
pub fn run(cmd: BookCommand) -> Result<(), String> {
    match cmd {
        BookCommand::Build(args) => build(args),
        BookCommand::Probe(args) => probe(args),
        BookCommand::Stats(args) => stats(args),
    }
}

fn build(a: BuildArgs) -> Result<(), String> {
    if !(0.0..=1.0).contains(&a.min_score) {
        return Err(format!(
            "--min-score must be within 0..1, got {}",
            a.min_score
        ));
    }
    let opts = BuildOptions {
        openings: a.openings,
        games: if a.no_games { Vec::new() } else { a.games },
        out: a.out,
        names_out: a.names_out,
        min_rating: a.min_rating,
        max_ply: a.max_ply,
        min_games: a.min_games,
        min_score: a.min_score,
        rated_only: a.rated_only,
        theory_weight: a.theory_weight,
    };
    let summary = build_book(&opts)?;
    println!("{summary}");
    println!(
        "wrote {} and {}",
        opts.out.display(),
        opts.names_path().display()
    );
    Ok(())
}

fn load_book(file: &Option<String>) -> Result<std::borrow::Cow<'static, Book>, String> {
    match file {
        Some(path) => Ok(std::borrow::Cow::Owned(Book::load_file(path)?)),
        None if default_book().is_empty() => Err("the built-in book is empty; pass --file".into()),
        None => Ok(std::borrow::Cow::Borrowed(default_book())),
    }
}

fn probe(a: ProbeArgs) -> Result<(), String> {
    let book = load_book(&a.file)?;
    let loaded_names;
    let names: &OpeningNames = match &a.names {
        Some(path) => {
            loaded_names = OpeningNames::load_file(path)?;
            &loaded_names
        }
        None => default_names(),
    };
    let mut board = match &a.fen {
        Some(fen) => parse_fen(fen)?,
        None => Board::default(),
    };
    let mut keys = vec![polyglot_key(&board)];
    for text in &a.moves {
        let mv = parse_uci_move(&board, text)
            .ok_or_else(|| format!("illegal move '{text}' in {board}"))?;
        board.play_unchecked(mv);
        keys.push(polyglot_key(&board));
    }
    let moves = book.probe(&board);
    if a.raw {
        for m in &moves {
            println!("{} {}", move_to_uci(&board, m.mv, false), m.weight);
        }
        return Ok(());
    }
    println!("fen:     {board}");
    println!("key:     {:016x}", polyglot_key(&board));
    match (names.lookup(&board), names.name_along(&keys)) {
        (Some((eco, name)), _) => println!("opening: {eco} {name}"),
        (None, Some((eco, name))) => println!("opening: {eco} {name} (last named position)"),
        (None, None) => println!("opening: -"),
    }
    if moves.is_empty() {
        println!("no book moves");
        return Ok(());
    }
    let total: u64 = moves.iter().map(|m| u64::from(m.weight)).sum();
    println!(
        "{:<7} {:<8} {:>6} {:>7}  opening after the move",
        "move", "san", "weight", "share"
    );
    for m in &moves {
        let share = if total == 0 {
            0.0
        } else {
            100.0 * f64::from(m.weight) / total as f64
        };
        let mut next = board.clone();
        next.play_unchecked(m.mv);
        let name = names
            .lookup(&next)
            .map(|(eco, n)| format!("{eco} {n}"))
            .unwrap_or_default();
        let san = super::san::move_to_san(&board, m.mv);
        println!(
            "{:<7} {san:<8} {:>6} {:>6.2}%  {name}",
            move_to_uci(&board, m.mv, false),
            m.weight,
            share
        );
    }
    Ok(())
}

/// Walks the book breadth-first from the start position (each key once, at its
/// shortest distance) up to `cap` plies. Returns (positions with book moves reached,
/// deepest ply of a book move).
pub fn walk_from_start(book: &Book, cap: usize) -> (usize, usize) {
    let mut seen = HashSet::new();
    let mut queue = VecDeque::new();
    let start = Board::default();
    seen.insert(polyglot_key(&start));
    queue.push_back((start, 0usize));
    let (mut reached, mut max_ply) = (0, 0);
    while let Some((board, depth)) = queue.pop_front() {
        let moves = book.probe(&board);
        if moves.is_empty() {
            continue;
        }
        reached += 1;
        max_ply = max_ply.max(depth + 1);
        if depth + 1 >= cap {
            continue;
        }
        for m in moves {
            let mut next = board.clone();
            next.play_unchecked(m.mv);
            if seen.insert(polyglot_key(&next)) {
                queue.push_back((next, depth + 1));
            }
        }
    }
    (reached, max_ply)
}

fn stats(a: StatsArgs) -> Result<(), String> {
    let book = load_book(&a.file)?;
    let (reached, max_ply) = walk_from_start(&book, a.depth.max(1));
    println!(
        "file:       {}",
        a.file.as_deref().unwrap_or("(built-in book/lichess.bin)")
    );
    println!("size:       {} bytes", book.len() * super::ENTRY_SIZE);
    println!("entries:    {}", book.len());
    println!("positions:  {}", book.positions());
    println!(
        "reachable:  {reached} positions from the start position (walk capped at {} plies)",
        a.depth
    );
    println!("max ply:    {max_ply}");
    Ok(())
}
