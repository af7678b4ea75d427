//! Golden wire bytes for every tag the Speed tier writes (body only, header stripped), checked
//! in both directions.

use serde::{Deserialize, Serialize};
use std::fmt::Debug;

use crate::Options;

fn hex(s: &str) -> Vec<u8> {
    s.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect()
}

#[track_caller]
fn golden<T: Serialize + for<'de> Deserialize<'de> + PartialEq + Debug>(v: T, body: &str) {
    let bytes = crate::to_vec_with(&v, Options::speed()).unwrap();
    assert_eq!(&bytes[..5], b"QDF\x01\x00");
    assert_eq!(bytes[5..], hex(body)[..], "encoding of {v:?}");
    let back: T = crate::from_slice(&bytes).unwrap();
    assert_eq!(back, v);
}

#[test]
fn golden_unsigned() {
    golden(0u8, "00");
    golden(127u64, "7f");
    golden(128u16, "c3 80");
    golden(255u32, "c3 ff");
    golden(256u32, "c4 00 01");
    golden(65535u64, "c4 ff ff");
    golden(65536u64, "c5 00 00 01 00");
    golden(u32::MAX as u64, "c5 ff ff ff ff");
    golden(1u64 << 32, "c6 00 00 00 00 01 00 00 00");
    golden(u64::MAX, "c6 ff ff ff ff ff ff ff ff");
    golden(5i32, "05");
}

#[test]
fn golden_signed() {
    golden(-1i8, "d8");
    golden(-8i64, "df");
    golden(-9i64, "c7 f7");
    golden(-128i16, "c7 80");
    golden(-129i64, "c8 7f ff");
    golden(-32768i32, "c8 00 80");
    golden(-32769i64, "c9 ff 7f ff ff");
    golden(i32::MIN as i64, "c9 00 00 00 80");
    golden(i32::MIN as i64 - 1, "ca ff ff ff 7f ff ff ff ff");
    golden(i64::MIN, "ca 00 00 00 00 00 00 00 80");
}

#[test]
fn golden_wide_ints() {
    golden(7u128, "07");
    golden(-3i128, "da");
    golden(u64::MAX as i128, "c6 ff ff ff ff ff ff ff ff");
    golden(
        u64::MAX as u128 + 1,
        "f2 03 00 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00",
    );
    golden(
        i64::MIN as i128 - 1,
        "f2 04 ff ff ff ff ff ff ff 7f ff ff ff ff ff ff ff ff",
    );
    golden(
        u128::MAX,
        "f2 03 ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff",
    );
}

#[test]
fn golden_floats_bool_nil_ext() {
    golden(1.5f32, "cb 00 00 c0 3f");
    golden((-0.0f64).to_bits(), "c6 00 00 00 00 00 00 00 80");
    let b = crate::to_vec_with(&-0.0f64, Options::speed()).unwrap();
    assert_eq!(b[5..], hex("cc 00 00 00 00 00 00 00 80")[..]);
    golden(true, "c2");
    golden(false, "c1");
    golden(None::<u8>, "c0");
    golden((), "f2 00");
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Marker;
    golden(Marker, "f2 01");
    golden('a', "f2 02 61");
    golden('€', "f2 02 ac 41");
}

#[test]
fn golden_strings_and_bytes() {
    golden(String::new(), "80");
    golden("a".to_string(), "81 61");
    let s32 = "x".repeat(32);
    golden(s32.clone(), &format!("cd 20{}", " 78".repeat(32)));
    let s256 = "y".repeat(256);
    golden(s256, &format!("ce 00 01{}", " 79".repeat(256)));
    golden(serde_bytes::ByteBuf::new(), "d0 00");
    golden(serde_bytes::ByteBuf::from(vec![1]), "d0 01 01");
    let b256 = vec![0u8; 256];
    golden(
        serde_bytes::ByteBuf::from(b256),
        &format!("d1 00 01{}", " 00".repeat(256)),
    );
}

#[test]
fn golden_arrays_maps_structs() {
    golden(Vec::<u8>::new(), "a0");
    golden(vec![1u8, 2], "a2 01 02");
    golden(vec![0u8; 32], &format!("d3 20 00{}", " 00".repeat(32)));
    golden((1u8, "x".to_string()), "a2 01 81 78");
    golden(std::collections::BTreeMap::<u8, u8>::new(), "d5 00");
    golden(
        std::collections::BTreeMap::from([("a".to_string(), 1u8)]),
        "d5 01 81 61 01",
    );
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct P {
        x: i8,
        y: Option<bool>,
    }
    golden(P { x: -1, y: None }, "d5 02 81 78 d8 81 79 c0");
}

#[test]
fn golden_options_and_enums() {
    golden(Some(5u8), "05");
    golden(Some(None::<u8>), "f2 05 c0");
    golden(Some(()), "f2 05 f2 00");
    golden(Some(Some(())), "f2 05 f2 05 f2 00");
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    enum E {
        A,
        B(u8),
        C(u8, String),
        D { x: Option<u8> },
    }
    golden(E::A, "f2 06 81 41");
    golden(E::B(9), "f2 07 81 42 09");
    golden(E::C(1, "x".into()), "f2 08 81 43 a2 01 81 78");
    golden(E::D { x: None }, "f2 09 81 44 d5 01 81 78 c0");
    golden(Some(E::A), "f2 05 f2 06 81 41");
}

#[test]
fn unknown_length_sequences_get_smallest_header() {
    struct Iter(usize);
    impl Serialize for Iter {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq((0..self.0).map(|_| 1u8).filter(|_| true))
        }
    }
    for n in [0usize, 31, 32, 65536] {
        let b = crate::to_vec_with(&Iter(n), Options::speed()).unwrap();
        let back: Vec<u8> = crate::from_slice(&b).unwrap();
        assert_eq!(back.len(), n);
        let header_len = b.len() - 5 - n;
        assert_eq!(
            header_len,
            if n <= 31 {
                1
            } else if n <= 0xFFFF {
                3
            } else {
                5
            }
        );
    }
}

#[test]
fn encode_body_truncates_on_error() {
    let mut out = vec![1, 2, 3];
    let deep = vec![vec![vec![vec![vec![1u8]]]]];
    let err = crate::encode_body(&deep, &Options::speed().max_depth(4), &mut out).unwrap_err();
    assert_eq!(err.classify(), crate::Category::Limit);
    assert_eq!(out, [1, 2, 3]);
}

/// Every string length through the fixed-size copies of `write_short` (fixstr up to 31 bytes,
/// str8 up to 62; its `MaybeUninit` view and `unsafe` `set_len`) and past them: exact bytes
/// (header, then the string with a distinct byte at every position), in a struct so that the
/// window is written mid-buffer, across buffer growth, with the next field right after it.
#[test]
fn short_strings_are_written_exactly() {
    #[derive(Serialize)]
    struct Two {
        s: String,
        n: u8,
    }
    for n in 0..=70usize {
        let s: String = (0..n).map(|i| char::from(b'!' + (i % 90) as u8)).collect();
        let bytes = crate::to_vec_with(&Two { s: s.clone(), n: 7 }, Options::speed()).unwrap();
        let mut want = vec![0xD5, 2, 0x81, b's'];
        match n {
            0..=31 => want.push(0x80 | n as u8),
            _ => want.extend([0xCD, n as u8]),
        }
        want.extend_from_slice(s.as_bytes());
        want.extend([0x81, b'n', 7]);
        assert_eq!(bytes[5..], want[..], "length {n}");
    }
}

/// Sequences of primitives take `Sink::write_prims` (one
/// constant-size copy per element into the spare capacity, `unsafe` `set_len` per refill):
/// the bytes must equal the element-by-element path's (`serialize_seq`, `serialize_element`)
/// at every width boundary, across many refills from an empty buffer, and when an item that
/// is not a primitive stops the fast path midway (the rest then goes element by element).
#[test]
fn primitive_sequences_match_element_by_element() {
    /// The same items through `serialize_seq` and `serialize_element`, not `collect_seq`.
    struct OneByOne<'a, T>(&'a [T]);
    impl<T: Serialize> Serialize for OneByOne<'_, T> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeSeq;
            let mut seq = s.serialize_seq(Some(self.0.len()))?;
            for v in self.0 {
                seq.serialize_element(v)?;
            }
            seq.end()
        }
    }
    #[track_caller]
    fn same<T: Serialize + Debug>(items: &[T]) {
        for opts in [Options::speed(), Options::balanced()] {
            let fast = crate::to_vec_with(&items, opts).unwrap();
            let slow = crate::to_vec_with(&OneByOne(items), opts).unwrap();
            assert_eq!(fast, slow, "{items:?}");
        }
        // From an empty buffer (no initial capacity): the first element already refills.
        let mut ser = super::Serializer::new(Options::speed());
        items.serialize(&mut ser).unwrap();
        let slow = crate::to_vec_with(&OneByOne(items), Options::speed()).unwrap();
        assert_eq!(ser.as_bytes(), &slow[5..], "{items:?}");
    }
    let edges: Vec<i64> = vec![
        0,
        1,
        127,
        128,
        255,
        256,
        65535,
        65536,
        u32::MAX as i64,
        1 << 32,
        i64::MAX,
        -1,
        -8,
        -9,
        -128,
        -129,
        -32768,
        -32769,
        i32::MIN as i64,
        i32::MIN as i64 - 1,
        i64::MIN,
    ];
    same(&edges);
    // Above `i64::MAX` for the negative ones.
    same(&edges.iter().map(|&v| v as u64).collect::<Vec<_>>());
    same(&edges.iter().map(|&v| v as i128).collect::<Vec<_>>());
    same(&edges.iter().map(|&v| v as i8).collect::<Vec<_>>());
    // A u128 beyond u64 is not a primitive to the probe.
    same(&[5, u128::MAX, u64::MAX as u128 + 1, 7]);
    same(&[true, false, true]);
    same(&[1.5f32, -0.0, f32::NAN, f32::MIN_POSITIVE / 2.0]);
    same(&[
        0.1f64,
        f64::INFINITY,
        -0.0,
        f64::from_bits(0x7FF8_0000_0000_0001),
    ]);
    let long: Vec<i64> = (0..20_000).map(|i| edges[i % edges.len()]).collect();
    same(&long);
    let back: Vec<i64> =
        crate::from_slice(&crate::to_vec_with(&long, Options::speed()).unwrap()).unwrap();
    assert_eq!(back, long);
    #[derive(Serialize, Debug)]
    #[serde(untagged)]
    enum Item {
        N(u32),
        S(&'static str),
    }
    same(&[
        Item::N(1),
        Item::N(300),
        Item::S("x"),
        Item::N(70_000),
        Item::S(""),
    ]);
    same(&[Item::S("first"), Item::N(2)]);
    same(&[Some(1u8), None]);
    same(&[vec![1u16, 2], vec![], vec![300]]);
    same::<u8>(&[]);
}

/// The columnar writer's direct writing of captured maps, through the serializer.
mod residual {
    use std::collections::BTreeMap;

    use serde::Serialize;
    use serde::ser::SerializeMap;

    use crate::columnar::tape::{Cell, CellRef, CellSer, Depth, Tape};
    use crate::columnar::write::write_residual;
    use crate::options::{Features, Options};
    use crate::ser::{Front, Serializer};

    /// A map that announces `announce` entries and writes `entries`.
    struct Announced {
        announce: Option<usize>,
        entries: Vec<(&'static str, &'static str)>,
    }

    impl Serialize for Announced {
        fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(self.announce)?;
            for (k, v) in &self.entries {
                m.serialize_entry(k, v)?;
            }
            m.end()
        }
    }

    /// The direct writing of a captured map is byte for byte its replay through serde, and
    /// leaves the Dense state where the replay leaves it (the later values' references
    /// agree): string and other items, nested values, unannounced and misannounced lengths,
    /// and values that are no map.
    #[test]
    fn residual_maps_write_the_bytes_of_their_replay() {
        let labels: BTreeMap<String, String> = [("region", "eu-west-1"), ("env", "prod")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        let ints: BTreeMap<&str, i64> = [("a", 1), ("bbbb", -300)].into();
        let nested: BTreeMap<&str, Vec<u8>> = [("list", vec![1, 2, 3])].into();
        let int_keys: BTreeMap<u32, &str> = [(7, "prod"), (9, "x")].into();
        let mut tape = Tape::default();
        let depth = Depth {
            depth: 1,
            limit: 128,
        };
        let mut cell = |v: &dyn erased::Ser| v.cell(&mut tape, depth);
        let cells = [
            cell(&labels),
            cell(&labels),
            cell(&ints),
            cell(&nested),
            cell(&int_keys),
            cell(&Announced {
                announce: None,
                entries: vec![("k1", "v"), ("region", "vvvv")],
            }),
            cell(&Announced {
                announce: Some(5),
                entries: vec![("k1", "v")],
            }),
            cell(&BTreeMap::<String, String>::new()),
            cell(&Some(labels.clone())),
            cell(&labels),
        ];
        let balanced = Options::balanced();
        let map_shapes = balanced.features(balanced.feature_bits().with(Features::MAP_SHAPE));
        for opts in [balanced, map_shapes] {
            let mut direct = Serializer::new(opts);
            let mut replay = Serializer::new(opts);
            for c in &cells {
                write_residual(&mut Front(&mut direct), c, &tape).unwrap();
                CellRef {
                    cell: c,
                    tape: &tape,
                }
                .serialize(&mut replay)
                .unwrap();
            }
            assert_eq!(direct.into_inner(), replay.into_inner());
        }
    }

    mod erased {
        use super::*;
        pub(super) trait Ser {
            fn cell(&self, tape: &mut Tape, d: Depth) -> Cell;
        }
        impl<T: Serialize> Ser for T {
            fn cell(&self, tape: &mut Tape, depth: Depth) -> Cell {
                self.serialize(CellSer { tape, depth }).unwrap()
            }
        }
    }
}
