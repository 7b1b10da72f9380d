#![no_main]
//! The language server's message reader: Content-Length framing and
//! JSON-RPC decoding, on arbitrary bytes from the editor.

use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../../src/lsp/transport.rs"]
mod transport;

fuzz_target!(|data: &[u8]| {
    let (_, answers) = transport::read_all(data);
    // Every answer to a malformed frame is a JSON-RPC error.
    for a in answers {
        assert_eq!(a["jsonrpc"], "2.0");
        assert!(a["error"]["code"].is_i64());
    }
});
