//! The README's UCI option table is the one generated from the option declarations
//! (`src/uci/options.rs`), so the two cannot drift apart.

#[test]
fn readme_option_table_matches_the_declarations() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md is readable");
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
