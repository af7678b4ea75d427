use proptest::collection::vec;
use proptest::prelude::*;

use super::*;

/// What `encode_seq` wrote before it skipped the sink for a packed body: a header at 0,
/// then [`PackBuf::finish`].
fn through_finish(buf: PackBuf, opts: &Options) -> Vec<u8> {
    let feats = opts
        .feature_bits()
        .without(Features::DENSE)
        .without(Features::ENTROPY);
    let mut s = Sink::new(Vec::new(), opts.features(feats));
    s.write_header(Header::Array, buf.vals.len()).unwrap();
    buf.finish(&mut s, 0).unwrap();
    s.into_inner()
}

/// Values of `class` as `PackBuf` holds them, few and often repeated (small columns, where
/// the plain array and every codec compete), and whether some integer is negative.
fn column() -> impl Strategy<Value = (Class, Vec<u64>, bool)> {
    let small = vec(prop_oneof![0u64..4, 0u64..300, any::<u64>()], 0..40);
    (0usize..5, small).prop_map(|(c, vals)| match c {
        0 => (Class::Bool, vals.iter().map(|v| v & 1).collect(), false),
        1 => (Class::Int, vals.iter().map(|v| v >> 1).collect(), false),
        2 => {
            let neg = vals.iter().any(|&v| (v as i64) < 0);
            (Class::Int, vals, neg)
        }
        3 => {
            let f = |v: &u64| f32::to_bits(*v as u16 as f32 / 4.0) as u64;
            (Class::F32, vals.iter().map(f).collect(), false)
        }
        _ => {
            let f = |v: &u64| f64::to_bits((*v % 1000) as f64 * 0.01);
            (Class::F64, vals.iter().map(f).collect(), false)
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// `encode_seq` gives the bytes of a header and `finish` (packed or plain) on every
    /// class and length, under Balanced and Compression (float XOR codecs).
    #[test]
    fn encode_seq_equals_header_and_finish((class, vals, neg) in column(), tier in 0usize..2) {
        let opts = [Options::balanced(), Options::compression()][tier];
        let want = through_finish(PackBuf::of(class, vals.clone(), neg), &opts);
        let got = PackBuf::of(class, vals.clone(), neg).encode_seq(&opts).unwrap();
        prop_assert_eq!(&got, &want);
        // Below 8 values never packed; a packed body starts with its QPack tag.
        let packed = got.first().is_some_and(|&t| crate::codec::is_qpack_tag(t));
        prop_assert!(vals.len() >= MIN_PACK || !packed);
    }
}
