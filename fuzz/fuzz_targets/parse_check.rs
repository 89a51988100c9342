//! Any text given to the parser and checker yields a program or
//! diagnostics (which must render), never a panic, hang or stack overflow.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(diagnostics) = treefuse::compile_source("fuzz.tf", source) {
        assert!(!diagnostics.items.is_empty());
        let _ = diagnostics.render(false);
    }
});
