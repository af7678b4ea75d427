//! Dates and times printed the way date-time text columns hold them (`docs/SPEC.md` §22.1),
//! computed by a plain year-by-year, month-by-month walk, independent of the library's
//! arithmetic.

/// The Common Log Format's month abbreviations.
pub const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Seconds of 2010-01-01T00:00:00 since 1970.
pub const Y2010: i64 = 1_262_304_000;

/// Whether `y` is a Gregorian leap year.
pub fn leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// Days in month `m` (0-based) of year `y`.
pub fn month_len(y: i64, m: usize) -> i64 {
    let feb = if leap(y) { 29 } else { 28 };
    [31, feb, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m]
}

/// Year, month (0-based) and day of `days` since 1970-01-01.
pub fn civil(days: i64) -> (i64, usize, i64) {
    let year_len = |y: i64| if leap(y) { 366 } else { 365 };
    let (mut y, mut d) = (1970i64, days);
    while d < 0 {
        y -= 1;
        d += year_len(y);
    }
    while d >= year_len(y) {
        d -= year_len(y);
        y += 1;
    }
    let mut m = 0;
    while d >= month_len(y, m) {
        d -= month_len(y, m);
        m += 1;
    }
    (y, m, d + 1)
}

/// The time of day of `secs` since 1970 as `hh:mm:ss`, with its date.
fn split(secs: i64) -> ((i64, usize, i64), String) {
    let s = secs.rem_euclid(86_400);
    let time = format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
    (civil(secs.div_euclid(86_400)), time)
}

/// `secs` since 1970 as ISO 8601 with separator `sep` between date and time.
pub fn iso(secs: i64, sep: char) -> String {
    let ((y, m, d), time) = split(secs);
    format!("{y:04}-{:02}-{d:02}{sep}{time}", m + 1)
}

/// `secs` since 1970 as the Common Log Format's date (`10/Oct/2000:13:55:36`).
pub fn clf(secs: i64) -> String {
    let ((y, m, d), time) = split(secs);
    format!("{d:02}/{}/{y:04}:{time}", MONTHS[m])
}

/// `secs` since 1970 in pattern 0 (ISO, `T`), 1 (ISO, space) or 2 (Common Log Format).
pub fn stamp(secs: i64, pattern: u8) -> String {
    match pattern {
        0 => iso(secs, 'T'),
        1 => iso(secs, ' '),
        _ => clf(secs),
    }
}

/// Fields as written in `pattern`, for a date not derived from an instant (month 0-based).
pub fn written(y: i64, m: usize, d: i64, time: &str, pattern: u8) -> String {
    match pattern {
        0 => format!("{y:04}-{:02}-{d:02}T{time}", m + 1),
        1 => format!("{y:04}-{:02}-{d:02} {time}", m + 1),
        _ => format!("{d:02}/{}/{y:04}:{time}", MONTHS[m]),
    }
}
