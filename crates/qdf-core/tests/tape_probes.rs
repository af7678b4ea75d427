//! Probes of the columnar capture tape (`ser/capture.rs`), the column plan's by-address name
//! match, the word-at-a-time packers and the str8 decode fast path: hostile `Serialize`
//! impls, session rollback, exact round trips against row mode, and hostile bytes.

use qdf_core::{DecoderSession, EncoderSession, Options, Value, from_slice, to_vec_with};
use serde::ser::{Error as _, SerializeSeq, SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

/// An element whose `Serialize` fails inside it: the error is swallowed by the enclosing
/// sequence impl (a legal, if odd, `Serialize`).
struct Bad;
impl Serialize for Bad {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Bad", 2)?;
        st.serialize_field("a", &1u8)?;
        st.serialize_field("s", "a string written before the error")?;
        Err(S::Error::custom("bad"))
    }
}

/// A sequence that swallows its second element's error.
struct Swallow;
impl Serialize for Swallow {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(3))?;
        seq.serialize_element(&1u8)?;
        let _ = seq.serialize_element(&Bad);
        seq.serialize_element(&2u8)?;
        seq.end()
    }
}

/// A row whose `Serialize` swallows the error of its second field.
struct RowSwallowsField(u32);
impl Serialize for RowSwallowsField {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("R", 3)?;
        st.serialize_field("id", &self.0)?;
        let _ = st.serialize_field("bad", &Bad);
        st.serialize_field("s", "tail")?;
        st.end()
    }
}

#[derive(Serialize)]
struct RowSw {
    id: u32,
    x: Swallow,
}

/// Every tier decodes to what Speed (no capture) wrote: the capture refuses a value whose
/// `Serialize` ignored an item's error, and the real serializer writes it directly.
fn same_as_speed<T: Serialize + ?Sized>(v: &T) {
    let speed: Value = from_slice(&to_vec_with(v, Options::speed()).unwrap()).unwrap();
    for opts in [Options::balanced(), Options::compression()] {
        let got: Value = from_slice(&to_vec_with(v, opts).unwrap()).unwrap();
        assert_eq!(got, speed);
    }
}

/// Regression: a compound item whose error the `Serialize` impl ignored left an `Open` with
/// no `End` on the tape, and its replay looped forever (writing without bound).
#[test]
fn swallowed_item_error_is_not_replayed() {
    for n in [1usize, 15, 16, 17, 40] {
        let rows: Vec<RowSw> = (0..n as u32).map(|i| RowSw { id: i, x: Swallow }).collect();
        same_as_speed(&rows);
        let rows: Vec<RowSwallowsField> = (0..n as u32).map(RowSwallowsField).collect();
        same_as_speed(&rows);
    }
}
