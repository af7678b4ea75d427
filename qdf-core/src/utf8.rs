//! UTF-8 validation with an ASCII fast path, shared by every place the decoder turns bytes
//! into `str`: plain strings, interned strings and their references, string columns.

/// UTF-8 validation with an ASCII fast path: field names, keys and most values are ASCII, and
/// an ASCII test inlines, where `from_utf8` is a call with setup (about a fifth of decode time
/// on a log batch).
#[inline]
pub(crate) fn utf8(bytes: &[u8]) -> std::result::Result<&str, std::str::Utf8Error> {
    if is_ascii(bytes) {
        // SAFETY: every byte is < 0x80, and a sequence of ASCII bytes is valid UTF-8.
        return Ok(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    std::str::from_utf8(bytes)
}

/// Whether every byte is below 0x80. Strings of at most 32 bytes (nearly all field names and
/// short values) are tested with two to four overlapping word loads and no loop; `is_ascii`
/// handles only whole words in its loop and tests the 1–7 byte tail byte by byte, about 20
/// instructions per short string.
#[inline(always)]
fn is_ascii(b: &[u8]) -> bool {
    const HI64: u64 = 0x8080_8080_8080_8080;
    let word = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
    let n = b.len();
    // Nested so that the common lengths (4–16: most names and values) take two compares.
    if n >= 8 {
        if n <= 16 {
            (word(0) | word(n - 8)) & HI64 == 0
        } else if n <= 32 {
            (word(0) | word(8) | word(n - 16) | word(n - 8)) & HI64 == 0
        } else {
            b.is_ascii()
        }
    } else if n >= 4 {
        let half = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        (half(0) | half(n - 4)) & 0x8080_8080 == 0
    } else if n > 0 {
        (b[0] | b[n / 2] | b[n - 1]) & 0x80 == 0
    } else {
        true
    }
}

#[cfg(test)]
mod tests;
