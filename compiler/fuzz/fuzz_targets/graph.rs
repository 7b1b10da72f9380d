#![no_main]

use libfuzzer_sys::fuzz_target;
use streamform_fuzz::{gen, keep};

fuzz_target!(|data: &[u8]| {
    keep(data);
    gen::graph(data);
});
