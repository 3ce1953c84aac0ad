//! The incremental accumulator against full recomputes: random games and search-like
//! push/pop trees with castling, en passant, promotions, null moves and (mirrored nets)
//! kings crossing the board's middle.

use std::sync::Arc;

use cozy_chess::Board;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use rookery::eval::network::Network;
use rookery::eval::Evaluator;

mod nnue_support;
use nnue_support::*;

/// Random games: after every move (and null move) the incremental accumulator equals a
/// full recompute, and now and then the game goes back up the stack (pop) and continues
/// from there, as a search does.
#[test]
fn incremental_matches_refresh_in_random_games() {
    random_games_match_refresh(default_net());
}

/// The same with horizontal mirroring, where a king crossing files d–e rebuilds its side.
#[test]
fn mirrored_incremental_matches_refresh_in_random_games() {
    let seen = random_games_match_refresh(mirrored_net());
    assert!(seen.king_crossings > 100, "{seen:?}");
}

/// Moves after which a piece kind covers the same squares as before, one of them now of
/// the other colour: a promotion capturing a piece of the kind it promotes to. (An
/// accumulator update that skipped unchanged kinds by their squares alone missed these.)
#[test]
fn promotion_capturing_its_own_kind_matches_refresh() {
    for net in [default_net(), mirrored_net()] {
        let mut ev = fresh_eval(&net);
        for (fen, uci) in [
            ("1q2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7b8q"),
            ("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7b8n"),
            ("4k3/8/8/8/8/8/p7/1R2K3 b - - 0 1", "a2b1r"),
            ("4k3/8/8/8/8/8/p7/1B2K3 b - - 0 1", "a2b1b"),
        ] {
            let before: Board = fen.parse().expect("test FEN");
            let mv = rookery::chess::parse_uci_move(&before, uci).expect("legal test move");
            ev.reset_keep_network(&before);
            let mut after = before.clone();
            after.play_unchecked(mv);
            ev.push(&before, mv, &after);
            check_acc(&mut ev, &net, &after, &format!("{uci} from {fen}"));
        }
    }
}

fn random_games_match_refresh(net: Arc<Network>) -> Seen {
    let mut rng = StdRng::seed_from_u64(7);
    let mut seen = Seen::default();
    let mut ev = fresh_eval(&net);
    for game in 0..110 {
        let mut board = start_board(game);
        ev.reset_keep_network(&board);
        let mut path: Vec<Board> = vec![board.clone()];
        for _ in 0..120 {
            let moves = legal(&board);
            if moves.is_empty() || board.halfmove_clock() >= 100 {
                break;
            }
            let before = board.clone();
            if rng.gen_bool(0.08) {
                if let Some(after) = before.null_move() {
                    ev.push_null(&before, &after);
                    seen.nulls += 1;
                    if rng.gen_bool(0.4) {
                        check_acc(&mut ev, &net, &after, "null move");
                    }
                    board = after;
                    path.push(board.clone());
                    continue;
                }
            }
            let mv = pick(&before, &moves, &mut rng);
            classify(&before, mv, &mut seen);
            let mut after = before.clone();
            after.play_unchecked(mv);
            ev.push(&before, mv, &after);
            // Checked only now and then, so the lazy stack catches up over several plies.
            if rng.gen_bool(0.4) {
                check_acc(&mut ev, &net, &after, &format!("{mv} from {before}"));
            }
            board = after;
            path.push(board.clone());
            // Sometimes pop back a few plies and check the older slots are intact.
            if rng.gen_bool(0.1) && path.len() > 4 {
                let back = rng.gen_range(1..4);
                for _ in 0..back {
                    ev.pop();
                    path.pop();
                    let top = path.last().expect("root stays");
                    check_acc(&mut ev, &net, top, "pop");
                }
                board = path.last().expect("root stays").clone();
            }
        }
        assert_eq!(ev.ply() + 1, path.len());
    }
    assert!(seen.moves > 4000, "{seen:?}");
    assert!(
        seen.castles > 20 && seen.en_passant > 20 && seen.promotions > 20,
        "{seen:?}"
    );
    assert!(seen.captures > 100 && seen.nulls > 100, "{seen:?}");
    seen
}

fn tree(
    ev: &mut Evaluator,
    fresh: &mut Evaluator,
    board: &Board,
    depth: usize,
    rng: &mut StdRng,
    nodes: &mut usize,
) {
    // Evaluated at about half the nodes on the way down, so the lazy accumulator stack
    // sometimes catches up over several plies at once.
    if rng.gen_bool(0.5) {
        fresh.reset_keep_network(board);
        assert_eq!(ev.evaluate(board), fresh.evaluate(board), "{board}");
    }
    *nodes += 1;
    if depth == 0 {
        return;
    }
    let moves = legal(board);
    for _ in 0..3.min(moves.len()) {
        let mv = pick(board, &moves, rng);
        let mut child = board.clone();
        child.play_unchecked(mv);
        ev.push(board, mv, &child);
        tree(ev, fresh, &child, depth - 1, rng, nodes);
        ev.pop();
    }
    if depth >= 2 {
        if let Some(child) = board.null_move() {
            ev.push_null(board, &child);
            tree(ev, fresh, &child, depth - 2, rng, nodes);
            ev.pop();
        }
    }
    fresh.reset_keep_network(board);
    assert_eq!(
        ev.evaluate(board),
        fresh.evaluate(board),
        "after children: {board}"
    );
}

/// Search-shaped trees: depth-first push/pop; at every node the evaluation equals that of
/// a fresh evaluator reset at the node, and the root is intact after the tree.
#[test]
fn push_pop_trees_match_fresh_evaluation() {
    for net in [default_net(), mirrored_net()] {
        push_pop_trees_match(net);
    }
}

fn push_pop_trees_match(net: Arc<Network>) {
    let mut rng = StdRng::seed_from_u64(11);
    let mut ev = fresh_eval(&net);
    let mut fresh = fresh_eval(&net);
    let mut nodes = 0usize;
    for i in 0..STARTS.len() * 2 {
        let root = start_board(i);
        ev.reset_keep_network(&root);
        tree(&mut ev, &mut fresh, &root, 4, &mut rng, &mut nodes);
        assert_eq!(ev.ply(), 0);
    }
    assert!(nodes > 1000, "only {nodes} nodes");
}
