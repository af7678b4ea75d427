//! Hex text as packed bytes (`docs/SPEC.md` §9 for the row forms `F2 0B`/`F2 0C`, §22.1 for
//! hex-text string columns): two digits a byte, high nibble first.

/// The bytes of hex digits `digits` (an even count of `0`–`9`, `a`–`f`, `A`–`F`, checked by
/// the caller), two digits a byte.
#[inline]
pub(crate) fn packed(digits: &[u8]) -> impl Iterator<Item = u8> + '_ {
    digits
        .chunks_exact(2)
        .map(|p| nibble(p[0]) << 4 | nibble(p[1]))
}

/// The digits `bytes` print as, two a byte, high nibble first; letters `A`–`F` when
/// `upper`, else `a`–`f`.
#[inline]
pub(crate) fn digits(bytes: &[u8], upper: bool) -> impl Iterator<Item = u8> + '_ {
    let set: &'static [u8; 16] = if upper {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    bytes
        .iter()
        .flat_map(move |&b| [set[(b >> 4) as usize], set[(b & 15) as usize]])
}

/// The value of hex digit `c` (a digit or a letter of either case; checked by the caller).
#[inline]
fn nibble(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => c - b'A' + 10,
    }
}

/// The hex text token (`F2 0B` or `F2 0C`, `docs/SPEC.md` §9) at the front of `b`, if `b`
/// starts with a whole one: whether it is a definition (`F2 0C`), its packed bytes and
/// whether its letters are uppercase. For a token already written or read (the per-field
/// strings of §15.3 learn the text from it), so errors are `None`.
pub(crate) fn token(b: &[u8]) -> Option<(bool, &[u8], bool)> {
    let (&sub, rest) = b.strip_prefix(&[super::tags::EXT])?.split_first()?;
    if !super::ext::is_hex(sub) {
        return None;
    }
    let (n, used) = super::varint::read_uvarint(rest).ok()?;
    let len = usize::try_from(n >> 1).ok()?;
    let packed = rest.get(used..)?.get(..len)?;
    Some((sub == super::ext::HEX_DEF, packed, n & 1 == 1))
}
