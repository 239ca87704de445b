//! A last guard against silent loss: a member every version of an object holds cannot be
//! missing from the merge, whatever the sides changed (a side that removes a member no longer
//! holds it). An assembled map that lacks one was put together wrongly, and writing it would
//! drop data without a word (a game object written with its component list alone).

use crate::coherence::Problem;
use crate::model::{Level, Value, ValueKind};
use crate::resolve::{RValue, Resolved};
use crate::side::Sides;

/// The members `view` lost that every version of their object holds, one problem each.
/// Objects written whole are copied from a version and cannot have lost anything.
pub(crate) fn lost_members(view: &Resolved<'_>, levels: &Sides<Level<'_>>) -> Vec<Problem> {
    let mut problems = Vec::new();
    for obj in view.objects.values() {
        let RValue::Map { .. } = &obj.props else { continue };
        let versions = [&levels.base, &levels.ours, &levels.theirs].map(|l| l.get(&obj.id).map(|o| &o.props));
        let [Some(b), Some(o), Some(t)] = versions else { continue };
        let mut path = Vec::new();
        lost_under(&obj.props, [b, o, t], &mut path, &mut |member| {
            problems.push(Problem::Inconsistent {
                object: obj.id.clone(),
                message: format!("the merge lost `{member}`, which every version holds"),
                line: 0,
            });
        });
    }
    problems
}

/// Walks the assembled maps of `merged`, whose versions are `versions`, and calls `lost` with
/// the path of each member all of them hold and `merged` lacks.
fn lost_under<'v>(merged: &RValue<'_>, versions: [&'v Value<'v>; 3], path: &mut Vec<&'v str>, lost: &mut impl FnMut(String)) {
    let RValue::Map { entries, .. } = merged else { return };
    let [ValueKind::Map(base), ValueKind::Map(ours), ValueKind::Map(theirs)] = versions.map(|v| &v.kind) else { return };
    let member = |entries: &'v [(&'v str, Value<'v>)], key: &str| entries.iter().find(|(k, _)| *k == key).map(|(_, v)| v);
    for (key, base_value) in base {
        let (Some(ours_value), Some(theirs_value)) = (member(ours, key), member(theirs, key)) else { continue };
        path.push(key);
        match entries.iter().find(|(k, _)| k == key) {
            None => lost(path.join(".")),
            Some((_, value)) => lost_under(value, [base_value, ours_value, theirs_value], path, lost),
        }
        path.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Object, ObjectId, Origin};
    use crate::resolve::RObject;
    use crate::side::Side;

    fn scalar(raw: &'static str) -> Value<'static> {
        Value::scalar(raw, Origin { side: Side::Base, node: 0 }, None)
    }

    fn map(entries: Vec<(&'static str, Value<'static>)>) -> Value<'static> {
        Value::map("", Origin { side: Side::Base, node: 0 }, entries)
    }

    fn level(props: Value<'static>) -> Level<'static> {
        let mut level = Level::new();
        let id = ObjectId::new("1");
        level.objects.insert(id.clone(), Object { id, kind: "GameObject".into(), parent: None, props, line: 1 });
        level
    }

    fn view<'a>(props: RValue<'a>) -> Resolved<'a> {
        let mut objects = indexmap::IndexMap::default();
        let id = ObjectId::new("1");
        objects.insert(id.clone(), RObject { id, kind: "GameObject", parent: None, props });
        Resolved { objects, root: None }
    }

    #[test]
    fn a_member_every_version_holds_is_reported_when_the_merge_lacks_it_and_not_otherwise() {
        let base = map(vec![("m_Name", scalar("Lamp")), ("m_Layer", scalar("0")), ("m_Transform", map(vec![("x", scalar("1"))]))]);
        // Ours removed m_Layer: only what all three hold must stay.
        let ours = map(vec![("m_Name", scalar("Torch")), ("m_Transform", map(vec![("x", scalar("2"))]))]);
        let theirs = base.clone();
        let levels = Sides::new(level(base.clone()), level(ours), level(theirs));
        let ValueKind::Map(members) = &base.kind else { unreachable!() };
        let transform = &members[2].1;
        let ValueKind::Map(inner) = &transform.kind else { unreachable!() };

        let whole = view(RValue::Map {
            template: &base,
            entries: vec![
                ("m_Name", RValue::Exact(&members[0].1)),
                ("m_Transform", RValue::Map { template: transform, entries: vec![("x", RValue::Exact(&inner[0].1))] }),
            ],
        });
        assert!(lost_members(&whole, &levels).is_empty());

        let lost_name = view(RValue::Map { template: &base, entries: vec![("m_Transform", RValue::Exact(transform))] });
        let problems = lost_members(&lost_name, &levels);
        assert_eq!(problems.len(), 1);
        assert!(problems[0].to_string().contains("`m_Name`"), "{}", problems[0]);

        let lost_nested = view(RValue::Map {
            template: &base,
            entries: vec![("m_Name", RValue::Exact(&members[0].1)), ("m_Transform", RValue::Map { template: transform, entries: vec![] })],
        });
        let problems = lost_members(&lost_nested, &levels);
        assert_eq!(problems.len(), 1);
        assert!(problems[0].to_string().contains("`m_Transform.x`"), "{}", problems[0]);

        // Written whole from a version: nothing to check.
        assert!(lost_members(&view(RValue::Exact(&base)), &levels).is_empty());
    }
}
