//! `levelmerge hub` (the live collaboration server, and its tokens) and `levelmerge sync` (the
//! agent in a working copy). The logic lives in `levelmerge-hub`; this gives it the codecs.

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{anyhow, bail, Result};
use levelmerge_core::policy::Policy;
use levelmerge_core::text::{merge_lines, MarkerStyle};
use levelmerge_core::{Options, Side, Sides};
use levelmerge_hub::agent::{Agent, AgentOptions};
use levelmerge_hub::auth::Tokens;
use levelmerge_hub::core::{Merged, Merger, Policy as HubPolicy};
use levelmerge_hub::server::HubOptions;

use crate::config::Config;
use crate::exit;
use crate::format;
use crate::ui::Ui;

#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct HubArgs {
    #[command(subcommand)]
    pub command: Option<HubCommand>,
    /// The hub's bare git repository (created when missing).
    #[arg(long, value_name = "DIR", required = true)]
    pub repo: Option<PathBuf>,
    /// Address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7878")]
    pub listen: SocketAddr,
    /// Who wins a conflict: the version already shared, the incoming edit, or nobody yet
    /// (manual: the shared version stays and the conflict waits on the dashboard).
    #[arg(long, value_enum, default_value = "shared-wins")]
    pub policy: PolicyArg,
    /// Messages a connection may send per second before it is closed.
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub max_rate: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PolicyArg {
    SharedWins,
    IncomingWins,
    Manual,
}

#[derive(Debug, clap::Subcommand)]
pub enum HubCommand {
    /// Manage the hub's access tokens.
    #[command(subcommand)]
    Token(TokenCommand),
}

#[derive(Debug, clap::Subcommand)]
pub enum TokenCommand {
    /// Create a token for NAME and print it (once: only its hash is kept).
    Add {
        name: String,
        #[arg(long, value_name = "DIR")]
        repo: PathBuf,
        /// The token can follow the level but change nothing.
        #[arg(long)]
        read_only: bool,
    },
    /// Revoke NAME's token.
    Revoke {
        name: String,
        #[arg(long, value_name = "DIR")]
        repo: PathBuf,
    },
    /// List who holds a token.
    List {
        #[arg(long, value_name = "DIR")]
        repo: PathBuf,
    },
}

#[derive(Debug, clap::Args)]
pub struct SyncArgs {
    /// The hub's address: ws://HOST:PORT/ws (or HOST:PORT).
    #[arg(long, value_name = "URL")]
    pub hub: String,
    /// The access token (default: $LEVELMERGE_TOKEN).
    #[arg(long, env = "LEVELMERGE_TOKEN", hide_env_values = true)]
    pub token: String,
    /// How often saved edits are published: 2s, 500ms.
    #[arg(long, value_name = "TIME", default_value = "2s", value_parser = parse_interval)]
    pub interval: Duration,
    /// The working copy's root (default: the current folder); PATHs are relative to it.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Follow the hub's changes but publish nothing (a private draft).
    #[arg(long)]
    pub pause: bool,
    /// The level files to keep in sync.
    #[arg(required = true)]
    pub paths: Vec<String>,
}

fn parse_interval(text: &str) -> Result<Duration, String> {
    let (number, unit) = text.find(|c: char| c.is_ascii_alphabetic()).map_or((text, "s"), |i| text.split_at(i));
    let value: f64 = number.trim().parse().map_err(|_| format!("{text:?} is not a time like 2s or 500ms"))?;
    let seconds = match unit {
        "s" => value,
        "ms" => value / 1000.0,
        _ => return Err(format!("{text:?}: the unit must be s or ms")),
    };
    if !(0.05..=3600.0).contains(&seconds) {
        return Err(format!("{text:?}: choose between 50ms and 3600s"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// Every codec levelmerge has, for the hub and the agent.
pub struct Codecs {
    /// The working copy, for its `.levelmerge.toml`; none on the hub.
    root: Option<PathBuf>,
}

impl Codecs {
    /// The settings for `path`: the team's file as the hub holds it when given, else the
    /// working copy's `.levelmerge.toml`, else the defaults.
    fn config(&self, path: &str, settings: Option<&[u8]>) -> Result<Config, String> {
        match (settings, &self.root) {
            (Some(text), _) => {
                Config::parse(&String::from_utf8_lossy(text), Path::new(levelmerge_hub::core::SETTINGS)).map_err(|e| format!("{e:#}"))
            }
            (None, Some(root)) => Ok(Config::for_file(None, &root.join(path)).unwrap_or_default()),
            (None, None) => Ok(Config::default()),
        }
    }

    fn engine(&self, path: &str, texts: &[&[u8]], config: &Config) -> Option<Box<dyn levelmerge_core::codec::Engine>> {
        // The settings are text, merged by lines (their soundness is checked apart).
        if path == levelmerge_hub::core::SETTINGS {
            return None;
        }
        let format = format::detect(texts, Some(Path::new(path)));
        format::engine(format, config)
    }
}

impl Merger for Codecs {
    fn merge(
        &self,
        path: &str,
        base: &[u8],
        ours: &[u8],
        theirs: &[u8],
        prefer_ours: bool,
        settings: Option<&[u8]>,
    ) -> Result<Merged, String> {
        let style = MarkerStyle::default();
        let config = self.config(path, settings)?;
        let Some(engine) = self.engine(path, &[ours, theirs, base], &config) else {
            let m = merge_lines(base, ours, theirs, &style);
            return if m.conflicts == 0 {
                let mut problems: Vec<String> =
                    levelmerge_core::text::marker_lines(&m.text).iter().map(|l| format!("line {l}: a conflict marker")).collect();
                if path == levelmerge_hub::core::SETTINGS {
                    problems.extend(self.config(path, Some(&m.text)).err());
                }
                Ok(Merged { content: m.text, settled: Vec::new(), theirs_lost: Vec::new(), problems })
            } else {
                Err("conflicting edits of a text file".into())
            };
        };
        let prefer = Some(if prefer_ours { Side::Ours } else { Side::Theirs });
        let options = Options { policy: Policy { prefer, rules: config.rules.clone() }, ..Options::default() };
        let outcome = engine.merge(Sides::new(base, ours, theirs), &options, &style).map_err(|e| e.to_string())?;
        if outcome.open_conflicts > 0 {
            return Err(format!("{} conflict(s) the policy could not settle", outcome.open_conflicts));
        }
        let show = |t: &Option<String>| t.as_deref().map_or("(deleted)".to_owned(), |t| crate::ui::shorten(t, 40));
        let describe = |c: &levelmerge_core::codec::ConflictReport| {
            let object = crate::merge_cmd::conflict_object(c);
            format!(
                "{object}{}: ours {} · theirs {}",
                if c.path.is_empty() { String::new() } else { format!(" › {}", c.path) },
                show(&c.ours),
                show(&c.theirs)
            )
        };
        let settled = outcome.conflicts.iter().filter(|c| c.resolved.is_some()).map(describe).collect();
        let theirs_lost =
            outcome.conflicts.iter().filter(|c| c.resolved.as_ref().is_some_and(|(side, _)| *side != Side::Theirs)).map(describe).collect();
        let mut problems: Vec<String> = outcome.problems.iter().map(|p| p.to_string()).collect();
        problems.extend(levelmerge_core::text::marker_lines(&outcome.text).iter().map(|l| format!("line {l}: a conflict marker")));
        Ok(Merged { content: outcome.text, settled, theirs_lost, problems })
    }

    fn check(&self, path: &str, content: &[u8]) -> Result<(), String> {
        // The team's settings are shared through the hub too: a broken one is refused.
        if path == levelmerge_hub::core::SETTINGS {
            self.config(path, Some(content))?;
        }
        let config = self.config(path, None)?;
        let problems = format::problems(self.engine(path, &[content], &config).as_deref(), content);
        match problems.first() {
            None => Ok(()),
            Some(p) => {
                Err(format!("{p}{}", if problems.len() > 1 { format!(" (and {} more)", problems.len() - 1) } else { String::new() }))
            }
        }
    }

    fn objects(&self, path: &str, content: &[u8]) -> Result<Vec<(Vec<String>, String)>, String> {
        let Some(engine) = self.engine(path, &[content], &self.config(path, None)?) else { return Ok(Vec::new()) };
        let objects = engine.objects(content).map_err(|e| e.to_string())?;
        Ok(objects.into_iter().map(|o| (o.path, o.kind)).collect())
    }

    fn changed_objects(&self, path: &str, old: &[u8], new: &[u8]) -> Vec<String> {
        let Some(engine) = self.engine(path, &[new, old], &self.config(path, None).unwrap_or_default()) else { return Vec::new() };
        // The changed lines, placed in their objects: one reading of the file instead of the
        // two and the comparison a full diff costs (this runs on every save).
        let (Ok(old_text), Ok(new_text)) = (std::str::from_utf8(old), std::str::from_utf8(new)) else { return Vec::new() };
        let (in_old, in_new) = changed_lines(old_text, new_text);
        let mut objects = Vec::new();
        for (text, lines) in [(new, in_new), (old, in_old)] {
            if lines.is_empty() {
                continue;
            }
            let Ok(found) = engine.locate(text, &lines) else { continue };
            for o in found.into_iter().flatten() {
                // The file's own members (a JSON document's top, a `.tres` resource): `(file)`.
                let name = if o.path.is_empty() {
                    crate::diff_view::path_text(&o.path)
                } else {
                    format!("{} ({})", crate::diff_view::path_text(&o.path), o.kind)
                };
                if !objects.contains(&name) {
                    objects.push(name);
                }
            }
        }
        objects
    }
}

/// The 1-based lines of `old` that were removed (or replaced by a different number of lines)
/// and of `new` that were added or changed.
fn changed_lines(old: &str, new: &str) -> (Vec<usize>, Vec<usize>) {
    // The lines both share at the start and at the end are set aside first: a save changes a
    // few lines of a big file, and only the middle needs a line diff.
    let (old_lines, new_lines): (Vec<&str>, Vec<&str>) = (old.split_inclusive('\n').collect(), new.split_inclusive('\n').collect());
    let head = old_lines.iter().zip(&new_lines).take_while(|(a, b)| a == b).count();
    let most = old_lines.len().min(new_lines.len()) - head;
    let tail = old_lines.iter().rev().zip(new_lines.iter().rev()).take(most).take_while(|(a, b)| a == b).count();
    let (old_mid, new_mid) = (&old_lines[head..old_lines.len() - tail], &new_lines[head..new_lines.len() - tail]);
    let (mut in_old, mut in_new) = (Vec::new(), Vec::new());
    for op in levelmerge_core::sequence_diff::diff_ops(old_mid, new_mid) {
        let at = |index: usize, len: usize| head + index + 1..=head + index + len;
        match op {
            similar::DiffOp::Equal { .. } => {}
            similar::DiffOp::Delete { old_index, old_len, .. } => in_old.extend(at(old_index, old_len)),
            similar::DiffOp::Insert { new_index, new_len, .. } => in_new.extend(at(new_index, new_len)),
            similar::DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                in_new.extend(at(new_index, new_len));
                // Lines that became fewer or more may have taken whole objects with them.
                if old_len != new_len {
                    in_old.extend(at(old_index, old_len));
                }
            }
        }
    }
    (in_old, in_new)
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| anyhow!("cannot start the async runtime: {e}"))
}

pub fn hub(args: &HubArgs, ui: &Ui) -> Result<u8> {
    if let Some(HubCommand::Token(command)) = &args.command {
        return token(command);
    }
    let repo = args.repo.clone().expect("clap requires --repo");
    let policy = match args.policy {
        PolicyArg::SharedWins => HubPolicy::SharedWins,
        PolicyArg::IncomingWins => HubPolicy::IncomingWins,
        PolicyArg::Manual => HubPolicy::Manual,
    };
    let options = HubOptions { repo, listen: args.listen, policy, max_rate: args.max_rate };
    let quiet = ui.quiet;
    let log: Box<dyn Fn(String) + Send + Sync> = Box::new(move |line| {
        if !quiet {
            let _ = writeln!(std::io::stdout().lock(), "{line}");
        }
    });
    runtime()?.block_on(levelmerge_hub::server::serve(options, Codecs { root: None }, None, log)).map_err(|e| anyhow!(e))?;
    Ok(exit::CLEAN)
}

fn token(command: &TokenCommand) -> Result<u8> {
    let repo = match command {
        TokenCommand::Add { repo, .. } | TokenCommand::Revoke { repo, .. } | TokenCommand::List { repo } => repo,
    };
    if matches!(command, TokenCommand::Add { .. }) {
        // The first token of a new hub creates its repository.
        levelmerge_hub::store::GitStore::open(repo).map_err(|e| anyhow!(e))?;
    } else if !repo.exists() {
        bail!("{}: no such hub repository", repo.display());
    }
    let mut tokens = Tokens::load(repo).map_err(|e| anyhow!(e))?;
    let mut out = std::io::stdout().lock();
    match command {
        TokenCommand::Add { name, read_only, .. } => {
            let token = tokens.add(name, *read_only).map_err(|e| anyhow!(e))?;
            tokens.save(repo).map_err(|e| anyhow!(e))?;
            writeln!(out, "{token}")?;
            eprintln!("levelmerge: token for {name}{} (shown once; only its hash is kept)", if *read_only { ", read-only" } else { "" });
        }
        TokenCommand::Revoke { name, .. } => {
            if !tokens.revoke(name) {
                bail!("{name} holds no token");
            }
            tokens.save(repo).map_err(|e| anyhow!(e))?;
            eprintln!("levelmerge: {name}'s token is revoked");
        }
        TokenCommand::List { .. } => {
            for (user, read_only) in tokens.users() {
                writeln!(out, "{user}{}", if read_only { " (read-only)" } else { "" })?;
            }
        }
    }
    Ok(exit::CLEAN)
}

pub fn sync(args: &SyncArgs, ui: &Ui) -> Result<u8> {
    let root = match &args.root {
        Some(r) => r.clone(),
        None => std::env::current_dir()?,
    };
    for path in &args.paths {
        levelmerge_hub::protocol::check_path(path).map_err(|e| anyhow!("{e} (paths are relative to {})", root.display()))?;
    }
    let hub = if args.hub.contains("://") { args.hub.clone() } else { format!("ws://{}/ws", args.hub) };
    let options = AgentOptions {
        hub,
        token: args.token.clone(),
        root: root.clone(),
        paths: args.paths.clone(),
        interval: args.interval,
        paused: args.pause,
    };
    let quiet = ui.quiet;
    let say: Box<dyn Fn(String) + Send> = Box::new(move |line| {
        if !quiet {
            let _ = writeln!(std::io::stdout().lock(), "{line}");
        }
    });
    let agent = Agent::new(options, Codecs { root: Some(root) }, say);
    runtime()?.block_on(agent.run()).map_err(|e| anyhow!(e))?;
    Ok(exit::CLEAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_is_placed_in_the_objects_it_touched() {
        let old = "{\n  \"entities\": [\n    { \"id\": 1, \"name\": \"Door\", \"x\": 0 },\n    { \"id\": 2, \"name\": \"Lamp\", \"x\": 0 },\n    { \"id\": 3, \"name\": \"Crate\", \"x\": 0 }\n  ]\n}\n";
        let new = old.replace("\"Lamp\", \"x\": 0", "\"Lamp\", \"x\": 4").replace("    { \"id\": 3, \"name\": \"Crate\", \"x\": 0 }\n", "");
        let new = new.replace("\"Lamp\", \"x\": 4 },", "\"Lamp\", \"x\": 4 }");
        assert_eq!(changed_lines(old, &new), (vec![4, 5], vec![4]));
        let codecs = Codecs { root: None };
        assert_eq!(codecs.changed_objects("level.json", old.as_bytes(), new.as_bytes()), ["Lamp (entities)", "Crate (entities)"]);
        assert!(codecs.changed_objects("level.json", old.as_bytes(), old.as_bytes()).is_empty());
        // An edit of the file's own members is the file's.
        let titled = old.replacen("{\n", "{\n  \"title\": \"Keep\",\n", 1);
        assert_eq!(codecs.changed_objects("level.json", titled.as_bytes(), titled.replace("Keep", "Fort").as_bytes()), ["(file)"]);
        // Edits at both ends and in the middle, lines added and removed.
        assert_eq!(changed_lines("a\nb\nc\nd\ne\n", "A\nb\nc\nx\nd\n"), (vec![5], vec![1, 4]));
        assert_eq!(changed_lines("a\nb\n", "a\nb\nc"), (vec![], vec![3]));
        assert_eq!(changed_lines("a\nb\nc\n", "a\nc\n"), (vec![2], vec![]));
    }

    #[test]
    fn conflicts_the_policy_settled_are_named_by_their_objects() {
        let base = "{\n  \"entities\": [\n    { \"id\": 1, \"name\": \"Door\", \"x\": 0 }\n  ]\n}\n";
        let (ours, theirs) = (base.replace("\"x\": 0", "\"x\": 5"), base.replace("\"x\": 0", "\"x\": 7"));
        let merged = Codecs { root: None }.merge("level.json", base.as_bytes(), ours.as_bytes(), theirs.as_bytes(), true, None).unwrap();
        assert_eq!(merged.content, ours.as_bytes());
        assert_eq!(merged.settled, ["Door [entities] › x: ours 5 · theirs 7"]);
        assert_eq!(merged.theirs_lost, merged.settled, "the incoming side lost it");
        assert!(merged.problems.is_empty());
    }

    #[test]
    fn intervals_are_read_in_seconds_or_milliseconds() {
        assert_eq!(parse_interval("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_interval("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_interval("1.5"), Ok(Duration::from_millis(1500)));
        assert!(parse_interval("2h").is_err());
        assert!(parse_interval("0s").is_err());
        assert!(parse_interval("fast").is_err());
    }
}
