//! Every recorded provider stream decodes to the number of events its
//! `.expect.json` states (`wire.sse_events`), whole and in random pieces.

use focus_core::json;
use focus_testkit::streams::recorded_streams;
use focus_transport::sse::SseDecoder;

#[test]
fn event_counts_match_the_recordings() {
    let Some(streams) = recorded_streams() else {
        return;
    };
    let files: Vec<_> = streams.into_iter().map(|s| s.path).collect();
    assert!(files.len() >= 50);
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        let expect = std::fs::read(file.with_extension("expect.json")).unwrap();
        let expect = json::parse(&expect).unwrap();
        let want = expect["wire"]["sse_events"]
            .as_u64()
            .expect("wire.sse_events") as usize;
        let whole = SseDecoder::decode_all(&bytes);
        assert_eq!(whole.len(), want, "{}", file.display());

        // Random pieces of 1..=64 bytes must give the very same events.
        let mut decoder = SseDecoder::new();
        let mut pieces = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let end = (at + 1 + (seed % 64) as usize).min(bytes.len());
            decoder.feed(&bytes[at..end], &mut pieces);
            at = end;
        }
        decoder.finish(&mut pieces);
        assert_eq!(pieces, whole, "{}", file.display());
    }
}
