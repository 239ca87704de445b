//! How conflicts are settled: left for the user (default), taken from one side for all
//! (`--prefer`), or by per-property rules (`.levelmerge.toml`).

use crate::conflict::{Conflict, Reason, Resolution};
use crate::side::Side;

/// What a rule does with a conflict on a matching property.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleAction {
    Ours,
    Theirs,
    /// A volatile property: never a conflict, ours is kept.
    Ignore,
    /// A counter (`nextUid`): the larger number wins. Left as a conflict when a side's value
    /// is not a number.
    Max,
    /// An integer whose low bits the editor rewrites as bookkeeping, above the bits a user sets
    /// (Cocos' `_localZOrder`: an arrival order the engine deals out again on load, under the
    /// zIndex): when the two sides agree above the low `n` bits, ours is kept; else a conflict.
    IgnoreLowBits(u32),
}

/// A property rule: a glob over property paths (`sun_*`, `Light.m_Color`, `layers.*.name`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub pattern: String,
    pub action: RuleAction,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// Settle every conflict no rule matches from this side (`None`: leave it).
    pub prefer: Option<Side>,
    pub rules: Vec<Rule>,
}

impl Policy {
    /// The first rule matching a conflict's property path (alone, or after the object's kind,
    /// or after the object's id).
    pub fn rule_for(&self, conflict: &Conflict<'_>) -> Option<&Rule> {
        self.rule_at(conflict.object.as_str(), &conflict.object_kind, &conflict.path.to_string())
    }

    /// The first rule matching a property path of an object.
    pub fn rule_at(&self, object: &str, object_kind: &str, path: &str) -> Option<&Rule> {
        let candidates = [path.to_owned(), format!("{object_kind}.{path}"), format!("{object}.{path}"), object_kind.to_owned()];
        self.rules.iter().find(|r| candidates.iter().any(|c| !c.is_empty() && glob_match(&r.pattern, c)))
    }

    /// Whether a property is volatile editor state (an [`RuleAction::Ignore`] rule names it).
    pub fn is_volatile(&self, object: &str, object_kind: &str, path: &str) -> bool {
        self.rule_at(object, object_kind, path).is_some_and(|r| r.action == RuleAction::Ignore)
    }

    /// Settle what this policy settles; conflicts already settled are left alone.
    pub fn apply(&self, conflicts: &mut [Conflict<'_>]) {
        for c in conflicts.iter_mut().filter(|c| c.resolution.is_none()) {
            c.resolution = match self.rule_for(c) {
                Some(rule) => match rule.action {
                    RuleAction::Ours => Some(Resolution { side: Side::Ours, reason: Reason::Rule(rule.pattern.clone()) }),
                    RuleAction::Theirs => Some(Resolution { side: Side::Theirs, reason: Reason::Rule(rule.pattern.clone()) }),
                    RuleAction::Ignore => Some(Resolution { side: Side::Ours, reason: Reason::Volatile(rule.pattern.clone()) }),
                    RuleAction::Max => larger_side(c).map(|side| Resolution { side, reason: Reason::Rule(rule.pattern.clone()) }),
                    RuleAction::IgnoreLowBits(bits) => {
                        agree_above(c, bits).then(|| Resolution { side: Side::Ours, reason: Reason::Volatile(rule.pattern.clone()) })
                    }
                }
                // A rule that cannot settle this conflict leaves it to the preference.
                .or_else(|| self.prefer.map(|side| Resolution { side, reason: Reason::Preference })),
                None => self.prefer.map(|side| Resolution { side, reason: Reason::Preference }),
            };
        }
    }
}

/// The side holding the larger number, when both sides hold one number (ours on a tie).
fn larger_side(conflict: &Conflict<'_>) -> Option<Side> {
    let number = |side| conflict.text(side)?.trim().parse::<f64>().ok().filter(|n| n.is_finite());
    let (ours, theirs) = (number(Side::Ours)?, number(Side::Theirs)?);
    Some(if theirs > ours { Side::Theirs } else { Side::Ours })
}

/// Whether both sides hold an integer and the two agree above their low `bits` bits.
fn agree_above(conflict: &Conflict<'_>, bits: u32) -> bool {
    let number = |side| conflict.text(side).and_then(|t| t.trim().parse::<i64>().ok());
    matches!((number(Side::Ours), number(Side::Theirs)), (Some(o), Some(t)) if o >> bits == t >> bits)
}

/// Glob match: `*` any run of characters, `?` one character, everything else literal.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    // Paths are nearly always ASCII: matched as bytes without collecting characters.
    if pattern.is_ascii() && text.is_ascii() {
        glob(pattern.as_bytes(), text.as_bytes(), b'*', b'?')
    } else {
        glob(&pattern.chars().collect::<Vec<_>>(), &text.chars().collect::<Vec<_>>(), '*', '?')
    }
}

fn glob<T: PartialEq + Copy>(p: &[T], t: &[T], any: T, one: T) -> bool {
    let (mut pi, mut ti) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == one || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == any {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == any {
        pi += 1;
    }
    pi == p.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("sun_*", "sun_position"));
        assert!(glob_match("*.sun", "lighting.sun"));
        assert!(glob_match("a?c", "abc"));
        assert!(!glob_match("sun", "sun_position"));
        assert!(glob_match("*", ""));
        assert!(glob_match("layers*name", "layers[2].name"));
        assert!(!glob_match("x*y", "xay.z"));
        assert!(glob_match("é?", "éü") && !glob_match("é?", "éüx"));
    }
}
