use super::*;

#[test]
fn presets_match_go_bits_plus_session_state_and_nested_columns() {
    assert_eq!(Options::speed().features.bits(), 0);
    assert_eq!(Options::balanced().features.bits(), 0x7C1F);
    assert_eq!(Options::compression().features.bits(), 0x7D7F);
    assert_eq!(Options::default(), Options::balanced());
}

#[test]
fn output_budget_default_and_fixed() {
    let o = Options::default();
    assert_eq!(o.output_budget(10), 64 << 20);
    assert_eq!(o.output_budget(1 << 20), 64 << 20);
    assert_eq!(o.output_budget((1 << 20) + 1), (64 << 20) + 64);
    assert_eq!(o.output_budget(8 << 20), 512 << 20);
    assert_eq!(o.output_budget(u64::MAX), u64::MAX);
    assert_eq!(o.max_output(5).output_budget(1 << 20), 5);
}
