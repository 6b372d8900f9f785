//! The tolerant journal reader: any text yields events, never a panic; every event re-parses
//! from its own compact JSON.
#![no_main]

use bmad_mem::js::json::{self, Value};
use bmad_mem::store::journal;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let lines = journal::lines(&text).count();
    let mut events = 0;
    for event in journal::events(&text) {
        events += 1;
        let compact = Value::Object(event).compact();
        let again = json::parse(&compact).expect("compact JSON re-parses");
        assert_eq!(again.compact(), compact, "compact JSON is stable");
    }
    assert!(events <= lines);
});
