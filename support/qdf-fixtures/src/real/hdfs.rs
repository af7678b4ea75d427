//! A parser for HDFS DataNode/NameNode log lines (the loghub HDFS_v1 format):
//!
//! ```text
//! 081109 203615 148 INFO dfs.DataNode$PacketResponder: PacketResponder 1 for block blk_1 terminating
//! date   time   pid level component                      message
//! ```
//!
//! The loghub sample is research-only and never shipped; tests use a synthetic sample in the
//! same format. Point a local run at the real file yourself.

use serde::{Deserialize, Serialize};

/// One parsed log line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct LogLine {
    /// `yyMMdd`.
    pub date: String,
    /// `HHmmss`.
    pub time: String,
    /// Thread/process id.
    pub pid: u32,
    /// `INFO`, `WARN`, `ERROR`, …
    pub level: String,
    /// Logger name, without the trailing `:`.
    pub component: String,
    /// The rest of the line.
    pub message: String,
}

/// Parses one line (without its newline).
///
/// # Errors
/// A message naming the field that is missing or malformed and the text found.
pub fn parse_line(line: &str) -> Result<LogLine, String> {
    let mut rest = line;
    let mut word = |what: &str| {
        let (w, r) = rest
            .split_once(' ')
            .ok_or_else(|| format!("expected {what}, found {rest:?}"))?;
        rest = r;
        Ok::<_, String>(w)
    };
    let date = digits(word("date")?, 6, "date")?;
    let time = digits(word("time")?, 6, "time")?;
    let pid = word("pid")?;
    let pid = pid
        .parse()
        .map_err(|_| format!("expected a numeric pid, found {pid:?}"))?;
    let level = word("level")?.to_owned();
    let (component, message) = rest
        .split_once(": ")
        .ok_or_else(|| format!("expected `component: message`, found {rest:?}"))?;
    let (component, message) = (component.to_owned(), message.to_owned());
    Ok(LogLine {
        date,
        time,
        pid,
        level,
        component,
        message,
    })
}

/// Parses every non-empty line; the error names the 1-based line.
///
/// # Errors
/// The first line [`parse_line`] rejects.
pub fn parse(text: &str) -> Result<Vec<LogLine>, String> {
    let lines = text.lines().enumerate().filter(|(_, l)| !l.is_empty());
    lines
        .map(|(i, l)| parse_line(l).map_err(|e| format!("line {}: {e}", i + 1)))
        .collect()
}

fn digits(w: &str, n: usize, what: &str) -> Result<String, String> {
    if w.len() == n && w.bytes().all(|b| b.is_ascii_digit()) {
        Ok(w.to_owned())
    } else {
        Err(format!("expected a {n}-digit {what}, found {w:?}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Synthetic lines in the HDFS format (invented ids, hosts and sizes).
    const SAMPLE: &str = "\
090312 101500 41 INFO dfs.DataNode$DataXceiver: Receiving block blk_1001 src: /10.0.0.1:4000 dest: /10.0.0.1:50010
090312 101501 7 INFO dfs.FSNamesystem: BLOCK* NameSystem.allocateBlock: /data/part-0001. blk_-1002
090312 101502 41 WARN dfs.DataNode$DataXceiver: 10.0.0.2:50010:Got exception while serving blk_1001 to /10.0.0.3:
090312 101503 12 INFO dfs.DataNode$PacketResponder: PacketResponder 2 for block blk_1001 terminating
";

    #[test]
    fn parses_the_synthetic_sample() {
        let lines = parse(SAMPLE).expect("sample parses");
        assert_eq!(lines.len(), 4);
        assert_eq!(
            lines[0],
            LogLine {
                date: "090312".into(),
                time: "101500".into(),
                pid: 41,
                level: "INFO".into(),
                component: "dfs.DataNode$DataXceiver".into(),
                message: "Receiving block blk_1001 src: /10.0.0.1:4000 dest: /10.0.0.1:50010"
                    .into(),
            }
        );
        assert_eq!(lines[1].component, "dfs.FSNamesystem");
        assert_eq!(
            lines[1].message,
            "BLOCK* NameSystem.allocateBlock: /data/part-0001. blk_-1002"
        );
        assert_eq!((lines[2].level.as_str(), lines[2].pid), ("WARN", 41));
        assert!(lines[2].message.ends_with("to /10.0.0.3:"));
    }

    #[test]
    fn names_what_is_wrong() {
        let e = parse("090312 101500 41 INFO x: ok\n09031 101500 41 INFO x: y\n").unwrap_err();
        assert_eq!(e, "line 2: expected a 6-digit date, found \"09031\"");
        assert!(
            parse_line("090312 101500 pid INFO x: y")
                .unwrap_err()
                .contains("numeric pid")
        );
        assert!(
            parse_line("090312 101500 41 INFO no-colon")
                .unwrap_err()
                .contains("component")
        );
        assert!(parse_line("090312").unwrap_err().contains("expected date"));
    }
}
