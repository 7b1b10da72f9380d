#![no_main]

use libfuzzer_sys::fuzz_target;
use streamform_fuzz::{entry, keep};

fuzz_target!(|data: &[u8]| {
    keep(data);
    entry::sql(data);
});
