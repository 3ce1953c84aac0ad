//! The README states facts that code declares; these tests keep the two equal: the UCI
//! option table (generated from `src/uci/options.rs`) and the "Testing on OpenBench"
//! section (the bench signature it quotes, the presets of `docs/openbench/Rookery.json`).

fn read(path: &str) -> String {
    let full = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}

/// The README's section that starts with the heading `## {title}`.
fn readme_section(title: &str) -> String {
    let readme = read("README.md");
    let heading = format!("## {title}\n");
    let start = readme
        .find(&heading)
        .unwrap_or_else(|| panic!("README has no section '{title}'"));
    let body = &readme[start + heading.len()..];
    let end = body.find("\n## ").map_or(body.len(), |i| i + 1);
    body[..end].to_string()
}

#[test]
fn readme_option_table_matches_the_declarations() {
    let readme = read("README.md");
    let expected = rookery::uci::options::readme_table();
    let header = expected.lines().next().expect("table header");
    let start = readme.find(header).expect("README has a UCI option table");
    let table: String = readme[start..]
        .lines()
        .take_while(|l| l.starts_with('|'))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        table, expected,
        "README's option table differs from src/uci/options.rs; the table should read:\n{expected}"
    );
}

#[test]
fn openbench_section_quotes_the_bench_signature_and_the_configs_presets() {
    let section = readme_section("Testing on OpenBench");
    let signature = format!("Bench: {}", rookery::bench::SIGNATURE);
    assert!(
        section.contains(&signature),
        "the OpenBench section should quote `{signature}`"
    );
    let config = read("docs/openbench/Rookery.json");
    for quoted in [
        "\"8moves_v3.epd\"",
        "\"8.0+0.08\"",
        "\"40.0+0.4\"",
        "\"[0.00, 10.00]\"",
        "\"[-10.00, 0.00]\"",
        "OwnBook=false",
        "\"cargo>=1.88.0\"",
    ] {
        assert!(
            config.contains(quoted),
            "docs/openbench/Rookery.json no longer has {quoted}, which the README's \
             OpenBench section describes"
        );
    }
}
