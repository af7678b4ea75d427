//! `qdf stats`: a stream's frames, bytes per frame and the growth of its Dense tables, read
//! from the decoder session's `SessionStats` after each frame.

use std::io::Write;

use qdf_core::SessionStats;
use qdf_core::inspect::{self, EventKind};
use qdf_core::wire::header::header_len;

use crate::input::{self, Input, Mode, Progress};
use crate::{Failure, QdfInput};

/// Runs `qdf stats`.
pub fn run(args: &QdfInput) -> Result<(), Failure> {
    let input = Input::read(args)?;
    let report = match input.mode {
        Mode::Message => message(&input)?,
        Mode::Stream => stream(&input)?,
    };
    let mut out = std::io::stdout().lock();
    out.write_all(report.as_bytes())
        .and_then(|()| out.flush())
        .map_err(input::write_failed)
}

/// A one-shot message has no frames: its size and what its body defines.
fn message(input: &Input<'_>) -> Result<String, Failure> {
    let (mut defines, mut shapes, mut containers) = (0u64, 0u64, 0u64);
    input.walk(&mut |e| match &e.kind {
        EventKind::Text {
            intern: inspect::Intern::Define(_),
            ..
        } => defines += 1,
        EventKind::ShapeDefined { .. } => shapes += 1,
        EventKind::Columnar { interned, .. } => {
            containers += 1;
            defines += u64::from(interned.end - interned.start);
        }
        EventKind::Column { interned, .. } => defines += u64::from(interned.end - interned.start),
        _ => {}
    })?;
    let bytes = &input.bytes;
    let header = header_len(bytes[4]);
    Ok(format!(
        "message: {} bytes ({header}-byte header, {}-byte body), flags 0x{:02x}{}\n\
         not a stream: no frames; the body defines {defines} intern entries and {shapes} \
         shapes, and holds {containers} columnar containers\n",
        bytes.len(),
        bytes.len() - header,
        bytes[4],
        crate::inspect::flag_names(bytes[4]),
    ))
}

fn stream(input: &Input<'_>) -> Result<String, Failure> {
    let bytes = &input.bytes;
    let mut sizes: Vec<u64> = Vec::new();
    // The session's tables after frames 1, 2, 5, 10, 20, 50, … and after the last.
    let mut growth: Vec<(u64, SessionStats)> = Vec::new();
    let mut next_mark = 1u64;
    let mut progress = Progress::new(bytes.len() as u64);
    let mut last = SessionStats::default();
    input.frames(|_: serde::de::IgnoredAny, pos, used, dec| {
        // The first frame's bytes include the stream header; a frame is counted without it
        // (length prefix, body and checksum).
        let header = if pos == 0 { header_len(bytes[4]) } else { 0 };
        sizes.push((used - header) as u64);
        let n = sizes.len() as u64;
        last = dec.stats();
        if n == next_mark {
            growth.push((n, last));
            next_mark = next_mark_after(next_mark);
        }
        progress.update((pos + used) as u64, n);
        Ok(())
    })?;
    progress.finish();
    let frames = sizes.len() as u64;
    if growth.last().is_none_or(|&(n, _)| n != frames) && frames > 0 {
        growth.push((frames, last));
    }
    let flags = bytes.get(4).copied().unwrap_or(0);
    let mut r = format!(
        "stream: {} bytes, header flags 0x{flags:02x}{}\nframes: {frames}\n",
        bytes.len(),
        crate::inspect::flag_names(flags),
    );
    if frames > 0 {
        let total: u64 = sizes.iter().sum();
        sizes.sort_unstable();
        let median = sizes[(sizes.len() - 1) / 2];
        r += &format!(
            "bytes per frame (length prefix, body, checksum): min {}, median {median}, max {}, \
             mean {:.1}, total {total}\n",
            sizes[0],
            sizes[sizes.len() - 1],
            total as f64 / frames as f64,
        );
    }
    if flags & 0x01 == 0 {
        r += "Dense state: none (the header lacks flag 01: every frame is self-contained)\n";
        return Ok(r);
    }
    r += "Dense tables after frame N (intern entries and bytes, shapes, column shapes, heap; \
          renewals so far, docs/SPEC.md §18):\n";
    r += &format!(
        "{:>10} {:>10} {:>12} {:>8} {:>10} {:>12} {:>9}\n",
        "frame", "entries", "intern B", "shapes", "col shapes", "heap B", "renewals"
    );
    for (n, s) in &growth {
        r += &format!(
            "{n:>10} {:>10} {:>12} {:>8} {:>10} {:>12} {:>9}\n",
            s.intern_entries, s.intern_bytes, s.shapes, s.col_shapes, s.heap_bytes, s.renewals
        );
    }
    Ok(r)
}

/// 1, 2, 5, 10, 20, 50, 100, …
fn next_mark_after(m: u64) -> u64 {
    let mut p = 1u64;
    while p * 10 <= m {
        p *= 10;
    }
    match m / p {
        1 => 2 * p,
        2 => 5 * p,
        _ => 10 * p,
    }
}
