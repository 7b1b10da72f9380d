#![no_main]

use libfuzzer_sys::fuzz_target;
use streamform_fuzz::entry;

// No `keep`: the reader does not recurse, so libFuzzer saves what crashes.
fuzz_target!(|data: &[u8]| entry::savepoint(data));
