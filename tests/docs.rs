//! The reference docs state facts that the code also holds: which net is embedded, its
//! bench signature, and the full-strength rating that README quotes. These tests read
//! the docs and compare, so a change to one without the other fails here.

use std::fs;

fn read(path: &str) -> String {
    let full = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}

/// The section of a markdown file from `heading` to the next heading of the same level.
fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let start = text
        .find(heading)
        .unwrap_or_else(|| panic!("no heading {heading:?}"));
    let level = heading.chars().take_while(|&c| c == '#').count();
    let marker = format!("\n{} ", "#".repeat(level));
    let rest = &text[start + heading.len()..];
    let end = rest
        .find(&marker)
        .map_or(text.len(), |i| start + heading.len() + i);
    &text[start..end]
}

#[test]
fn net_doc_names_the_embedded_net_and_its_bench() {
    let net_md = read("docs/net.md");
    let name = rookery::eval::DEFAULT_NET_NAME;
    let card = section(
        &net_md,
        &format!("## The embedded net: `nets/{name}.safetensors`"),
    );
    let bench = format!("`Bench: {}`", rookery::bench::SIGNATURE);
    assert!(
        card.contains(&bench),
        "docs/net.md's card of {name} should give {bench}"
    );
    let size = fs::metadata(format!(
        "{}/nets/{name}.safetensors",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("embedded net file")
    .len();
    let size_text = format_thousands(size);
    assert!(
        card.contains(&format!("{size_text} bytes")),
        "docs/net.md's card of {name} should give its size, {size_text} bytes"
    );
}

#[test]
fn readme_quotes_the_current_full_strength_rating() {
    let strength = read("docs/strength.md");
    let ladder = section(&strength, "### Full strength");
    // The first bold figure after "Estimated rating" is the estimate.
    let after = &ladder[ladder
        .find("Estimated rating")
        .expect("docs/strength.md gives an estimated rating")..];
    let bold = after.split("**").nth(1).expect("a bold rating");
    assert!(bold.contains('±'), "the estimate {bold:?} has an error bar");
    let readme = read("README.md");
    assert!(
        readme.contains(bold),
        "README should quote the full-strength rating of docs/strength.md, {bold}"
    );
    let net_md = read("docs/net.md");
    assert!(
        net_md.contains(&format!("**{bold}**")),
        "docs/net.md's card of the embedded net should quote the ladder estimate {bold}"
    );
}

fn format_thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn tuning_doc_lists_every_tunable_parameter() {
    let doc = read("docs/tuning.md");
    let expected = rookery::search::tunable::markdown_table(rookery::search::params::TUNABLES);
    assert!(
        doc.contains(&expected),
        "docs/tuning.md's parameter table differs from src/search/params.rs; regenerate it \
         with `rookery tune-params --markdown`:\n{expected}"
    );
}
