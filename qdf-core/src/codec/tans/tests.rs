use super::*;
use crate::error::ErrorCode;
use proptest::prelude::*;

fn enc(src: &[u8]) -> Vec<u8> {
    let plan = Plan::new(src);
    let mut out = vec![0xAA]; // a byte before the block: offsets are absolute
    plan.encode(&mut out);
    assert_eq!(out.len() - 1, plan.cost(), "cost is exact");
    assert_eq!(cost(src), plan.cost());
    out
}

fn dec(buf: &[u8]) -> Result<Vec<u8>> {
    let mut cur = Cursor::new(buf, 1);
    let mut budget = u64::MAX;
    let v = dec_budget(&mut cur, &mut budget)?;
    assert_eq!(cur.remaining(), 0, "the block is consumed exactly");
    Ok(v)
}

fn dec_budget(cur: &mut Cursor<'_>, budget: &mut u64) -> Result<Vec<u8>> {
    decode(cur, budget)
}

fn round_trip(src: &[u8]) -> Vec<u8> {
    let out = enc(src);
    assert_eq!(dec(&out).unwrap(), src);
    out
}

/// A pseudo-random byte string with a skewed (geometric-like) distribution.
fn skewed(n: usize, seed: u64, spread: u32) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x as u32 % spread).trailing_zeros() * 7 + (x >> 40) as u32 % 3) as u8
        })
        .collect()
}

#[test]
fn empty_constant_and_tiny() {
    assert_eq!(round_trip(&[]), [0xAA, 0x00]);
    assert_eq!(round_trip(&[7; 1000]), [0xAA, 0xE8, 0x07, 0x00, 0x07]);
    round_trip(&[1, 2]);
    round_trip(&[0, 255]);
    round_trip(b"a");
    round_trip(b"ab");
    round_trip(b"abc");
}

#[test]
fn golden_bytes() {
    // 16 bytes: 12 × 'a', 4 × 'b'. A = 5 (the smallest): counts a = 24, b = 8. The stream
    // (7 bytes) starts with the description, LSB-first: count 0 for symbol 0 (6 bits), the
    // gamma code of 97 for the 96 further zeros (6 zeros, a one, 100001), count 24 for 'a'
    // (6 bits: 011000), count 8 for 'b' (4 bits, R = 8): bytes 00 30 c4 …; then the two
    // states and 17 transition bits ('b' reads 2 bits, 'a' 0 or 1).
    let src = b"aaabaaabaaabaaab";
    let out = round_trip(src);
    assert_eq!(
        out,
        [
            0xAA, 0x10, 0x05, 0x07, 0x00, 0x30, 0xC4, 0xB0, 0x84, 0x98, 0x00
        ]
    );
}

#[test]
fn all_256_symbols_and_long_runs() {
    let all: Vec<u8> = (0..=255u8).collect();
    round_trip(&all);
    let all4: Vec<u8> = (0..4096).map(|i| (i * 7 % 256) as u8).collect();
    round_trip(&all4);
    let mut runs = vec![0u8; 100_000];
    runs.extend(std::iter::repeat_n(1u8, 3));
    runs.extend(std::iter::repeat_n(2u8, 50_000));
    let out = round_trip(&runs);
    assert!(out.len() < 20_000, "{}", out.len());
    // One dominant symbol and 255 singletons.
    let mut rare = vec![9u8; 50_000];
    rare.extend(0..=255u8);
    round_trip(&rare);
}

#[test]
fn skewed_text_compresses() {
    let src = skewed(100_000, 42, 1 << 16);
    let out = round_trip(&src);
    // The zeroth-order entropy bounds the size from below; tANS is within 1 %.
    let h = histogram(&src);
    let n = src.len() as f64;
    let ent: f64 = h
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| -(c as f64) * (c as f64 / n).log2())
        .sum::<f64>()
        / 8.0;
    assert!(
        (out.len() as f64) < ent * 1.01 + 64.0,
        "{} vs {ent}",
        out.len()
    );
    assert!((out.len() as f64) > ent - 1.0);
}

#[test]
fn table_is_bounded_by_the_block() {
    // 40 bytes: A ≤ max(5, bitlen(40) = 6).
    let src = skewed(40, 3, 64);
    let out = enc(&src);
    assert!(out[2] as u32 <= 6);
    assert_eq!(max_log(40), 6);
    assert_eq!(max_log(1 << 20), 12);
    assert_eq!(max_log(3), 5);
}

/// A block for `n` bytes, mode `mode`, stream `bits` (LSB-first bit values, each `(v, k)`).
fn hostile(n: u64, mode: u8, fields: &[(u64, u32)], extra: &[u8]) -> Vec<u8> {
    let mut stream = Vec::new();
    let mut p = Packer::new(64);
    for &(v, k) in fields {
        p.push_bits(v, k, &mut stream);
    }
    p.finish(&mut stream);
    stream.extend_from_slice(extra);
    let mut out = vec![0xAA];
    write_uvarint(&mut out, n);
    out.push(mode);
    write_uvarint(&mut out, stream.len() as u64);
    out.extend_from_slice(&stream);
    out
}

fn bad(buf: &[u8]) -> (String, Option<u64>) {
    let e = dec(buf).unwrap_err();
    let what = match e.code() {
        ErrorCode::BadCodec(w) => w.to_string(),
        c => format!("{c:?}"),
    };
    (what, e.offset())
}

#[test]
fn hostile_descriptions_are_typed_errors() {
    // A valid block written by hand: counts 16 + 16 (symbols 0 and 1) make every slot read
    // 1 bit; states 0/0 decode symbol 0 (slot 0), and 4 transitions of bit 0 stay at slot 0.
    let ok = hostile(4, 5, &[(16, 6), (16, 5), (0, 5), (0, 5), (0, 4)], &[]);
    assert_eq!(dec(&ok).unwrap(), [0, 0, 0, 0]);

    // Accuracy log out of range: 4, 13, and 6 for a 4-byte block.
    for mode in [4u8, 13, 6, 0xFF] {
        let b = hostile(4, mode, &[(16, 6)], &[]);
        assert_eq!(bad(&b), ("tANS accuracy log out of range".into(), Some(2)));
    }
    // Overflowing frequency: 33 > 32.
    let b = hostile(4, 5, &[(33, 6)], &[]);
    assert_eq!(
        bad(&b).0,
        "tANS description: count above the probability left (overflow)"
    );
    // Zero frequencies running past symbol 255: a 0 count then a run of 255 more (gamma of
    // 256: 8 zeros, a one, 8 bits), and a gamma prefix of 9 zeros.
    for f in [
        vec![(0u64, 6), (1 << 8, 9), (1, 8)],
        vec![(0u64, 6), (0, 9), (1, 1)],
    ] {
        let b = hostile(4, 5, &f, &[]);
        assert_eq!(bad(&b).0, "tANS description: zero run past symbol 255");
    }
    // A run to exactly symbol 255 is fine: symbols 0..=254 zero, then 255 has a count.
    let b = hostile(
        4,
        5,
        &[(0, 6), (1 << 7, 8), (126, 7), (16, 6), (0, 5), (0, 5)],
        &[],
    );
    assert_ne!(bad(&b).0, "tANS description: zero run past symbol 255");
    // Counts summing short of 2^A by symbol 255: 256 counts of 0 written one by one is
    // impossible (runs), so 1 + 255 ones leave 32 − 1 − ... : use A = 12 with counts of 1.
    let mut f = Vec::new();
    let mut rem = 4096u64;
    for _ in 0..256 {
        f.push((1u64, bitlen(rem)));
        rem -= 1;
    }
    let b = hostile(5000, 12, &f, &[]);
    assert_eq!(
        bad(&b).0,
        "tANS description: counts sum below 2^A after symbol 255"
    );
    // One symbol: the constant form is required.
    let b = hostile(4, 5, &[(32, 6), (0, 8)], &[]);
    assert_eq!(
        bad(&b).0,
        "tANS description with one symbol (the constant form is required)"
    );
    // Truncated description.
    let b = hostile(4, 5, &[(16, 6)], &[]);
    assert_eq!(bad(&b).0, "tANS description runs past its block");
    // Truncated states: description complete (11 bits), 5 bits of the first state.
    let b = hostile(4, 5, &[(16, 6), (16, 5), (0, 5)], &[]);
    assert_eq!(
        bad(&b),
        ("tANS initial states run past the block".into(), Some(3))
    );
    // Truncated transitions: both states, 2 of the 4 bits.
    let b = hostile(4, 5, &[(16, 6), (16, 5), (0, 5), (0, 5)], &[]);
    assert_eq!(
        bad(&b),
        ("tANS bit stream ends before its last byte".into(), Some(3))
    );
    // Final state not the initial one: the last transition reads a 1 (slot 1).
    let b = hostile(4, 5, &[(16, 6), (16, 5), (0, 5), (0, 5), (0b1000, 4)], &[]);
    assert_eq!(
        bad(&b),
        (
            "tANS final state differs from the initial one".into(),
            Some(3)
        )
    );
}

#[test]
fn final_state_padding_and_length_are_checked() {
    let src = b"abracadabra, abracadabra";
    let good = enc(src);
    assert_eq!(dec(&good).unwrap(), src);
    // Flip each bit of the stream: a typed error or other bytes, never a panic.
    let head = 3 + uvarint_len((good.len() - 4) as u64);
    let mut errors = 0;
    for i in head..good.len() {
        for bit in 0..8 {
            let mut b = good.clone();
            b[i] ^= 1 << bit;
            match dec(&b) {
                Ok(v) => assert_ne!(v, src),
                Err(e) => {
                    errors += 1;
                    assert!(matches!(e.code(), ErrorCode::BadCodec(_)), "{e}");
                }
            }
        }
    }
    assert!(errors > 0);
    // An extra byte after the stream.
    let mut b = good.clone();
    let len_at = 3;
    b[len_at] += 1;
    b.push(0);
    assert_eq!(bad(&b).0, "tANS bit stream longer than its bytes");
    // States that do not return to 0: decode one byte fewer than encoded.
    let mut b = good.clone();
    b[1] -= 1;
    let (w, _) = bad(&b);
    assert!(
        [
            "tANS final state differs from the initial one",
            "tANS bit stream longer than its bytes",
            "tANS padding bits are not zero"
        ]
        .contains(&w.as_str()),
        "{w}"
    );
}

#[test]
fn truncation_and_budget() {
    let src = skewed(5000, 9, 1 << 12);
    let good = enc(&src);
    for cut in 1..good.len() {
        let e = dec(&good[..cut]).unwrap_err();
        assert!(
            e.is_eof() || matches!(e.code(), ErrorCode::LengthOverrun { .. }),
            "{e}"
        );
    }
    let mut cur = Cursor::new(&good, 1);
    let mut budget = 4999;
    let e = decode(&mut cur, &mut budget).unwrap_err();
    assert_eq!(
        (e.code(), e.offset()),
        (
            &ErrorCode::OutputLimit {
                needed: 5000,
                limit: 4999
            },
            Some(1)
        )
    );
    let mut budget = 6000;
    let mut cur = Cursor::new(&good, 1);
    assert_eq!(decode(&mut cur, &mut budget).unwrap(), src);
    assert_eq!(budget, 1000);
    // A huge n with a constant form is charged before allocating.
    let b = [0xAA, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x00, 0x41];
    let mut cur = Cursor::new(&b, 1);
    let e = decode(&mut cur, &mut (1 << 20)).unwrap_err();
    assert!(matches!(e.code(), ErrorCode::OutputLimit { .. }));
}

proptest! {
    #[test]
    fn round_trips_any_bytes(src in proptest::collection::vec(any::<u8>(), 0..3000)) {
        let out = enc(&src);
        prop_assert_eq!(dec(&out).unwrap(), src);
    }

    #[test]
    fn round_trips_small_alphabets(
        alpha in proptest::collection::vec(any::<u8>(), 1..8),
        picks in proptest::collection::vec((0usize..64, 1usize..300), 1..40),
    ) {
        // Runs of symbols from a small alphabet, skewed toward its first entries.
        let mut src = Vec::new();
        for (p, run) in picks {
            src.extend(std::iter::repeat_n(alpha[(p * p / 64) % alpha.len()], run));
        }
        let out = enc(&src);
        prop_assert_eq!(dec(&out).unwrap(), src);
    }

    #[test]
    fn arbitrary_blocks_never_panic(buf in proptest::collection::vec(any::<u8>(), 1..200)) {
        let mut b = vec![0xAA];
        b.extend(buf);
        let mut cur = Cursor::new(&b, 1);
        let _ = decode(&mut cur, &mut (1 << 16));
    }
}
