//! The tuning build (`cargo test --features tune`): every tunable search parameter is a
//! UCI option, a `setoption` changes what the search reads, and an out-of-range or
//! malformed value is an `info string error` that keeps the old value. Without the
//! feature this file compiles to nothing (the default build has no such options).
#![cfg(feature = "tune")]

mod common;

use common::{Engine, WAIT};
use rookery::search::params::TUNABLES;

/// Nodes of a fixed-depth search from the start position on a fresh table.
fn nodes_at_depth(e: &mut Engine) -> u64 {
    e.send("ucinewgame");
    e.send("position startpos");
    let (infos, _) = e.go("go depth 9", WAIT);
    infos
        .iter()
        .rev()
        .find_map(|l| {
            let mut words = l.split_whitespace();
            words.find(|w| *w == "nodes")?;
            words.next()?.parse().ok()
        })
        .expect("an info line with nodes")
}

#[test]
fn uci_lists_every_tunable_as_a_spin_option() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.collect_until("uciok", WAIT);
    for t in TUNABLES {
        assert!(
            lines.contains(&t.uci_line()),
            "{} missing: {lines:?}",
            t.uci_name()
        );
    }
    assert!(lines
        .iter()
        .any(|l| l == "option name LMR_BASE_x100 type spin default 175 min 50 max 300"));
}

#[test]
fn setoption_changes_the_search_and_bad_values_keep_the_old_one() {
    let mut e = Engine::ready();
    let default_nodes = nodes_at_depth(&mut e);

    // Late-move reductions barely reduce with a large divisor: a bigger tree.
    e.send("setoption name LMR_DIVISOR_x100 value 400");
    assert!(e.sync().is_empty(), "a valid value is accepted quietly");
    let tuned_nodes = nodes_at_depth(&mut e);
    assert_ne!(
        tuned_nodes, default_nodes,
        "the search ignored LMR_DIVISOR_x100"
    );

    for bad in ["401", "149", "2.5", ""] {
        e.send(&format!("setoption name lmr_divisor_x100 value {bad}"));
        let reply = e.sync();
        assert!(
            reply.len() == 1
                && reply[0].starts_with("info string error: option 'LMR_DIVISOR_x100'"),
            "value '{bad}': {reply:?}"
        );
    }
    assert_eq!(
        nodes_at_depth(&mut e),
        tuned_nodes,
        "a rejected value changed the search"
    );

    e.send("setoption name LMR_DIVISOR_x100 value 225");
    e.sync();
    assert_eq!(
        nodes_at_depth(&mut e),
        default_nodes,
        "the default does not restore the search"
    );
}
