//! Colour for people at a terminal. Every renderer writes plain text (the
//! goldens, pipes and files see exactly that); at a colour terminal the
//! output is painted here, line by line, by the fixed shapes the renderers
//! write: diagnostics (`error[E0509]:`, `  --> `, the gutter, the markers,
//! `help:`), `check`'s and `test`'s verdicts (`ok:`, `failed:`, `PASS`,
//! `FAIL`) and `plan`'s classifications.
//!
//! Whether to paint: `--color always|never`, else `NO_COLOR` (never),
//! `CLICOLOR_FORCE` (always), `TERM=dumb` (never), else whether the stream
//! is a terminal.

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

use anstyle::{AnsiColor, Style};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

static STDOUT: AtomicBool = AtomicBool::new(false);
static STDERR: AtomicBool = AtomicBool::new(false);

/// Decides, once, whether stdout and stderr are painted.
pub fn init(choice: ColorChoice) {
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    let decided = match choice {
        ColorChoice::Always => Some(true),
        ColorChoice::Never => Some(false),
        ColorChoice::Auto if env("NO_COLOR").is_some() => Some(false),
        ColorChoice::Auto if env("CLICOLOR_FORCE").is_some_and(|v| v != "0") => Some(true),
        ColorChoice::Auto if env("TERM").is_some_and(|t| t == "dumb") => Some(false),
        ColorChoice::Auto => None,
    };
    STDOUT.store(decided.unwrap_or_else(|| std::io::stdout().is_terminal()), Ordering::Relaxed);
    STDERR.store(decided.unwrap_or_else(|| std::io::stderr().is_terminal()), Ordering::Relaxed);
}

pub fn stdout_painted() -> bool {
    STDOUT.load(Ordering::Relaxed)
}

pub fn stderr_painted() -> bool {
    STDERR.load(Ordering::Relaxed)
}

const ERROR: Style = AnsiColor::Red.on_default().bold();
const WARNING: Style = AnsiColor::Yellow.on_default().bold();
const LOCATION: Style = AnsiColor::Blue.on_default().bold();
const HELP: Style = AnsiColor::Cyan.on_default().bold();
const GOOD: Style = AnsiColor::Green.on_default().bold();
const BOLD: Style = Style::new().bold();

/// Plan classifications, most severe first so `STATE MIGRATION REQUIRED`
/// is not read as a shorter one.
const CLASSES: &[(&str, Style)] =
    &[("STATE INCOMPATIBLE", ERROR), ("STATE MIGRATION REQUIRED", WARNING), ("BACKFILL REQUIRED", WARNING), ("COMPATIBLE", GOOD), ("SAFE", GOOD)];

fn styled(out: &mut String, style: Style, text: &str) {
    let _ = write!(out, "{style}{text}{style:#}");
}

/// `text` with ANSI styles on the shapes the renderers write.
pub fn paint(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    // The markers under a snippet take the colour of their diagnostic.
    let mut marker = ERROR;
    for line in text.split_inclusive('\n') {
        let (body, nl) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        if paint_line(&mut out, body, &mut marker).is_none() {
            out.push_str(body);
        }
        out.push_str(nl);
    }
    out
}

/// Paints one line it recognises into `out`; None leaves it to the caller.
fn paint_line(out: &mut String, line: &str, marker: &mut Style) -> Option<()> {
    for (word, style) in [("error", ERROR), ("warning", WARNING)] {
        if let Some(rest) = line.strip_prefix(word) {
            let head_len = match rest.as_bytes().first() {
                Some(b'[') => rest.find("]:").map(|i| i + 2)?,
                Some(b':') => 1,
                _ => return None,
            };
            *marker = style;
            styled(out, style, &line[..word.len() + head_len]);
            styled(out, BOLD, &rest[head_len..]);
            return Some(());
        }
    }
    for arrow in ["  --> ", "  ::: "] {
        if let Some(rest) = line.strip_prefix(arrow) {
            styled(out, LOCATION, arrow);
            out.push_str(rest);
            return Some(());
        }
    }
    if let Some(rest) = line.strip_prefix("  help:") {
        styled(out, HELP, "  help:");
        out.push_str(rest);
        return Some(());
    }
    // A snippet line: a right-aligned line number (or none), then ` |`.
    if let Some(bar) = line.find(" |") {
        let (gutter, rest) = line.split_at(bar + 2);
        if line[..bar].trim_start().bytes().all(|b| b.is_ascii_digit()) && gutter.starts_with(' ') {
            styled(out, LOCATION, gutter);
            let markers = rest.trim_start();
            if markers.starts_with(['^', '-']) && markers.bytes().take_while(|b| *b != b' ').all(|b| b == b'^' || b == b'-') {
                out.push_str(&rest[..rest.len() - markers.len()]);
                styled(out, *marker, markers);
            } else {
                out.push_str(rest);
            }
            return Some(());
        }
    }
    for (word, style) in [("ok:", GOOD), ("failed:", ERROR), ("verdict:", BOLD)] {
        if let Some(rest) = line.strip_prefix(word) {
            styled(out, style, word);
            paint_classes(out, rest);
            return Some(());
        }
    }
    if let Some(rest) = line.strip_prefix("PASS ") {
        styled(out, GOOD, "PASS");
        out.push(' ');
        out.push_str(rest);
        return Some(());
    }
    match line {
        "PASS" => styled(out, GOOD, line),
        "FAIL" => styled(out, ERROR, line),
        _ => return paint_plan_line(out, line),
    }
    Some(())
}

/// `plan`'s lines: `  STATE INCOMPATIBLE: reason` and `model  SAFE`.
fn paint_plan_line(out: &mut String, line: &str) -> Option<()> {
    let indent = line.len() - line.trim_start().len();
    let body = &line[indent..];
    for (class, style) in CLASSES {
        if let Some(rest) = body.strip_prefix(class).filter(|r| r.starts_with(": ")) {
            out.push_str(&line[..indent]);
            styled(out, *style, class);
            out.push_str(rest);
            return Some(());
        }
        if let Some(name) = line.strip_suffix(class).and_then(|h| h.strip_suffix("  ")).filter(|n| !n.is_empty() && !n.contains(' ')) {
            out.push_str(name);
            out.push_str("  ");
            styled(out, *style, class);
            return Some(());
        }
    }
    None
}

/// The classifications inside a verdict line.
fn paint_classes(out: &mut String, text: &str) {
    let mut rest = text;
    'scan: while !rest.is_empty() {
        for (class, style) in CLASSES {
            if let Some(after) = rest.strip_prefix(class) {
                styled(out, *style, class);
                rest = after;
                continue 'scan;
            }
        }
        let ch = rest.chars().next().expect("not empty");
        out.push(ch);
        rest = &rest[ch.len_utf8()..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Styles written as tags, so the expectations read.
    fn tags(painted: &str) -> String {
        let mut s = painted.to_string();
        for (style, tag) in [(ERROR, "red"), (WARNING, "yellow"), (LOCATION, "blue"), (HELP, "cyan"), (GOOD, "green"), (BOLD, "bold")] {
            s = s.replace(&style.render().to_string(), &format!("<{tag}>"));
        }
        s.replace(&anstyle::Reset.render().to_string(), "</>")
    }

    #[test]
    fn a_diagnostic() {
        let text = "error[E0509]: model `a` uses the column `x`\n  --> models/a.sql:1:8\n   |\n 1 | SELECT x FROM t\n   |        ^\n  help: did you mean `y`?\n";
        expect_test::expect![[r#"
            <red>error[E0509]:</><bold> model `a` uses the column `x`</>
            <blue>  --> </>models/a.sql:1:8
            <blue>   |</>
            <blue> 1 |</> SELECT x FROM t
            <blue>   |</>        <red>^</>
            <cyan>  help:</> did you mean `y`?
        "#]]
        .assert_eq(&tags(&paint(text)));
        let warning = paint("warning[W0761]: source `x` is never read\n   |    ---- here\n");
        assert!(tags(&warning).contains("<yellow>---- here</>"), "{}", tags(&warning));
    }

    #[test]
    fn verdicts_and_classifications() {
        let text = "PASS\nPASS tests/a.yml (a)\nFAIL\nok: 2 fixtures passed\nfailed: 1 error\nm  SAFE\n    BACKFILL REQUIRED: replay\n  STATE INCOMPATIBLE: rebuild required\nverdict: STATE MIGRATION REQUIRED (1 model)\n";
        expect_test::expect![[r#"
            <green>PASS</>
            <green>PASS</> tests/a.yml (a)
            <red>FAIL</>
            <green>ok:</> 2 fixtures passed
            <red>failed:</> 1 error
            m  <green>SAFE</>
                <yellow>BACKFILL REQUIRED</>: replay
              <red>STATE INCOMPATIBLE</>: rebuild required
            <bold>verdict:</> <yellow>STATE MIGRATION REQUIRED</> (1 model)
        "#]]
        .assert_eq(&tags(&paint(text)));
    }

    #[test]
    fn other_text_is_left_as_it_is() {
        for text in ["customer_totals\n", "  definition=(amount > 0)\n", "{\"severity\": \"error\"}\n", "errors: 3\n", "a | b\n", "model SAFE\n"] {
            assert_eq!(paint(text), text);
        }
    }
}
