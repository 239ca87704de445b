//! Which format a file is in, and the engine that handles it.

use std::path::Path;

use clap::ValueEnum;
use levelmerge_core::codec::Engine;
use levelmerge_json::{Dialect, JsonCodec};

use crate::config::Config;

/// The options every command that reads levels takes.
#[derive(Debug, Clone, clap::Args)]
pub struct FormatArgs {
    /// The file format (default: from the content, then from the extension).
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Configuration file (default: the nearest .levelmerge.toml from the file's folder up to
    /// the repository root).
    #[arg(long, value_name = "FILE")]
    pub config: Option<std::path::PathBuf>,
}

/// The formats levelmerge knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Json,
    Sjson,
    Unity,
    Godot,
    /// Plain lines: merged like `git merge-file`.
    Text,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Sjson => "sjson",
            Format::Unity => "unity",
            Format::Godot => "godot",
            Format::Text => "text",
        }
    }
}

/// Extensions registered by `setup`, with their format.
pub const EXTENSIONS: &[(&str, Format)] = &[
    ("json", Format::Json),
    ("ldtk", Format::Json),
    ("ldtkl", Format::Json),
    ("tmj", Format::Json),
    ("tsj", Format::Json),
    ("sjson", Format::Sjson),
    // Cocos Creator 2.x and 3.x scenes, Ogmo projects (Cocos prefabs share Unity's extension and
    // are told apart by their content)
    ("fire", Format::Json),
    ("scene", Format::Json),
    ("ogmo", Format::Json),
    ("tscn", Format::Godot),
    ("tres", Format::Godot),
    ("unity", Format::Unity),
    ("prefab", Format::Unity),
    ("asset", Format::Unity),
    ("mat", Format::Unity),
    ("controller", Format::Unity),
    ("anim", Format::Unity),
    ("overrideController", Format::Unity),
    ("mask", Format::Unity),
    ("playable", Format::Unity),
    ("lighting", Format::Unity),
    ("physicMaterial", Format::Unity),
    ("spriteatlas", Format::Unity),
    ("terrainlayer", Format::Unity),
];

/// Whether a file is binary, as git tells: a NUL byte among its first 8,000. No part of it
/// can be merged or shown by lines.
pub fn is_binary(text: &[u8]) -> bool {
    text.iter().take(8000).any(|&b| b == 0)
}

/// The format from the content, else from the extension.
pub fn detect(contents: &[&[u8]], path: Option<&Path>) -> Format {
    for text in contents {
        let t = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text).trim_ascii_start();
        if opens_with_a_section_tag(t) {
            return Format::Godot;
        }
        if t.starts_with(b"{") || t.starts_with(b"[") {
            return Format::Json;
        }
        if t.starts_with(b"%YAML") || t.starts_with(b"--- !u!") {
            return Format::Unity;
        }
        if !t.is_empty() {
            break;
        }
    }
    let ext = path.and_then(|p| p.extension()).and_then(|e| e.to_str()).map(str::to_ascii_lowercase).unwrap_or_default();
    if let Some((_, f)) = EXTENSIONS.iter().find(|(e, _)| e.eq_ignore_ascii_case(&ext)) {
        return *f;
    }
    match ext.as_str() {
        "fire" | "scene" | "ogmo" => Format::Json,
        "level" | "unit" | "entity" => Format::Sjson,
        "tscn" | "tres" | "escn" => Format::Godot,
        _ => Format::Text,
    }
}

/// Whether a text opens with a Godot section tag (`[gd_scene …]`, or `[node …]` where the
/// header is missing): a word right after the bracket, which in a JSON array only `true`,
/// `false` and `null` are.
fn opens_with_a_section_tag(text: &[u8]) -> bool {
    let Some(rest) = text.strip_prefix(b"[") else { return false };
    let word_end = rest.iter().position(|&b| !(b.is_ascii_alphanumeric() || b == b'_')).unwrap_or(rest.len());
    let (word, after) = rest.split_at(word_end);
    word.first().is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
        && !matches!(word, b"true" | b"false" | b"null")
        && matches!(after.first(), Some(b' ' | b']' | b'\t'))
}

/// The engine for a format; `None` when it has no codec yet (merged as lines).
pub fn engine(format: Format, config: &Config) -> Option<Box<dyn Engine>> {
    match format {
        Format::Json => Some(Box::new(JsonCodec::new(None, config.json.clone()))),
        Format::Sjson => Some(Box::new(JsonCodec::new(Some(Dialect::Sjson), config.json.clone()))),
        Format::Unity => Some(Box::new(levelmerge_unity::UnityCodec)),
        Format::Godot => Some(Box::new(levelmerge_godot::GodotCodec)),
        Format::Text => None,
    }
}

/// What is wrong with `text`: its codec's checks, or only leftover conflict markers for a
/// format without a codec.
pub fn problems(engine: Option<&dyn Engine>, text: &[u8]) -> Vec<levelmerge_core::Problem> {
    match engine {
        Some(engine) => engine.check(text),
        None => {
            levelmerge_core::text::marker_lines(text).into_iter().map(|line| levelmerge_core::Problem::ConflictMarker { line }).collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_wins_over_extension() {
        assert_eq!(detect(&[b"{\"a\":1}"], Some(Path::new("x.prefab"))), Format::Json);
        assert_eq!(detect(&[b"%YAML 1.1\n"], Some(Path::new("x.json"))), Format::Unity);
        assert_eq!(detect(&[b"[gd_scene format=3]\n"], None), Format::Godot);
        assert_eq!(detect(&[b"  [1, 2]"], None), Format::Json);
    }

    #[test]
    fn a_godot_section_tag_is_told_from_a_json_array() {
        // A scene whose header was lost is still Godot's, and checked as such.
        assert_eq!(detect(&[b"[node name=\"A\" type=\"Node\"]\n"], Some(Path::new("a.json"))), Format::Godot);
        assert_eq!(detect(&[b"[resource]\n"], None), Format::Godot);
        assert_eq!(detect(&[b"[ext_resource\tpath=\"res://a.png\" id=1]\n"], None), Format::Godot);
        for array in ["[true, false]", "[null]", "[false ]", "[]", "[\"node\"]", "[{\"a\": 1}]"] {
            assert_eq!(detect(&[array.as_bytes()], Some(Path::new("a.tscn"))), Format::Json, "{array}");
        }
    }

    #[test]
    fn extension_when_content_says_nothing() {
        assert_eq!(detect(&[b"a = 1\n"], Some(Path::new("x.sjson"))), Format::Sjson);
        assert_eq!(detect(&[b""], Some(Path::new("x.ldtk"))), Format::Json);
        assert_eq!(detect(&[b"hello"], Some(Path::new("notes.txt"))), Format::Text);
        assert_eq!(detect(&[b"x"], Some(Path::new("a.tscn"))), Format::Godot);
    }
}
