//! Test helpers shared by the block modules: decoding to owned rows and the
//! truncation/mutation matrix that must never panic.

use super::decode_block;
use crate::error::Result;

/// Borrowed byte views of string literals.
pub(super) fn strs<'a>(v: &[&'a str]) -> Vec<&'a [u8]> {
    v.iter().map(|s| s.as_bytes()).collect()
}

/// Decodes a whole block (which must be consumed exactly) to owned rows.
pub(super) fn decode_all(block: &[u8], n: usize) -> Result<Vec<Vec<u8>>> {
    let mut budget = 1u64 << 32;
    let (col, used) = decode_block(block, 0, n, &mut budget)?;
    assert_eq!(used, block.len(), "block not consumed exactly");
    assert_eq!(col.len(), n);
    Ok(col.iter().map(<[u8]>::to_vec).collect())
}

/// Every truncation fails; single-byte substitutions and pseudo-random multi-byte
/// mutations never panic and, when they decode, yield exactly `n` rows.
pub(super) fn mutations_never_panic(block: &[u8], n: usize) {
    let try_decode = |bytes: &[u8]| {
        let mut budget = 1u64 << 24;
        if let Ok((mut col, used)) = decode_block(bytes, 0, n, &mut budget) {
            assert!(used <= bytes.len());
            assert_eq!(col.len(), n);
            let _ = col.check_utf8();
            assert_eq!(col.iter().count(), n);
        }
    };
    for cut in 0..block.len() {
        let mut budget = 1u64 << 24;
        assert!(
            decode_block(&block[..cut], 0, n, &mut budget).is_err(),
            "truncation at {cut} decoded"
        );
    }
    let mut buf = block.to_vec();
    for i in 0..block.len() {
        for v in [
            0x00,
            0x01,
            0x7F,
            0x80,
            0xFF,
            block[i] ^ 0x01,
            block[i].wrapping_add(1),
        ] {
            buf[i] = v;
            try_decode(&buf);
        }
        buf[i] = block[i];
    }
    // xorshift64: a fixed, reproducible sequence of 3-byte mutations.
    let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    for _ in 0..300 {
        let mut m = block.to_vec();
        for _ in 0..3 {
            let r = next();
            let i = (r as usize) % m.len().max(1);
            if let Some(b) = m.get_mut(i) {
                *b = (r >> 32) as u8;
            }
        }
        try_decode(&m);
    }
}

/// Encodes `block`, checking that its cost estimate is exact.
pub(super) fn block_bytes(block: &super::StrBlock<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    block.encode(&mut out);
    assert_eq!(block.cost(), out.len(), "cost of block {:02X}", block.tag());
    out
}
