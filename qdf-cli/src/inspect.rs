//! `qdf inspect`: prints the events of `qdf_core::inspect`, one line each, as
//! `offset  indent description`, then a summary line.

use std::fmt::Write as _;
use std::io::Write;

use qdf_core::inspect::{
    self, ColumnValues, EscapeKind, Event, EventKind, Intern, Number, RefForm,
};

use crate::input::{self, Input, Mode};
use crate::{Failure, QdfInput};

/// Strings longer than this many characters are cut (unless `--full`).
const CUT: usize = 64;

/// Runs `qdf inspect`.
pub fn run(args: &QdfInput, full: bool) -> Result<(), Failure> {
    let input = Input::read(args)?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut p = Printer {
        out: &mut out,
        full,
        line: String::new(),
        io: None,
        counts: Counts::default(),
        dictionary: qdf_core::dictionary_id(&input.bytes).ok().flatten(),
    };
    let r = input.walk(&mut |e| p.event(e)).map(|n| p.counts.frames = n);
    if let Some(e) = p.io.take() {
        return Err(input::write_failed(e));
    }
    if r.is_ok() {
        let summary = p.counts.summary(input.mode, input.bytes.len());
        writeln!(p.out, "{summary}").map_err(input::write_failed)?;
    }
    out.flush().map_err(input::write_failed)?;
    r
}

/// What the summary line counts.
#[derive(Default)]
struct Counts {
    frames: u64,
    defines: u64,
    refs: u64,
    shapes_declared: u64,
    shapes_reused: u64,
    /// QPack values, those of columns included (a column's values or a list column's
    /// lengths).
    packed: u64,
    /// Of `packed`, those of columns.
    packed_columns: u64,
    /// Numbers predicted from their field's last one (`F0`, `F1`, `FD`).
    predicted: u64,
    containers: u64,
}

impl Counts {
    fn summary(&self, mode: Mode, len: usize) -> String {
        let what = match mode {
            Mode::Message => format!("message, {len} bytes"),
            Mode::Stream => format!("stream, {}, {len} bytes", plural(self.frames, "frame")),
        };
        let mut packed = plural(self.packed, "QPack value");
        if self.packed_columns > 0 {
            let _ = write!(packed, " ({} in columns)", self.packed_columns);
        }
        format!(
            "-- {what}: {}, {}; {} declared, {} reused; {}; {}; {}",
            plural(self.defines, "intern definition"),
            plural(self.refs, "reference"),
            plural(self.shapes_declared, "shape"),
            self.shapes_reused,
            plural(self.predicted, "predicted number"),
            packed,
            plural(self.containers, "columnar container"),
        )
    }
}

struct Printer<'w, W: Write> {
    out: &'w mut W,
    full: bool,
    line: String,
    /// The first write error (the walk cannot be stopped from the callback).
    io: Option<std::io::Error>,
    counts: Counts,
    /// The dictionary the header names (flag `20`).
    dictionary: Option<qdf_core::DictionaryId>,
}

impl<W: Write> Printer<'_, W> {
    fn event(&mut self, e: &Event<'_>) {
        if self.io.is_some() {
            return;
        }
        self.line.clear();
        if !self.describe(e) {
            return;
        }
        let indent = 2 * e.depth as usize;
        if let Err(err) = writeln!(self.out, "{:>8}  {:indent$}{}", e.offset, "", self.line) {
            self.io = Some(err);
        }
    }

    /// Writes the description of `e` into `self.line`; false for events not printed.
    fn describe(&mut self, e: &Event<'_>) -> bool {
        let len = e.end - e.offset;
        let l = &mut self.line;
        if e.key {
            l.push_str("key ");
        }
        match &e.kind {
            EventKind::Header { flags } => {
                let _ = write!(
                    l,
                    "header QDF v1, flags 0x{flags:02x}{}",
                    flag_names(*flags)
                );
                if let Some(id) = self.dictionary {
                    let _ = write!(l, ", dictionary {id}");
                }
            }
            EventKind::Frame {
                index,
                body_len,
                checksum,
            } => {
                let _ = write!(l, "frame {index}: {body_len}-byte body");
                if let Some(c) = checksum {
                    let _ = write!(l, ", crc32c 0x{c:08x}");
                }
            }
            EventKind::Renewal { generation } => {
                let _ = write!(l, "renewal: Dense state emptied, generation {generation}");
            }
            EventKind::Nil => l.push_str("nil"),
            EventKind::Bool(b) => {
                let _ = write!(l, "{b}");
            }
            EventKind::Int(i) => number(l, Number::Int(*i)),
            EventKind::F32(f) => number(l, Number::F32(*f)),
            EventKind::F64(f) => number(l, Number::F64(*f)),
            EventKind::Predicted { value, form } => {
                self.counts.predicted += 1;
                number(l, *value);
                let _ = write!(l, "  predicted: {form}");
            }
            EventKind::Char(c) => {
                let _ = write!(l, "{c:?}");
            }
            EventKind::Unit => l.push_str("()"),
            EventKind::UnitStruct => l.push_str("unit struct"),
            EventKind::Timestamp { secs, nanos } => {
                let _ = write!(l, "timestamp {secs}s {nanos}ns");
            }
            EventKind::Text {
                bytes,
                binary,
                intern,
                hex,
            } => {
                text(l, bytes, *binary, self.full);
                if *hex {
                    l.push_str("  (hex text)");
                }
                match intern {
                    Intern::Inline => {}
                    Intern::Define(id) => {
                        self.counts.defines += 1;
                        let _ = write!(l, "  = intern #{id}");
                    }
                    Intern::Ref { id, form } => {
                        self.counts.refs += 1;
                        let how = match form {
                            RefForm::StateRef => "E1".to_string(),
                            RefForm::Repeat => "E8 repeat".to_string(),
                            RefForm::Mtf(r) => format!("E9 rank {r}"),
                            RefForm::Pair => "EA pair".to_string(),
                            other => format!("{other:?}"),
                        };
                        let _ = write!(l, "  <- intern #{id} ({how})");
                    }
                    Intern::Prefix { kept } => {
                        let _ = write!(l, "  <- field's last string, first {kept} bytes + this");
                    }
                    other => {
                        let _ = write!(l, "  ({other:?})");
                    }
                }
            }
            EventKind::Array { count } => {
                let _ = write!(l, "array, {}", plural(*count, "element"));
            }
            EventKind::Map { count } => {
                let _ = write!(l, "map, {}", plural(*count, "entry"));
            }
            EventKind::Shape { reuse, fields } => match reuse {
                None => {
                    self.counts.shapes_declared += 1;
                    let _ = write!(l, "shape declaration, {fields} fields");
                }
                Some(id) => {
                    self.counts.shapes_reused += 1;
                    let _ = write!(l, "shape #{id}, {fields} fields");
                }
            },
            EventKind::ShapeDefined { id, fields } => {
                let _ = write!(l, "= shape #{id} ({fields} fields)");
            }
            EventKind::Field { name } => {
                text(l, name, false, self.full);
                l.push_str("  (from the shape)");
            }
            EventKind::Escape(k) => l.push_str(match k {
                EscapeKind::Escape => "escape: name/value pairs until nil",
                EscapeKind::OpenReuse => "open reuse: the shape's values, then pairs until nil",
                EscapeKind::MarkedKey => "marked key (not a name)",
                _ => "shape escape",
            }),
            EventKind::EndMark => l.push_str("end of pairs"),
            EventKind::Some => l.push_str("Some"),
            EventKind::Variant(k) => {
                let _ = write!(l, "{} variant", format!("{k:?}").to_lowercase());
            }
            EventKind::Packed { codec, kind, count } => {
                self.counts.packed += 1;
                let elem = kind.map_or("bool", inspect::kind_name);
                let _ = write!(l, "QPack {codec}, {count} × {elem}, {len} bytes");
            }
            EventKind::Columnar {
                hybrid,
                rows,
                shape,
                declared,
                interned,
            } => {
                self.counts.containers += 1;
                let tag = if *hybrid { "F7 hybrid" } else { "EF" };
                let how = if *declared { "declared" } else { "reused" };
                let _ = write!(
                    l,
                    "columnar {tag}, {rows} rows, column shape #{shape} {how}"
                );
                if !interned.is_empty() {
                    // Names below `min_intern` bytes are inline, and a name already in the
                    // table is a reference: only the definitions are counted here.
                    let n = u64::from(interned.end - interned.start);
                    self.counts.defines += n;
                    let verb = if n == 1 { "defines" } else { "define" };
                    let _ = write!(l, ", {} {verb} intern {}", plural(n, "name"), ids(interned));
                }
            }
            EventKind::Column {
                index,
                name,
                kind,
                values,
                count,
                interned,
            } => {
                if *values == ColumnValues::Residual {
                    let _ = write!(l, "column {index} {name:?}: {values}");
                    if len > 0 {
                        let _ = write!(l, ", presence mask {len} bytes");
                    }
                } else {
                    let _ = write!(l, "column {index} {name:?} {}: {values}", class(*kind));
                    let _ = write!(l, ", {count} values, {len} bytes");
                }
                if matches!(
                    values,
                    ColumnValues::Packed(..)
                        | ColumnValues::List {
                            lengths: Some(_),
                            ..
                        }
                        | ColumnValues::Map {
                            lengths: Some(_),
                            ..
                        }
                        | ColumnValues::Tagged { tags: Some(_), .. }
                ) {
                    self.counts.packed += 1;
                    self.counts.packed_columns += 1;
                }
                if !interned.is_empty() {
                    self.counts.defines += u64::from(interned.end - interned.start);
                    let _ = write!(l, ", defines intern {}", ids(interned));
                }
            }
            EventKind::Row { index } => {
                let _ = write!(l, "row {index}");
            }
            EventKind::Close => return false,
            _ => l.push_str("(unknown event)"),
        }
        true
    }
}

/// A number: `7`, `0.5`, `0.5f32`.
fn number(l: &mut String, n: Number) {
    let _ = match n {
        Number::Int(i) => write!(l, "{i}"),
        Number::F32(f) => write!(l, "{f:?}f32"),
        Number::F64(f) => write!(l, "{f:?}"),
        other => write!(l, "{other:?}"),
    };
}

/// `1 entry`, `2 entries`, `0 frames`.
fn plural(n: u64, one: &str) -> String {
    match (n, one.strip_suffix('y')) {
        (1, _) => format!("1 {one}"),
        (_, Some(stem)) => format!("{n} {stem}ies"),
        _ => format!("{n} {one}s"),
    }
}

/// ` (dense, qpack, …)` for the set header flags.
pub fn flag_names(flags: u8) -> String {
    let names: Vec<&str> = [
        (0x01, "dense"),
        (0x02, "qpack"),
        (0x04, "entropy"),
        (0x08, "column index"),
        (0x10, "frame checksums"),
        (0x20, "dictionary"),
    ]
    .iter()
    .filter(|(bit, _)| flags & bit != 0)
    .map(|(_, n)| *n)
    .collect();
    if names.is_empty() {
        String::new()
    } else {
        format!(" ({})", names.join(", "))
    }
}

/// `#a..#b` for a range of intern ids (inclusive in the text).
fn ids(r: &std::ops::Range<u32>) -> String {
    if r.end - r.start == 1 {
        format!("#{}", r.start)
    } else {
        format!("#{}..#{}", r.start, r.end - 1)
    }
}

/// The column class of a kind byte, with its optional (`40`) and nullable (`80`) bits.
fn class(kind: u8) -> String {
    let c = match kind & 0x0F {
        0 => "int",
        1 => "uint",
        2 => "f64",
        3 => "bool",
        4 => "str",
        5 => "struct",
        6 => "f32",
        7 => "list",
        8 => "tagged",
        9 => "map",
        0x0F => "residual",
        _ => "?",
    };
    let mut s = c.to_string();
    // Bits 10/20: number text on a string column (both: date-time text), the map form or
    // `Some` wrapper of a tagged one; bit 10 a variant's fields on a struct or list column.
    let tagged = kind & 0x0F == 8;
    if !tagged && kind & 0x30 == 0x30 {
        s.push_str(" date-time");
    } else {
        if kind & 0x10 != 0 {
            s.push_str(match kind & 0x0F {
                8 => " map",
                5 | 7 => " variant",
                _ => " decimal",
            });
        }
        if kind & 0x20 != 0 {
            s.push_str(if tagged { " some" } else { " hex" });
        }
    }
    if kind & 0x40 != 0 {
        s.push_str(" optional");
    }
    if kind & 0x80 != 0 {
        s.push_str(" nullable");
    }
    s
}

/// A string quoted with Rust escapes, or a byte string as `b"…"`; cut after [`CUT`]
/// characters unless `full`.
fn text(l: &mut String, bytes: &[u8], binary: bool, full: bool) {
    if binary {
        let shown = if full {
            bytes
        } else {
            &bytes[..bytes.len().min(CUT)]
        };
        let _ = write!(l, "b\"{}\"", shown.escape_ascii());
        if shown.len() < bytes.len() {
            let _ = write!(l, "… ({} bytes)", bytes.len());
        }
        return;
    }
    let s = String::from_utf8_lossy(bytes);
    let n = s.chars().count();
    if full || n <= CUT {
        let _ = write!(l, "{s:?}");
    } else {
        let cut: String = s.chars().take(CUT).collect();
        let _ = write!(l, "{cut:?}… ({} bytes)", bytes.len());
    }
}
