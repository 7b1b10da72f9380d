//! `streamform.yml` decoded entry by entry (`watch`, the language server)
//! agrees with the whole file's decode on every project file of the test
//! data, and on each of it edited (see `compiler/src/config/entries.rs`).

use streamform::config::decode_project;
use streamform::config::entries::EntryCache;

fn agrees(cache: &mut EntryCache, text: &str) {
    assert_eq!(cache.decode_project("streamform.yml", text), decode_project("streamform.yml", text), "{text}");
}

/// Every project file of the test data, and each of it with one line
/// removed, doubled, or indented further.
#[test]
fn every_project_file_of_the_test_data_agrees() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata");
    let mut pending = vec![root];
    let (mut files, mut cut) = (0, 0);
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("testdata is readable").flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.file_name().is_some_and(|n| n == "streamform.yml") {
                let Ok(text) = std::fs::read_to_string(&path) else { continue };
                files += 1;
                let mut warm = EntryCache::default();
                agrees(&mut warm, &text);
                cut += usize::from(warm.last_decoded() > 0);
                let lines: Vec<&str> = text.split_inclusive('\n').collect();
                for i in 0..lines.len().min(60) {
                    let with = |line: &str| [&lines[..i], &[line][..], &lines[i + 1..]].concat().concat();
                    for edited in [with(""), with(&lines[i].repeat(2)), with(&format!("  {}", lines[i]))] {
                        agrees(&mut warm, &edited);
                        agrees(&mut EntryCache::default(), &edited);
                    }
                }
            }
        }
    }
    assert!(files > 100 && cut * 2 > files, "{cut} of {files} project files cut into entries");
}
