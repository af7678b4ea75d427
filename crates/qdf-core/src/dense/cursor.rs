//! The encoder's walk through one struct under shape interning (`docs/SPEC.md` §Shapes).
//!
//! serde hands fields one at a time and may skip some, so a reuse is speculative:
//!
//! - **declaration** `EC 00 uvarint(N)` then N × (name, value); the shape is defined when
//!   the N-th value is done;
//! - **reuse** `EC uvarint(id)` then values only, while each field's name equals the shape's
//!   name at that position;
//! - **escape**: at the first field whose name differs (or at the end, if fields are
//!   missing) the encoder writes `F2 SHAPE_ESCAPE` and continues with (name, value) pairs,
//!   closed by the end mark `C0`. No value already written changes, and names after the
//!   escape go through the intern path on both sides, so the predictors stay in step.
//! - **restart**: if the very first field differs, nothing but the `EC id` header has been
//!   written and no state has changed, so the encoder replaces that header: with the reuse
//!   of a shape that starts with this field, else a declaration, else a plain map. An
//!   escape therefore always follows at least one predicted name.
//!
//! The serializer calls [`DenseState::struct_begin`], then [`DenseState::struct_field`] before
//! each field, then [`DenseState::struct_end`], and writes what each step returns.

use super::{DenseState, NamesHash};
use crate::error::{Error, ErrorCode, Result};
use crate::options::Features;

/// How a struct starts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum StructStart {
    /// No shape: the plain map form.
    Plain,
    /// `EC 00 uvarint(len)`: a declaration.
    Declare,
    /// `EC uvarint(id)`: a speculative reuse.
    Reuse(u32),
}

/// What to write before a field's value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum FieldStep {
    /// Nothing: the shape predicted the name.
    ValueOnly,
    /// The name (through the intern path), then the value.
    Name,
    /// `F2 SHAPE_ESCAPE`, the name, then the value.
    EscapeThenName,
    /// Replace the struct's header (all that was written) by the header of this start, then
    /// write the name (unless the start is a reuse, which predicts it) and the value.
    Restart(StructStart),
}

/// What to write after the last field.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum EndStep {
    /// Nothing.
    Nothing,
    /// The end mark `C0` (after an escape).
    End,
    /// `F2 SHAPE_ESCAPE C0`: fields were missing.
    EscapeThenEnd,
}

#[derive(Copy, Clone, Debug)]
enum Mode {
    Plain,
    /// A plain map after a restart: its header holds `len`, so the count must match.
    PlainCounted,
    Declare,
    Reuse {
        id: u32,
        escaped: bool,
    },
}

/// One struct in progress.
#[derive(Copy, Clone, Debug)]
pub(crate) struct ShapeCursor {
    name: &'static str,
    len: usize,
    idx: usize,
    hash: NamesHash,
    first: Option<&'static str>,
    mode: Mode,
}

impl ShapeCursor {
    /// The field count announced to `serialize_struct`.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

fn count_error(name: &'static str, len: usize, got: usize) -> Error {
    Error::new(ErrorCode::Message(
        format!("struct {name} announced {len} fields to serialize_struct but serialized {got}")
            .into(),
    ))
}

impl DenseState {
    /// Starts struct `name` with `len` fields (serde's `serialize_struct` arguments).
    pub(crate) fn struct_begin(
        &mut self,
        name: &'static str,
        len: usize,
    ) -> (ShapeCursor, StructStart) {
        let (mode, start) = if !self.has(Features::SHAPE_INTERN) {
            (Mode::Plain, StructStart::Plain)
        } else if let Some(id) = self.shape_pred.predict(name, len) {
            (Mode::Reuse { id, escaped: false }, StructStart::Reuse(id))
        } else if self.may_declare_shape() {
            self.begin_shape();
            (Mode::Declare, StructStart::Declare)
        } else {
            (Mode::Plain, StructStart::Plain)
        };
        let cur = ShapeCursor {
            name,
            len,
            idx: 0,
            hash: NamesHash::default(),
            first: None,
            mode,
        };
        (cur, start)
    }

    /// The next field is `key`: what to write before its value.
    pub(crate) fn struct_field(
        &mut self,
        cur: &mut ShapeCursor,
        key: &'static str,
    ) -> Result<FieldStep> {
        cur.hash = self.shape_pred.feed(cur.hash, key.as_bytes());
        cur.idx += 1;
        if cur.idx == 1 {
            cur.first = Some(key);
        }
        let counted = !matches!(cur.mode, Mode::Plain | Mode::Reuse { escaped: true, .. });
        if counted && cur.idx > cur.len {
            // A declaration announced `len`; after a reuse's last field the decoder cannot
            // look for an escape.
            return Err(count_error(cur.name, cur.len, cur.idx));
        }
        let step = match cur.mode {
            Mode::Plain | Mode::PlainCounted | Mode::Reuse { escaped: true, .. } => FieldStep::Name,
            Mode::Declare => {
                self.shape_name(key.as_bytes());
                FieldStep::Name
            }
            Mode::Reuse { id, .. }
                if self.shapes.field_name(id, cur.idx - 1) == Some(key.as_bytes()) =>
            {
                FieldStep::ValueOnly
            }
            Mode::Reuse { id, .. } if cur.idx == 1 => {
                let start = self.restart(cur, id, key);
                FieldStep::Restart(start)
            }
            Mode::Reuse { id, .. } => {
                cur.mode = Mode::Reuse { id, escaped: true };
                FieldStep::EscapeThenName
            }
        };
        Ok(step)
    }

    /// The first field `key` is not shape `id`'s: pick a new start for the struct.
    fn restart(&mut self, cur: &mut ShapeCursor, id: u32, key: &'static str) -> StructStart {
        if let Some(other) = self.shape_pred.predict_first(cur.name, cur.len, key)
            && other != id
            && self.shapes.field_name(other, 0) == Some(key.as_bytes())
        {
            cur.mode = Mode::Reuse {
                id: other,
                escaped: false,
            };
            return StructStart::Reuse(other);
        }
        if self.may_declare_shape() {
            self.begin_shape();
            self.shape_name(key.as_bytes());
            cur.mode = Mode::Declare;
            return StructStart::Declare;
        }
        cur.mode = Mode::PlainCounted;
        StructStart::Plain
    }

    /// The struct is done: defines a declared shape, updates predictions after an escape.
    pub(crate) fn struct_end(&mut self, cur: ShapeCursor) -> Result<EndStep> {
        match cur.mode {
            Mode::Plain => Ok(EndStep::Nothing),
            Mode::PlainCounted if cur.idx == cur.len => Ok(EndStep::Nothing),
            Mode::PlainCounted => Err(count_error(cur.name, cur.len, cur.idx)),
            Mode::Declare => {
                if cur.idx != cur.len {
                    // Drop the open declaration so the state stays consistent.
                    let _ = self.end_shape();
                    return Err(count_error(cur.name, cur.len, cur.idx));
                }
                let id = self.end_shape()?;
                self.shape_pred
                    .declared(cur.name, cur.len, cur.first, cur.hash, id);
                Ok(EndStep::Nothing)
            }
            Mode::Reuse { id, escaped } => {
                let step = match (escaped, cur.idx < cur.len) {
                    (false, false) => {
                        // After a restart the record used another shape: predict that one.
                        self.shape_pred.used(cur.name, cur.len, id);
                        return Ok(EndStep::Nothing);
                    }
                    (true, _) => EndStep::End,
                    (false, true) => EndStep::EscapeThenEnd,
                };
                self.shape_pred.escaped(cur.name, cur.len, cur.hash);
                Ok(step)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Options;

    fn walk(s: &mut DenseState, fields: &[&'static str]) -> (StructStart, Vec<FieldStep>, EndStep) {
        let (mut cur, start) = s.struct_begin("Rec", 3);
        let steps = fields
            .iter()
            .map(|f| s.struct_field(&mut cur, f).unwrap())
            .collect();
        (start, steps, s.struct_end(cur).unwrap())
    }

    #[test]
    fn declare_reuse_escape_and_follow() {
        use FieldStep::*;
        let mut s = DenseState::new_encoder(&Options::balanced());
        let abc = ["a", "b", "c"];
        let abd = ["a", "b", "d"];
        assert_eq!(
            walk(&mut s, &abc),
            (StructStart::Declare, vec![Name; 3], EndStep::Nothing)
        );
        assert_eq!(
            walk(&mut s, &abc),
            (StructStart::Reuse(1), vec![ValueOnly; 3], EndStep::Nothing)
        );
        assert_eq!(
            walk(&mut s, &abd),
            (
                StructStart::Reuse(1),
                vec![ValueOnly, ValueOnly, EscapeThenName],
                EndStep::End
            )
        );
        // Unknown names: the first escape keeps the prediction, the second one makes the
        // next record declare them.
        assert_eq!(walk(&mut s, &abd).2, EndStep::End);
        assert_eq!(walk(&mut s, &abd).0, StructStart::Declare);
        assert_eq!(walk(&mut s, &abd).0, StructStart::Reuse(2));
        // Back to the first list: one escape, then the known shape 1 is predicted again.
        assert_eq!(walk(&mut s, &abc).2, EndStep::End);
        assert_eq!(walk(&mut s, &abc).0, StructStart::Reuse(1));
        // Missing fields.
        assert_eq!(
            walk(&mut s, &["a", "b"]),
            (
                StructStart::Reuse(1),
                vec![ValueOnly, ValueOnly],
                EndStep::EscapeThenEnd
            )
        );
    }

    #[test]
    fn first_field_mismatch_restarts_instead_of_escaping() {
        use FieldStep::*;
        let mut s = DenseState::new_encoder(&Options::balanced());
        walk(&mut s, &["a", "b", "c"]);
        walk(&mut s, &["x", "b", "c"]);
        // Predicted (x, b, c); the record starts with `a`: shape 1 starts with `a`.
        assert_eq!(
            walk(&mut s, &["a", "b", "c"]),
            (
                StructStart::Reuse(2),
                vec![Restart(StructStart::Reuse(1)), ValueOnly, ValueOnly],
                EndStep::Nothing
            )
        );
        // No shape starts with `q`: a new declaration replaces the header.
        assert_eq!(
            walk(&mut s, &["q", "r", "s"]),
            (
                StructStart::Reuse(1),
                vec![Restart(StructStart::Declare), Name, Name],
                EndStep::Nothing
            )
        );
        assert_eq!(s.shapes().len(), 3);
        assert_eq!(s.shapes().field_name(3, 0), Some(&b"q"[..]));
    }

    #[test]
    fn restart_without_room_is_a_counted_plain_map() {
        use FieldStep::*;
        let mut s = DenseState::new_encoder(&Options::balanced().max_shapes(1));
        walk(&mut s, &["a", "b", "c"]);
        assert_eq!(
            walk(&mut s, &["x", "y", "z"]),
            (
                StructStart::Reuse(1),
                vec![Restart(StructStart::Plain), Name, Name],
                EndStep::Nothing
            )
        );
        let (mut cur, _) = s.struct_begin("Rec", 3);
        s.struct_field(&mut cur, "x").unwrap();
        assert!(
            s.struct_end(cur).is_err(),
            "the map header announced 3 entries"
        );
    }

    #[test]
    fn lying_lengths_are_errors_and_leave_no_open_declaration() {
        let mut s = DenseState::new_encoder(&Options::balanced());
        let (mut cur, start) = s.struct_begin("Rec", 1);
        assert_eq!(start, StructStart::Declare);
        s.struct_field(&mut cur, "a").unwrap();
        assert!(s.struct_field(&mut cur, "b").is_err());
        let (cur, _) = s.struct_begin("Two", 2);
        assert!(s.struct_end(cur).is_err());
        assert_eq!(
            s.shapes().open_count(),
            1,
            "the Rec declaration is still open"
        );
    }

    #[test]
    fn shape_cap_falls_back_to_plain() {
        let mut s = DenseState::new_encoder(&Options::balanced().max_shapes(1));
        assert_eq!(walk(&mut s, &["a", "b", "c"]).0, StructStart::Declare);
        let (cur, start) = s.struct_begin("Other", 0);
        assert_eq!(start, StructStart::Plain);
        assert_eq!(s.struct_end(cur).unwrap(), EndStep::Nothing);
        let speed = Options::speed();
        let mut s = DenseState::new_encoder(&speed);
        assert_eq!(walk(&mut s, &["a", "b", "c"]).0, StructStart::Plain);
    }
}
