//! Command line: with no subcommand Rookery speaks UCI on stdin/stdout.

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "rookery", version, about = "Rookery UCI chess engine")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Speak UCI on stdin/stdout (the default).
    Uci,
    /// Count leaf nodes of the legal move tree.
    Perft(rookery::perft::PerftArgs),
    /// Search a fixed set of positions (prints "<nodes> nodes <nps> nps" last), or time
    /// the evaluation kernels (`--eval`).
    Bench(rookery::bench::BenchArgs),
    /// Print the static evaluation from White's point of view.
    Eval {
        /// Position to evaluate (default: start position).
        #[arg(long)]
        fen: Option<String>,
    },
    /// Train an evaluation network (the defaults retrain the embedded net's recipe).
    Train(rookery::train::TrainArgs),
    /// Build, probe or inspect the opening book.
    #[command(subcommand)]
    Book(rookery::book::cli::BookCommand),
    /// Self-play games for training data (see data/README.md).
    Datagen(rookery::data::datagen::DatagenArgs),
    /// Statistics and conversion of training data files.
    #[command(subcommand)]
    Data(rookery::data::DataCommand),
    /// Convert rated human games (CSV/PGN) to .rkh files, count them, or print their samples
    /// for scripts (data/human/README.md).
    #[command(subcommand)]
    HumanData(rookery::data::human::HumanDataCommand),
    /// Train the rating-conditioned human prior (docs/human.md).
    TrainHuman(rookery::train::human::TrainHumanArgs),
    /// Train the self-play move policy, the MCTS prior, on the search's moves in `.vf`
    /// games (docs/mcts.md).
    TrainPolicy(rookery::train::policy::TrainPolicyArgs),
    /// Train the human model's combiner on labelled positions (docs/human.md).
    TrainCombiner(rookery::train::human::combiner::TrainCombinerArgs),
    /// Moves a player of a given rating would play (the human prior), or `--predict FILE`.
    Human(rookery::human::HumanArgs),
    /// Print the tunable search parameters in OpenBench's SPSA input format (they are UCI
    /// options in a `--features tune` build; docs/tuning.md).
    TuneParams(rookery::search::tunable::TuneParamsArgs),
    /// Probe Syzygy tables for FENs read from stdin ("wdl dtz best-move" per line).
    Tb(rookery::tablebase::ProbeArgs),
}

fn main() {
    // OpenBench passes UCI lines as arguments: `rookery "genfens 8 seed 1 book None" quit`.
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args
        .first()
        .is_some_and(|a| rookery::uci::is_command_list(a))
    {
        if !rookery::uci::run_with_commands(&args) {
            std::process::exit(1);
        }
        return;
    }
    let cli = Cli::parse();
    if !matches!(cli.command, None | Some(Command::Uci)) {
        exit_quietly_on_closed_pipe();
    }
    let result = match cli.command {
        None | Some(Command::Uci) => {
            rookery::uci::run();
            Ok(())
        }
        Some(Command::Perft(args)) => rookery::perft::run_cli(&args),
        Some(Command::Bench(args)) => rookery::bench::run_cli(&args),
        Some(Command::Eval { fen }) => eval_cli(fen.as_deref()),
        Some(Command::Train(args)) => rookery::train::run(args),
        Some(Command::Book(cmd)) => rookery::book::cli::run(cmd),
        Some(Command::Datagen(args)) => rookery::data::datagen::run(&args).map(|_| ()),
        Some(Command::Data(cmd)) => rookery::data::run(cmd),
        Some(Command::HumanData(cmd)) => rookery::data::human::run(cmd),
        Some(Command::TrainHuman(args)) => rookery::train::human::run(args),
        Some(Command::TrainPolicy(args)) => rookery::train::policy::run(args).map(|_| ()),
        Some(Command::TrainCombiner(args)) => rookery::train::human::combiner::run(args),
        Some(Command::Human(args)) => rookery::human::run(&args),
        Some(Command::Tb(args)) => rookery::tablebase::run_cli(&args),
        Some(Command::TuneParams(args)) => rookery::search::tunable::run_cli(&args),
    };
    if let Err(message) = result {
        eprintln!("error: {message}");
        std::process::exit(1);
    }
}

fn eval_cli(fen: Option<&str>) -> Result<(), String> {
    let board = rookery::chess::parse_fen(fen.unwrap_or(rookery::chess::STARTPOS_FEN))?;
    println!("{} cp (White's view)", rookery::eval::white_cp(&board));
    Ok(())
}

/// The command-line tools end quietly, as other Unix tools do, when what reads their
/// output goes away (`rookery data stats f.vf | head`): Rust ignores SIGPIPE, which
/// turns the next `println!` into a panic. The UCI loop keeps ignoring it and handles a
/// closed stdout itself.
fn exit_quietly_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: restores the default disposition of one signal before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
