//! The command line: the tools behave like other Unix tools when what reads their output
//! goes away (`rookery perft 6 --divide | head -3`): they end on SIGPIPE, without a panic;
//! `bench` ends as OpenBench's workers read it, in both forms they call it.

#[cfg(unix)]
#[test]
fn a_closed_output_pipe_ends_a_tool_quietly() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};

    // The reading end is closed before the tool starts, so its first line meets a closed
    // pipe whatever the timing (a pipe read by the test could swallow all of perft's
    // output into its buffer before the test closed it, and the tool would end with 0).
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let output = Command::new(env!("CARGO_BIN_EXE_rookery"))
        .args(["perft", "2", "--divide"])
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .expect("rookery runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "stderr: {stderr}");
    assert_eq!(
        output.status.signal(),
        Some(libc::SIGPIPE),
        "status {:?}, stderr: {stderr}",
        output.status
    );
}

/// `bench --net FILE` searches with another net (to compare nets' speeds); a file that is
/// not a net is an error, not a silent bench with the embedded one.
#[test]
fn bench_searches_with_the_net_it_is_given() {
    use std::process::Command;
    let bench = |net: &str| {
        Command::new(env!("CARGO_BIN_EXE_rookery"))
            .args(["bench", "2", "--net", net])
            .output()
            .expect("rookery runs")
    };
    let net = concat!(env!("CARGO_MANIFEST_DIR"), "/nets/rookery-v1.safetensors");
    let output = bench(net);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "stdout: {stdout}");
    assert!(
        stdout.lines().next().unwrap().contains("rookery-v1"),
        "stdout: {stdout}"
    );
    let last = stdout.lines().last().unwrap();
    assert!(
        last.ends_with(" nps") && last.contains(" nodes "),
        "last line: {last}"
    );

    let output = bench("/nonexistent/net.safetensors");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("cannot read EvalFile"), "stderr: {stderr}");
    assert!(!String::from_utf8_lossy(&output.stdout).contains(" nps"));
}

/// OpenBench runs `./engine bench` (or, for engines with a private net,
/// `./engine "setoption name EvalFile value F" bench quit`) and reads the last line's
/// `<nodes> nodes` and `<nps> nps`; the node count must be the commit's `Bench:`.
#[test]
fn bench_ends_with_the_signature_line_openbench_reads_in_both_forms() {
    use std::process::Command;
    let forms: [&[&str]; 2] = [
        &["bench"],
        &["setoption name Hash value 16", "bench", "quit"],
    ];
    for args in forms {
        let output = Command::new(env!("CARGO_BIN_EXE_rookery"))
            .args(args)
            .output()
            .expect("rookery runs");
        assert!(output.status.success(), "{args:?}: {:?}", output.status);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let last = stdout.lines().last().unwrap_or_default();
        let words: Vec<&str> = last.split_whitespace().collect();
        let nodes = match words.as_slice() {
            [nodes, "nodes", nps, "nps"] if nps.parse::<u64>().is_ok() => nodes.parse::<u64>(),
            _ => panic!("{args:?}: last line is '{last}', not '<nodes> nodes <nps> nps'"),
        };
        assert_eq!(nodes, Ok(rookery::bench::SIGNATURE), "{args:?}: {last}");
    }
}

/// `bench --policy [FILE]` times the embedded MCTS prior or a policy file; a value net
/// given as a policy is refused with a message, not timed.
#[test]
fn bench_policy_times_the_embedded_policy_or_a_file() {
    use std::process::Command;
    let bench = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_rookery"))
            .args(["bench", "--policy"])
            .args(extra)
            .output()
            .expect("rookery runs")
    };
    let sp4 = concat!(env!("CARGO_MANIFEST_DIR"), "/nets/policy-sp4.safetensors");
    for (extra, name) in [
        (vec![], "policy-sp4-mz1"),
        (vec![sp4], "policy-sp4.safetensors"),
    ] {
        let output = bench(&extra);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{extra:?}: {stdout}");
        assert!(stdout.lines().next().unwrap().contains(name), "{stdout}");
        for label in ["position vector:", "all legal moves' logits:", "+ softmax"] {
            // "<label>   1234 ns CPU  (1250 ns wall)": the number before the first "ns".
            let words: Vec<&str> = stdout
                .lines()
                .find(|l| l.starts_with(label))
                .map_or(vec![], |l| l.split_whitespace().collect());
            let ns: Option<f64> = words
                .iter()
                .position(|w| *w == "ns")
                .and_then(|i| words.get(i.wrapping_sub(1)))
                .and_then(|n| n.parse().ok());
            assert!(ns.is_some_and(|ns| ns > 0.0), "{label} in {stdout}");
        }
    }
    let value_net = concat!(env!("CARGO_MANIFEST_DIR"), "/nets/rookery-v1.safetensors");
    let output = bench(&[value_net]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("not a self-play policy net"), "{stderr}");
}
