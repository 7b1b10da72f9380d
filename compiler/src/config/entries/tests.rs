use super::*;

fn full(text: &str) -> Result<ProjectConfig, Vec<Diagnostic>> {
    decode_project("streamform.yml", text)
}

/// A project file of `n` models written every way an entry is: settings of
/// each kind, nothing, comments between entries and under them, and
/// targets after the section.
fn generated(n: usize) -> String {
    let mut t = String::from("# the project\nname: gen\nversion: 1\nmodels:\n");
    for i in 0..n {
        t += &match i % 7 {
            0 => format!("  m_{i:04}:\n"),
            1 => format!("  m_{i:04}:\n    materialized: upsert\n    key: [k, v]\n    retention: {}h\n", i % 9 + 1),
            2 => format!("  m_{i:04}:\n    sink:\n      connector: kafka\n      topic: out_{i}\n  # between entries\n\n"),
            3 => format!("  m_{i:04}:\n    window: {{type: hop, size: 2m, slide: 1m}}\n    # under an entry\n"),
            4 => format!("  m_{i:04}:\n    warnings:\n      allow:\n        - W0766\n        - {{code: W0792, reason: kept}}\n"),
            5 => format!("  m_{i:04}:\n    renamed_from: old_{i}\n    nodes:\n      n1: {{was: n0}}\n"),
            _ => format!("  m_{i:04}:\n    materialized: append   # trailing\n"),
        };
    }
    t += "targets:\n  dev:\n    backend: flink\n    flink: {gateway: \"http://localhost:8083\"}\n    kafka: {bootstrap_servers: \"localhost:9092\"}\n";
    t
}

/// Decodes `text` on `cache` and checks it against the whole file's decode.
fn agrees(cache: &mut EntryCache, text: &str) {
    assert_eq!(cache.decode_project("streamform.yml", text), full(text), "{text}");
}

#[test]
fn a_generated_file_is_cut_and_agrees() {
    let text = generated(200);
    let mut cache = EntryCache::default();
    agrees(&mut cache, &text);
    assert_eq!(cache.last_decoded(), 200, "every entry was read from its text");
    agrees(&mut cache, &text);
    assert_eq!(cache.last_decoded(), 0, "nothing changed");
}

#[test]
fn an_edit_decodes_only_what_it_changed() {
    let text = generated(200);
    let mut cache = EntryCache::default();
    agrees(&mut cache, &text);
    // One entry's value, same length.
    let edited = text.replacen("retention: 2h", "retention: 3h", 1);
    agrees(&mut cache, &edited);
    assert_eq!(cache.last_decoded(), 1);
    // A line added above every entry: they all move, none is read again.
    let moved = edited.replacen("version: 1\n", "version: 1\n\n# a note\n", 1);
    agrees(&mut cache, &moved);
    assert_eq!(cache.last_decoded(), 0);
    // A new entry, and one removed.
    let added = moved.replacen("  m_0010:\n", "  m_new:\n    retention: 5m\n  m_0010:\n", 1);
    agrees(&mut cache, &added);
    assert_eq!(cache.last_decoded(), 1);
    let removed = added.replacen("  m_0000:\n", "", 1);
    agrees(&mut cache, &removed);
    assert_eq!(cache.last_decoded(), 0);
}

/// What is cut must decode as the whole file does, and what is not must be
/// left to it: errors (with their places), duplicates, references, other
/// shapes of the section.
#[test]
fn what_it_cannot_read_plainly_it_leaves_to_the_whole_decode() {
    let base = generated(20);
    let cases = [
        base.replacen("retention: 2h", "retention: 2x", 1),
        base.replacen("  m_0003:\n", "  m_0001:\n", 1),
        base.replacen("topic: out_2", "topic: ${TOPIC}", 1),
        base.replacen("  m_0002:\n", "  sink:\n    connector: kafka\n  m_0002:\n", 1),
        base.replacen("  m_0002:\n", "  materialized:\n", 1),
        base.replacen("  m_0002:\n", "  42:\n", 1),
        base.replacen("  m_0002:\n", "  \"m_0002\":\n", 1),
        base.replacen("  m_0002:\n", " m_0002:\n", 1),
        base.replacen("  m_0002:\n", "  m_0002: 5\n", 1),
        base.replacen("  m_0002:\n", "  - m_0002\n", 1),
        base.replacen("models:\n", "models: # all of them\n", 1),
        base.replacen("models:\n", "models: {}\n", 1),
        base.replacen("models:\n", "models:\n\tx: 1\n", 1),
        base.replacen("targets:\n", "  targets:\n", 1),
        base.replacen("targets:\n", "models:\n  extra:\ntargets:\n", 1),
        base.replacen("version: 1\n", "version: 2\n", 1),
        base.replacen("version: 1\n", "", 1),
        format!("{base}models:\n  again:\n"),
        base.replacen("  m_0002:\n", "  m_0002:\n    retention: \"1h\"\n", 1),
        base.replacen("    key: [k, v]\n", "    key:\n      - k\n      - v\n", 1),
        base.replacen("    key: [k, v]\n", "    key: [k, v\n", 1),
        base.replacen("  m_0002:\n", "  m_0002:\r\n", 1),
        "name: x\nversion: 1\nmodels:\n".to_string(),
        "name: x\nversion: 1\nmodels:\n  a:\n".to_string(),
        "models:\n  a:\n    retention: 1h\nname: x\nversion: 1\n".to_string(),
        "name: x\nversion: 1\nmodels:\n    a:\n  b:\n".to_string(),
        String::new(),
    ];
    for text in &cases {
        agrees(&mut EntryCache::default(), text);
        // And after the file it was made from.
        let mut warm = EntryCache::default();
        agrees(&mut warm, &base);
        agrees(&mut warm, text);
        agrees(&mut warm, &base);
    }
}
