//! Values Unity computes and writes back on save, volatile for the objects that hold them:
//! where both sides changed one differently, ours is kept with a note, never a conflict.
//!
//! * TextMeshPro's `m_fontSize` when `m_enableAutoSizing` is on: the component fits the text
//!   to its box between `m_fontSizeMin` and `m_fontSizeMax` and stores the size it found, so
//!   two sides that changed the text or the box store two computations, not two choices.

use levelmerge_core::policy::{Rule, RuleAction};
use levelmerge_core::Sides;
use rustc_hash::FxHashSet;

use crate::parse::UnityFile;

/// The class id of `MonoBehaviour`, the class of every script component (TextMeshPro's too).
const MONO_BEHAVIOUR: i64 = 114;

/// The fileIDs of the script components that size their text themselves.
fn auto_sized_texts(file: &UnityFile<'_>) -> FxHashSet<i64> {
    let finder = memchr::memmem::Finder::new(b"\n  m_enableAutoSizing: 1");
    file.docs
        .iter()
        .filter(|d| d.class_id == MONO_BEHAVIOUR && finder.find(file.text(d.span).as_bytes()).is_some())
        .map(|d| d.file_id)
        .collect()
}

/// Volatile rules for the derived values of the objects both sides hold.
pub fn rules(docs: Sides<&UnityFile<'_>>) -> Vec<Rule> {
    let theirs = auto_sized_texts(docs.theirs);
    let mut both: Vec<i64> = auto_sized_texts(docs.ours).into_iter().filter(|id| theirs.contains(id)).collect();
    both.sort_unstable();
    both.into_iter().map(|id| Rule { pattern: format!("{id}.MonoBehaviour.m_fontSize"), action: RuleAction::Ignore }).collect()
}
