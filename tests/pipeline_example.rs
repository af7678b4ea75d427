//! Runs `examples/pipeline` in-process: a clean run exits 0, a run with one corrupted record
//! on the wire exits non-zero.

#[allow(dead_code)]
#[path = "../examples/pipeline/app.rs"]
mod app;
#[path = "../examples/pipeline/codecs.rs"]
mod codecs;
#[path = "../examples/pipeline/data.rs"]
mod data;
#[path = "../examples/pipeline/streams.rs"]
mod streams;

fn args(list: &[&str]) -> app::Args {
    match app::parse_args(list.iter().map(|s| s.to_string())).unwrap() {
        app::Command::Run(a) => a,
        app::Command::Help => panic!("not a run"),
    }
}

#[test]
fn the_pipeline_verifies_every_record_and_fails_on_one_corrupted_record() {
    let (code, report) = app::report(&args(&["--telemetry", "300"]));
    assert_eq!(code, 0, "{report}");
    let header = report.lines().next().unwrap();
    assert!(header.starts_with("dataset"), "{report}");
    assert!(header.ends_with("records/s payload MB/s"), "{header}");
    assert!(
        report.contains("\n  qdf fast     QdfCodec::fast(): Speed tier"),
        "{report}"
    );
    assert!(report.ends_with("OK: every record arrived equal to what was sent, in every format\n"));

    // Record 1500 is a USGS quake (the 1041 Zipkin spans come first).
    let (code, report) = app::report(&args(&["--telemetry", "300", "--corrupt", "1500"]));
    assert_eq!(code, 1, "{report}");
    let mut lines = report.lines();
    assert_eq!(
        lines.next(),
        Some("FAILED: some records did not arrive as sent")
    );
    let second = lines.next().unwrap();
    assert!(second.starts_with("MISMATCH USGS"), "{second}");
    assert!(second.contains("/ qdf dense:"), "{second}");
    assert!(!report.contains("OK: every record"), "{report}");
}

#[test]
fn arguments_are_checked() {
    assert_eq!(
        args(&["--corrupt", "7"]),
        app::Args {
            corrupt: Some(7),
            telemetry: 20_000
        }
    );
    for h in ["--help", "-h"] {
        assert_eq!(
            app::parse_args([h.to_string()].into_iter()),
            Ok(app::Command::Help)
        );
    }
    assert!(app::USAGE.contains("--corrupt N"));
    assert!(app::parse_args(["--corrupt".to_string()].into_iter()).is_err());
    assert!(app::parse_args(["--frobnicate".to_string()].into_iter()).is_err());
}
