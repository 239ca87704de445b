//! Conflicts as data: which object, which property, what each side holds, and how (if at all)
//! a policy settled it.

use std::fmt;

use crate::model::{ObjectId, PropPath, Value};
use crate::side::{Side, Sides};

/// What clashed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConflictKind {
    /// Both sides changed the same property to different values.
    BothModified,
    /// One side deleted an object or property that the other changed, added a child under,
    /// or started to reference.
    DeleteModify { deleted_by: Side },
    /// Both sides added the same id with different content.
    BothAdded,
    /// Both sides changed the same stretch of a list without identity.
    ListOverlap,
}

impl ConflictKind {
    pub fn name(self) -> &'static str {
        match self {
            ConflictKind::BothModified => "both-modified",
            ConflictKind::DeleteModify { .. } => "delete-modify",
            ConflictKind::BothAdded => "both-added",
            ConflictKind::ListOverlap => "list-overlap",
        }
    }

    /// The same clash seen with ours and theirs swapped.
    pub fn swapped(self) -> Self {
        match self {
            ConflictKind::DeleteModify { deleted_by } => ConflictKind::DeleteModify { deleted_by: deleted_by.other() },
            k => k,
        }
    }
}

/// Why a conflict was settled automatically.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// `--prefer ours|theirs`.
    Preference,
    /// A `.levelmerge.toml` rule with this property pattern.
    Rule(String),
    /// A volatile property (`ignore` rule): never a conflict, ours is kept.
    Volatile(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolution {
    pub side: Side,
    pub reason: Reason,
}

/// One conflict. Each side's values are the elements that side holds there: none when the side
/// deleted it, one for a property or object, several for a stretch of a list.
#[derive(Debug, Clone)]
pub struct Conflict<'a> {
    pub object: ObjectId,
    pub object_kind: String,
    pub path: PropPath,
    pub kind: ConflictKind,
    pub values: Sides<Vec<&'a Value<'a>>>,
    pub resolution: Option<Resolution>,
}

impl Conflict<'_> {
    /// Where the conflict is, as users write it in rules and read it in messages.
    pub fn location(&self) -> String {
        if self.path.0.is_empty() {
            format!("{} [{}]", self.object, self.object_kind)
        } else {
            format!("{} [{}] › {}", self.object, self.object_kind, self.path)
        }
    }

    /// The text a side holds, for reports: `None` when the side has nothing there.
    pub fn text(&self, side: Side) -> Option<String> {
        let vals = self.values.get(side);
        if vals.is_empty() {
            return None;
        }
        Some(vals.iter().map(|v| v.raw).collect::<Vec<_>>().join(", "))
    }
}

impl fmt::Display for Conflict<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.name(), self.location())
    }
}
