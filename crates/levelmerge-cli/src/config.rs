//! The project configuration file, `.levelmerge.toml` at the repository root.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use levelmerge_core::policy::{Rule, RuleAction};
use levelmerge_json::{Collection, JsonConfig};
use serde::Deserialize;

pub const FILE_NAME: &str = ".levelmerge.toml";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawConfig {
    #[serde(default, rename = "rule")]
    rules: Vec<RawRule>,
    #[serde(default)]
    json: Option<RawJson>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawRule {
    property: String,
    take: Take,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Take {
    Ours,
    Theirs,
    Ignore,
    Max,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawJson {
    id_keys: Option<Vec<String>>,
    parent_key: Option<String>,
    #[serde(default)]
    reference_keys: Vec<String>,
    #[serde(default, rename = "collection")]
    collections: Vec<RawCollection>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCollection {
    path: String,
    key: String,
}

/// The settings levelmerge runs with.
#[derive(Debug, Clone, Default)]
pub struct Config {
    pub rules: Vec<Rule>,
    pub json: JsonConfig,
    /// Where it was read from, if anywhere.
    pub source: Option<PathBuf>,
}

impl Config {
    pub fn parse(text: &str, source: &Path) -> Result<Config> {
        let raw: RawConfig = toml::from_str(text).with_context(|| format!("invalid configuration in {}", source.display()))?;
        let rules = raw
            .rules
            .into_iter()
            .map(|r| Rule {
                pattern: r.property,
                action: match r.take {
                    Take::Ours => RuleAction::Ours,
                    Take::Theirs => RuleAction::Theirs,
                    Take::Ignore => RuleAction::Ignore,
                    Take::Max => RuleAction::Max,
                },
            })
            .collect();
        let mut json = JsonConfig::default();
        if let Some(j) = raw.json {
            if let Some(keys) = j.id_keys {
                json.id_keys = keys;
            }
            json.parent_key = j.parent_key;
            json.reference_keys = j.reference_keys;
            json.collections = j.collections.into_iter().map(|c| Collection::new(&c.path, &c.key)).collect();
        }
        Ok(Config { rules, json, source: Some(source.to_owned()) })
    }

    /// The configuration for `file`: `explicit` if given; else the nearest `.levelmerge.toml`
    /// from the file's folder up to the repository root; else the defaults.
    pub fn for_file(explicit: Option<&Path>, file: &Path) -> Result<Config> {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let folder = match file.parent() {
            Some(p) if !p.as_os_str().is_empty() => cwd.join(p),
            _ => cwd,
        };
        Config::load(explicit, &folder)
    }

    /// Read `explicit` if given; else the nearest `.levelmerge.toml` from `start` up to the
    /// repository root; else the defaults.
    pub fn load(explicit: Option<&Path>, start: &Path) -> Result<Config> {
        if let Some(path) = explicit {
            let text = std::fs::read_to_string(path).with_context(|| format!("cannot read configuration {}", path.display()))?;
            return Config::parse(&text, path);
        }
        let mut dir = Some(start);
        while let Some(d) = dir {
            let candidate = d.join(FILE_NAME);
            if candidate.is_file() {
                let text =
                    std::fs::read_to_string(&candidate).with_context(|| format!("cannot read configuration {}", candidate.display()))?;
                return Config::parse(&text, &candidate);
            }
            if d.join(".git").exists() {
                break;
            }
            dir = d.parent();
        }
        Ok(Config::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rules_and_json_settings() {
        let c = Config::parse(
            "[[rule]]\nproperty = \"sun_*\"\ntake = \"ignore\"\n\n[json]\nid-keys = [\"name\"]\nparent-key = \"parent\"\nreference-keys = [\"target\"]\n[[json.collection]]\npath = \"levels\"\nkey = \"iid\"\n",
            Path::new("x.toml"),
        )
        .unwrap();
        assert_eq!(c.rules[0].action, RuleAction::Ignore);
        assert_eq!(c.json.id_keys, vec!["name"]);
        assert_eq!(c.json.parent_key.as_deref(), Some("parent"));
        assert_eq!(c.json.collections[0].key, "iid");
    }

    #[test]
    fn rejects_unknown_settings_with_location() {
        let e = Config::parse("[[rule]]\nproperty = \"x\"\ntake = \"mine\"\n", Path::new("cfg.toml")).unwrap_err();
        let msg = format!("{e:#}");
        assert!(msg.contains("cfg.toml") && msg.contains("line 3"), "{msg}");
    }
}
