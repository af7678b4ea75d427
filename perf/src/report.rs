//! The deterministic tables of `docs/BENCH.md`: the printouts of the `sizes` and
//! `alloc_report` binaries, and the summary tables derived from them, each kept between
//! `<!-- begin: NAME -->` and `<!-- end: NAME -->` marker lines. Shared by the `bench-report`
//! binary, which writes them, and `perf/tests/bench_report.rs`, which fails when the report
//! and the code disagree.

/// The generated blocks of `docs/BENCH.md`, in the order they appear there.
pub const BLOCKS: [&str; 4] = ["summary", "memory-summary", "sizes", "memory"];

/// The path of `docs/BENCH.md` in the workspace.
pub fn bench_md_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/BENCH.md")
}

fn markers(name: &str) -> (String, String) {
    (
        format!("<!-- begin: {name} -->\n"),
        format!("<!-- end: {name} -->"),
    )
}

/// The text between the markers of block `name` in `doc` (without the marker lines).
pub fn block<'a>(doc: &'a str, name: &str) -> Option<&'a str> {
    let (begin, end) = markers(name);
    let start = doc.find(&begin)? + begin.len();
    let len = doc[start..].find(&end)?;
    Some(&doc[start..start + len])
}

/// `doc` with block `name` replaced by `body` (which should end with a newline).
///
/// Errors: the markers are missing.
pub fn splice(doc: &str, name: &str, body: &str) -> Result<String, String> {
    let (begin, end) = markers(name);
    let missing = || {
        format!(
            "docs/BENCH.md has no `{}` … `{end}` markers",
            begin.trim_end()
        )
    };
    let start = doc.find(&begin).ok_or_else(missing)? + begin.len();
    let len = doc[start..].find(&end).ok_or_else(missing)?;
    Ok(format!("{}{body}{}", &doc[..start], &doc[start + len..]))
}

/// One markdown table of a printout: its `###` title, header cells and rows of cells.
struct Table {
    title: String,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }
}

fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner.split('|').map(|c| c.trim().to_owned()).collect()
}

/// Every table of a printout, with the `###` title above it.
fn tables(md: &str) -> Vec<Table> {
    let mut out: Vec<Table> = Vec::new();
    let mut title = String::new();
    let mut in_table = false;
    for line in md.lines() {
        if let Some(t) = line.strip_prefix("### ") {
            title = t.to_owned();
            in_table = false;
        } else if line.starts_with('|') {
            if !in_table {
                out.push(Table {
                    title: title.clone(),
                    header: cells(line),
                    rows: Vec::new(),
                });
                in_table = true;
            } else if !line.starts_with("|---") {
                out.last_mut().unwrap().rows.push(cells(line));
            }
        } else {
            in_table = false;
        }
    }
    out
}

/// `"1 234"` → 1234.
fn number(cell: &str) -> Option<u64> {
    cell.replace(' ', "").parse().ok()
}

fn find<'a>(all: &'a [Table], title: &str) -> Result<&'a Table, String> {
    all.iter()
        .find(|t| t.title == title)
        .ok_or_else(|| format!("no table `### {title}` in the printout"))
}

/// The smallest peer (not a qdf column) of a size row: `(name, bytes)`.
fn smallest_peer(t: &Table, row: &[String]) -> Option<(String, u64)> {
    let mut best: Option<(String, u64)> = None;
    for (i, h) in t.header.iter().enumerate().skip(1) {
        if h.starts_with("qdf ") {
            continue;
        }
        if let Some(n) = row.get(i).and_then(|c| number(c))
            && best.as_ref().is_none_or(|b| n < b.1)
        {
            best = Some((h.clone(), n));
        }
    }
    best
}

/// A qdf column's size in a size row, as a number and as printed (`1 234`).
fn qdf_size<'a>(t: &Table, row: &'a [String], col: &str) -> Result<(u64, &'a str), String> {
    let i = t.column(col).ok_or_else(|| format!("no column {col}"))?;
    let cell = row.get(i).map_or("", String::as_str);
    let n = number(cell).ok_or_else(|| format!("{}: no size in column {col}", row[0]))?;
    Ok((n, cell))
}

/// A peer's cell as printed: the cell of column `name` in `row`.
fn cell<'a>(t: &Table, row: &'a [String], name: &str) -> &'a str {
    t.column(name)
        .and_then(|i| row.get(i))
        .map_or("", String::as_str)
}

/// The summary table: per dataset, qdf Balanced against the smallest peer (raw), and qdf
/// Compression (no general-purpose compressor) against the smallest peer after zstd.
///
/// Errors: `sizes_md` is not the `sizes` printout.
pub fn summary(sizes_md: &str) -> Result<String, String> {
    let all = tables(sizes_md);
    let raw = find(&all, "Raw bytes")?;
    let z = all
        .iter()
        .find(|t| t.title.starts_with("After zstd"))
        .ok_or("no zstd table")?;
    let mut out = String::from(
        "| dataset | smallest peer, raw | qdf Balanced | Balanced ÷ peer \
         | smallest peer + zstd | qdf Compression | Compression ÷ peer + zstd |\n\
         |---|---:|---:|---:|---:|---:|---:|\n",
    );
    for (r, zr) in raw.rows.iter().zip(&z.rows) {
        let (peer, p) = smallest_peer(raw, r).ok_or("no peer size")?;
        let (zpeer, zp) = smallest_peer(z, zr).ok_or("no peer size")?;
        let bal = qdf_size(raw, r, "qdf balanced")?;
        let comp = qdf_size(raw, r, "qdf compression")?;
        out += &format!(
            "| {} | {} ({peer}) | {} | {:.2}× | {} ({zpeer}) | {} | {:.2}× |\n",
            r[0],
            cell(raw, r, &peer),
            bal.1,
            bal.0 as f64 / p as f64,
            cell(z, zr, &zpeer),
            comp.1,
            comp.0 as f64 / zp as f64,
        );
    }
    Ok(out)
}

/// The memory summary: per dataset, the Balanced batch encode's peak heap against the bytes it
/// writes and against the value's Speed-tier size.
///
/// Errors: the printouts are not those of `sizes` and `alloc_report`.
pub fn memory_summary(sizes_md: &str, alloc_md: &str) -> Result<String, String> {
    let sizes = tables(sizes_md);
    let raw = find(&sizes, "Raw bytes")?;
    let alloc = tables(alloc_md);
    let enc = find(&alloc, "Bytes allocated per encode: total / peak KiB")?;
    let col = enc.column("qdf balanced").ok_or("no qdf balanced column")?;
    let mut out = String::from(
        "| dataset | Balanced output | Balanced encode peak | peak ÷ output | Speed output \
         | peak ÷ Speed output |\n|---|---:|---:|---:|---:|---:|\n",
    );
    let (mut lo, mut hi) = (f64::MAX, 0f64);
    let (mut slo, mut shi) = (f64::MAX, 0f64);
    for r in &raw.rows {
        let a = enc
            .rows
            .iter()
            .find(|a| a[0] == r[0])
            .ok_or_else(|| format!("{}: no memory row", r[0]))?;
        let peak_kib = a[col]
            .split('/')
            .nth(1)
            .and_then(number)
            .ok_or_else(|| format!("{}: no peak", r[0]))?;
        let (bal, speed) = (
            qdf_size(raw, r, "qdf balanced")?,
            qdf_size(raw, r, "qdf speed")?,
        );
        let peak = peak_kib * 1024;
        let ratio = peak as f64 / bal.0 as f64;
        let speed_ratio = peak as f64 / speed.0 as f64;
        (lo, hi) = (lo.min(ratio), hi.max(ratio));
        (slo, shi) = (slo.min(speed_ratio), shi.max(speed_ratio));
        out += &format!(
            "| {} | {} B | {peak_kib} KiB | {ratio:.1}× | {} B | {speed_ratio:.1}× |\n",
            r[0], bal.1, speed.1,
        );
    }
    out += &format!(
        "\nBalanced encode peak: {lo:.1}× to {hi:.1}× the Balanced output, {slo:.1}× to \
         {shi:.1}× the value's Speed-tier bytes (peaks rounded up to whole KiB).\n"
    );
    Ok(out)
}

/// The four blocks, in [`BLOCKS`] order, from the two printouts.
///
/// Errors: a printout is not what its binary prints.
pub fn blocks(sizes_md: &str, alloc_md: &str) -> Result<[String; 4], String> {
    Ok([
        summary(sizes_md)?,
        memory_summary(sizes_md, alloc_md)?,
        sizes_md.to_owned(),
        alloc_md.to_owned(),
    ])
}
