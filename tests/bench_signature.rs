//! The bench signature: `bench` at its default depth must search exactly
//! `bench::SIGNATURE` nodes. Any change of search behaviour (pruning, ordering,
//! evaluation) changes the count, so an unintended one fails here; an intended one
//! updates the constant and quotes it in the commit as `Bench: N` (Stockfish's
//! `tests/signature.sh` idea). The count is the same for every SIMD path (they give
//! identical evaluations) and every build profile.

#[test]
fn bench_node_count_is_the_signature() {
    let (nodes, _) = rookery::bench::run(rookery::bench::DEFAULT_DEPTH, rookery::bench::HASH_MB, 1);
    assert_eq!(
        nodes,
        rookery::bench::SIGNATURE,
        "search behaviour changed: bench searched {nodes} nodes, signature {}",
        rookery::bench::SIGNATURE
    );
}
