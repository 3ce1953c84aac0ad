//! Strength levels through UCI: low levels vary their choices with the seed, full
//! strength does not, a seed repeats itself, bad values are refused, and human timing
//! spends time on a clock but still answers `stop` at once.

mod common;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use common::{bestmove_of, Engine};

fn first_move(options: &[(&str, &str)], go: &str) -> String {
    let mut e = Engine::ready();
    for (name, value) in options {
        e.send(&format!("setoption name {name} value {value}"));
    }
    e.send("ucinewgame");
    e.send("position startpos");
    let (_, best) = e.go(go, Duration::from_secs(20));
    bestmove_of(&best).to_string()
}

#[test]
fn low_levels_vary_with_the_seed_and_full_strength_does_not() {
    let mut low = HashSet::new();
    let mut full = HashSet::new();
    for seed in 1..=12 {
        let seed = seed.to_string();
        low.insert(first_move(
            &[
                ("UCI_LimitStrength", "true"),
                ("UCI_Elo", "1000"),
                ("Human Timing", "false"),
                ("Seed", &seed),
            ],
            "go wtime 10000 btime 10000",
        ));
        full.insert(first_move(&[("Seed", &seed)], "go depth 7"));
    }
    // 1000 is a human level: at the start it draws among the first moves people of that
    // level play (sharpened towards the likeliest, so mostly 1. e4 and 1. d4).
    assert!(low.len() >= 2, "1000 Elo always plays one of {low:?}");
    assert_eq!(full.len(), 1, "full strength varies: {full:?}");
}

#[test]
fn a_seed_repeats_its_choices() {
    let options = [
        ("Skill Level", "3"),
        ("Human Timing", "false"),
        ("Seed", "77"),
    ];
    let a = first_move(&options, "go wtime 10000 btime 10000");
    let b = first_move(&options, "go wtime 10000 btime 10000");
    assert_eq!(a, b);
}

#[test]
fn bad_levels_are_refused_and_the_previous_level_stays() {
    let mut e = Engine::ready();
    e.send("setoption name UCI_LimitStrength value true");
    e.send("setoption name UCI_Elo value 1400");
    let lines = e.sync();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("playing at about 1400 Elo")),
        "{lines:?}"
    );
    for bad in ["abc", "99999", "-5", ""] {
        e.send(&format!("setoption name UCI_Elo value {bad}"));
        let lines = e.sync();
        assert!(
            lines.iter().any(|l| l.starts_with("info string error")),
            "UCI_Elo '{bad}': {lines:?}"
        );
    }
    e.send("setoption name Skill Level value 21");
    assert!(e.sync().iter().any(|l| l.starts_with("info string error")));
    // Still 1400: the next valid change is announced from there, and a search works.
    e.send("setoption name UCI_Elo value 2600");
    let lines = e.sync();
    assert!(
        lines.iter().any(|l| l.contains("playing at full strength")),
        "{lines:?}"
    );
    // A node-limited level (above the human levels): its node budget caps the search.
    e.send("setoption name UCI_Elo value 2000");
    e.send("position startpos");
    let (info, best) = e.go("go nodes 100000", Duration::from_secs(20));
    assert!(!bestmove_of(&best).is_empty());
    let budget = rookery::search::strength::Strength::from_elo(2000)
        .unwrap()
        .nodes();
    let nodes: u64 = info
        .iter()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let i = w.iter().position(|x| *x == "nodes")?;
            w[i + 1].parse().ok()
        })
        .max()
        .expect("info lines with nodes");
    assert!(
        nodes <= budget + 64,
        "searched {nodes} nodes at 2000 Elo (budget {budget})"
    );
}

#[test]
fn human_timing_thinks_on_a_clock_but_stops_at_once() {
    let mut e = Engine::ready();
    e.send("setoption name UCI_LimitStrength value true");
    e.send("setoption name UCI_Elo value 1500");
    e.send("setoption name Seed value 5");
    e.sync();
    // With a minute on the clock a person takes a while; the engine needs milliseconds.
    let mut total = Duration::ZERO;
    let moves = ["", "e2e4", "e2e4 e7e5", "d2d4", "d2d4 d7d5"];
    for m in moves {
        e.send(&format!("position startpos moves {m}"));
        let t = Instant::now();
        e.go("go wtime 60000 btime 60000", Duration::from_secs(20));
        total += t.elapsed();
    }
    assert!(
        total > Duration::from_millis(500),
        "five moves in {total:?}: no human timing"
    );
    // `stop` cuts the thinking short.
    e.send("position startpos");
    e.send("go wtime 600000 btime 600000");
    std::thread::sleep(Duration::from_millis(50));
    let t = Instant::now();
    e.send("stop");
    e.expect("bestmove");
    assert!(
        t.elapsed() < Duration::from_secs(1),
        "stop took {:?}",
        t.elapsed()
    );
}
