//! The command-line tools behave like other Unix tools when what reads their output goes
//! away (`rookery perft 6 --divide | head -3`): they end on SIGPIPE, without a panic.

#[cfg(unix)]
#[test]
fn a_closed_output_pipe_ends_a_tool_quietly() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};

    let mut child = Command::new(env!("CARGO_BIN_EXE_rookery"))
        .args(["perft", "4", "--divide"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rookery starts");
    // Close the reading end before perft has printed anything (it counts ~200k nodes
    // first), so its first line meets a closed pipe.
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("rookery ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "stderr: {stderr}");
    assert_eq!(
        output.status.signal(),
        Some(libc::SIGPIPE),
        "status {:?}, stderr: {stderr}",
        output.status
    );
}
