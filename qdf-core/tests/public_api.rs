//! The public API, pinned two ways, so that adding or removing a public item fails a test
//! until the change is deliberate:
//!
//! 1. `every_root_item_is_nameable`: names every item re-exported at the crate root (a
//!    removed or renamed item fails to compile).
//! 2. `public_items_match_the_list`: lists the `pub` items the crate declares — the root's
//!    `pub use` block, `pub mod`s and `pub fn`s of `src/lib.rs`, and the `pub` items and
//!    fields of the files that define the root's types (`options.rs`, `error.rs`,
//!    `value/`) — and compares them with the checked-in `tests/public_api.txt`. An added
//!    item fails here. After a deliberate change, regenerate the list with
//!    `UPDATE_PUBLIC_API=1 cargo test -p qdf-core --test public_api` and review its diff.
//!
//! Stable Rust only (no rustdoc JSON): the lister reads source lines, so it sees items
//! declared `pub` at the start of a line, which is how this crate writes them (rustfmt).

use std::fmt::Write as _;
use std::path::Path;

#[test]
fn every_root_item_is_nameable() {
    use qdf_core::{
        Category, Compound, DecoderSession, Deserializer, EncoderSession, Error, ErrorCode,
        Features, FrameStatus, Limits, Options, Result, Serializer, SessionStats, StreamDecoder,
        StreamEncoder, Value, Variant, VariantKind, from_reader, from_reader_with, from_slice,
        from_slice_with, from_value, inspect, take_from_slice, take_from_slice_with, to_value,
        to_vec, to_vec_with, to_writer, to_writer_with,
    };
    let _ = (
        from_slice::<Value>,
        from_slice_with::<Value>,
        take_from_slice::<Value>,
        take_from_slice_with::<Value>,
        from_reader::<&[u8], Value>,
        from_reader_with::<&[u8], Value>,
        to_vec::<Value>,
        to_vec_with::<Value>,
        to_writer::<Vec<u8>, Value>,
        to_writer_with::<Vec<u8>, Value>,
        to_value::<Value>,
        from_value::<Value>,
        std::any::type_name::<Result<()>>(),
        Options::default(),
    );
    let _ = (
        std::any::type_name::<Category>(),
        std::any::type_name::<Compound<'_>>(),
        std::any::type_name::<DecoderSession>(),
        std::any::type_name::<Deserializer<'_>>(),
        std::any::type_name::<EncoderSession>(),
        std::any::type_name::<Error>(),
        std::any::type_name::<ErrorCode>(),
        std::any::type_name::<Features>(),
        std::any::type_name::<FrameStatus>(),
        std::any::type_name::<Limits>(),
        std::any::type_name::<Serializer>(),
        std::any::type_name::<SessionStats>(),
        std::any::type_name::<StreamDecoder<&[u8]>>(),
        std::any::type_name::<StreamEncoder<Vec<u8>>>(),
        std::any::type_name::<Variant>(),
        std::any::type_name::<VariantKind>(),
    );
    let _ = inspect::message;
}

/// The files whose `pub` items are listed, relative to the crate root.
const SOURCES: &[&str] = &[
    "src/lib.rs",
    "src/options.rs",
    "src/error.rs",
    "src/value/mod.rs",
    "src/value/access.rs",
    "src/value/convert.rs",
    "src/value/deserializer.rs",
];

/// `file: kind name` for every `pub` item (and `pub` field) declared at the start of a line,
/// plus `src/lib.rs: use name` for each name of the root's `pub use` lines.
fn list_public_items(root: &Path) -> String {
    let mut items = Vec::new();
    for file in SOURCES {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let mut in_use = false;
        for line in text.lines() {
            let t = line.trim_start();
            if in_use || t.starts_with("pub use ") {
                // `pub use a::{B, C};` possibly over several lines.
                let body = t.trim_start_matches("pub use ");
                for name in body.split([',', '{', '}', ';', ' ']) {
                    let name = name.rsplit("::").next().unwrap_or("");
                    if !name.is_empty() && !name.ends_with(':') {
                        items.push(format!("{file}: use {name}"));
                    }
                }
                in_use = !t.ends_with(';');
                continue;
            }
            let Some(rest) = t.strip_prefix("pub ") else {
                continue;
            };
            // `pub const fn x` is a `fn`; `pub const X` stays a `const`.
            let rest = rest
                .strip_prefix("const ")
                .filter(|r| r.starts_with("fn "))
                .unwrap_or(rest);
            let mut words = rest.split(|c: char| !(c.is_alphanumeric() || c == '_'));
            let (Some(kind), Some(name)) = (words.next(), words.next()) else {
                continue;
            };
            let item = match kind {
                "fn" | "struct" | "enum" | "trait" | "type" | "const" | "static" | "mod" => {
                    format!("{file}: {kind} {name}")
                }
                // `pub field: Type` (the kind is the field's name).
                _ if rest.contains(':') && !rest.contains('(') => format!("{file}: field {kind}"),
                _ => continue,
            };
            items.push(item);
        }
    }
    items.sort();
    let mut out = String::new();
    for i in items {
        writeln!(out, "{i}").unwrap();
    }
    out
}

#[test]
fn public_items_match_the_list() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let got = list_public_items(root);
    let path = root.join("tests/public_api.txt");
    if std::env::var_os("UPDATE_PUBLIC_API").is_some() {
        std::fs::write(&path, &got).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    if got != want {
        let added: Vec<_> = got
            .lines()
            .filter(|l| !want.lines().any(|w| w == *l))
            .collect();
        let removed: Vec<_> = want
            .lines()
            .filter(|l| !got.lines().any(|g| g == *l))
            .collect();
        panic!(
            "the public API changed: added {added:#?}, removed {removed:#?}; if deliberate, \
             rerun with UPDATE_PUBLIC_API=1 and commit tests/public_api.txt"
        );
    }
}

#[test]
fn the_lister_sees_items_fields_and_uses() {
    let list = list_public_items(Path::new(env!("CARGO_MANIFEST_DIR")));
    for line in [
        "src/lib.rs: fn from_reader",
        "src/lib.rs: use Limits",
        "src/lib.rs: use to_value",
        "src/options.rs: field max_depth",
        "src/options.rs: struct Limits",
        "src/options.rs: const MANY_STREAMS",
        "src/error.rs: fn offset",
        "src/options.rs: fn max_frame_length",
    ] {
        assert!(
            list.lines().any(|l| l == line),
            "{line} missing from\n{list}"
        );
    }
    // Crate-private items are not listed.
    assert!(!list.contains("fn depth_limit"), "{list}");
    assert!(!list.contains("fn with_offset"), "{list}");
}
