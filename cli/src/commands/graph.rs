//! `graph`.

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum GraphFormat {
    Text,
    Dot,
}

pub fn run(_project: &str, _format: GraphFormat, _json: bool) -> u8 {
    2
}
