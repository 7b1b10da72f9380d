//! A reader that goes away early (`streamform ... | head -1`) ends the
//! command quietly: no panic, no error, the command's own exit code.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

fn big_project() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("streamform-pipe-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("models")).unwrap();
    std::fs::write(dir.join("streamform.yml"), "name: big\nversion: 1\n").unwrap();
    std::fs::write(
        dir.join("sources.yml"),
        "sources:\n  orders:\n    connector: kafka\n    topic: orders\n    schema:\n      order_id: int64\n      amount: decimal(12,2)\n",
    )
    .unwrap();
    // Enough output to overflow a pipe buffer, for every command below
    // (check prints ~80 bytes a model).
    for i in 0..1000 {
        std::fs::write(dir.join(format!("models/m_{i:04}.sql")), format!("SELECT order_id, amount FROM source('orders') WHERE amount > {i}\n")).unwrap();
    }
    dir
}

#[test]
fn closed_stdout_ends_quietly() {
    let dir = big_project();
    for args in [&["inspect-plan", "--json"][..], &["inspect-plan"], &["explain"], &["check"], &["check", "--json"], &["graph"], &["graph", "--json"]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_streamform"))
            .args(args)
            .arg("--project")
            .arg(&dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
        assert!(!first.is_empty(), "{args:?} printed nothing");
        // The reader is dropped here: the pipe is closed.
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
