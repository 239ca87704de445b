//! The real merge corpus lives beside the checkout (`../shared/corpus`), never inside it.
//! Tests read it in place; without it they are skipped, except under CI (`CI=true`), where a
//! missing corpus is a failure.

use std::path::{Path, PathBuf};

/// The corpus root: `$LEVELMERGE_CORPUS`, else `shared/corpus` next to the workspace.
pub fn root() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("LEVELMERGE_CORPUS") {
        return Some(PathBuf::from(p)).filter(|p| p.is_dir());
    }
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let candidate = workspace.join("../shared/corpus");
    candidate.is_dir().then(|| candidate.canonicalize().unwrap_or(candidate))
}

/// The corpus root, or `None` after saying the test is skipped. Panics under CI.
pub fn require(test: &str) -> Option<PathBuf> {
    let found = root();
    if found.is_none() {
        skip(test, "no corpus at ../shared/corpus (set LEVELMERGE_CORPUS to run it)");
    }
    found
}

/// Say that `test` is skipped because of `why`; under CI (`CI=true`), where everything a test
/// needs is installed, fail instead.
pub fn skip(test: &str, why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{test}: {why}, under CI");
    }
    // Written to the stderr handle itself: the test harness captures `eprintln!`, and a skip
    // must be seen.
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{test}: SKIPPED: {why}");
}

/// A merge scenario folder: base, ours, theirs, expected (same extension).
#[derive(Debug, Clone)]
pub struct Scenario {
    pub dir: PathBuf,
    pub ext: String,
}

impl Scenario {
    pub fn file(&self, which: &str) -> PathBuf {
        self.dir.join(format!("{which}.{}", self.ext))
    }

    pub fn read(&self, which: &str) -> Vec<u8> {
        std::fs::read(self.file(which)).unwrap_or_else(|e| panic!("cannot read {}: {e}", self.file(which).display()))
    }
}

/// Every scenario under `root` (recursively) whose extension passes `keep`.
pub fn scenarios(root: &Path, keep: impl Fn(&str) -> bool) -> Vec<Scenario> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let mut base_ext = None;
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Some(name) = p.file_name().and_then(|n| n.to_str()) {
                if let Some(ext) = name.strip_prefix("base.") {
                    base_ext = Some(ext.to_owned());
                }
            }
        }
        if let Some(ext) = base_ext {
            if keep(&ext) {
                out.push(Scenario { dir, ext });
            }
        }
    }
    out.sort_by(|a, b| a.dir.cmp(&b.dir));
    out
}

/// The identity laws on every scenario whose three inputs are `sound`: `merge(b,b,b) = b`,
/// `merge(b,o,b) = o`, `merge(b,b,t) = t` and `merge(b,o,o) = o`, byte for byte. Panics naming
/// the scenario and the law that fails; returns how many scenarios were checked.
pub fn check_identity_laws(
    scenarios: &[Scenario],
    sound: impl Fn(&[u8]) -> bool,
    merge: impl Fn(&[u8], &[u8], &[u8]) -> Result<Vec<u8>, String>,
) -> usize {
    let mut checked = 0;
    for s in scenarios {
        let (b, o, t) = (s.read("base"), s.read("ours"), s.read("theirs"));
        // Inputs committed broken (conflict markers, duplicate ids) are refused, not merged.
        if ![&b, &o, &t].iter().all(|x| sound(x)) {
            continue;
        }
        let name = s.dir.display();
        for (x, y, z, want, law) in
            [(&b, &b, &b, &b, "f,f,f"), (&b, &o, &b, &o, "b,o,b"), (&b, &b, &t, &t, "b,b,t"), (&b, &o, &o, &o, "b,o,o")]
        {
            let got = merge(x, y, z).unwrap_or_else(|e| panic!("{name}: merge({law}): {e}"));
            assert!(got == **want, "{name}: merge({law}) is not byte-exact");
        }
        checked += 1;
    }
    checked
}

/// Every scenario merged by `codec` with each side preferred (`--prefer ours`, `--prefer
/// theirs`) and settled gives a text with no problem its inputs lack (compared by key, without
/// line numbers): a policy never settles a merge into a broken level. Panics naming the
/// scenario, the side and the new problems; returns how many merges were settled.
pub fn check_policies_never_break<C>(codec: &C, scenarios: &[Scenario]) -> usize
where
    C: levelmerge_core::Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    use levelmerge_core::policy::Policy;
    use levelmerge_core::{Options, Side};
    let mut settled = 0;
    for s in scenarios {
        let versions = [s.read("base"), s.read("ours"), s.read("theirs")];
        let versions = versions.each_ref().map(|v| &v[..]);
        // The inputs' problems are read once, for both sides' merges, and only if one is clean.
        let known = std::cell::OnceCell::new();
        for side in [Side::Ours, Side::Theirs] {
            let options = Options { policy: Policy { prefer: Some(side), rules: Vec::new() }, ..Options::default() };
            let Some(new) = new_problems_of_clean_merge(codec, versions, &known, &options) else { continue };
            assert!(new.is_empty(), "{}: --prefer {side} exits 0 with new problems: {new:?}", s.dir.display());
            settled += 1;
        }
    }
    settled
}

/// The problems (by key) a clean merge of `versions` (base, ours, theirs) has that none of them
/// has; `None` when the merge is refused or leaves conflicts. `known` holds the inputs' problems
/// once read, for another merge of the same versions.
fn new_problems_of_clean_merge<C>(
    codec: &C,
    versions: [&[u8]; 3],
    known: &std::cell::OnceCell<std::collections::HashSet<String>>,
    options: &levelmerge_core::Options,
) -> Option<Vec<String>>
where
    C: levelmerge_core::Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    use levelmerge_core::{check_text, merge_texts, Sides};
    let [b, o, t] = versions;
    let merged = merge_texts(codec, Sides::new(b, o, t), options, &Default::default()).ok()?;
    if merged.open_conflicts > 0 {
        return None;
    }
    let problem_keys = |x: &[u8]| -> Vec<String> { check_text(codec, x).iter().map(|p| p.key()).collect() };
    let known = known.get_or_init(|| versions.iter().flat_map(|x| problem_keys(x)).collect());
    Some(problem_keys(&merged.text).into_iter().filter(|p| !known.contains(p)).collect())
}

/// Versions of one file from different points of its history, merged as base, ours and
/// theirs: merges no one made, between versions further apart than real ones (a base newer
/// than a side, a side re-saved by another editor). For every file with three or more distinct
/// versions among the scenarios (grouped by repository folder and file name), `per_file`
/// rotations of them are merged; a clean result must hold no problem its inputs lack. Panics
/// naming the versions; returns how many merges came out clean.
pub fn check_history_triples_never_break<C>(codec: &C, scenarios: &[Scenario], per_file: usize) -> usize
where
    C: levelmerge_core::Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    let mut clean = 0;
    for versions in history_versions(scenarios) {
        let n = versions.len();
        for k in 0..per_file.min(n) {
            let [b, o, t] = [k, (k + 1) % n, (k + 2) % n].map(|i| &versions[i]);
            let texts = [&b.1[..], &o.1[..], &t.1[..]];
            let Some(new) = new_problems_of_clean_merge(codec, texts, &Default::default(), &Default::default()) else { continue };
            assert!(new.is_empty(), "merge(base {}, ours {}, theirs {}) exits 0 with new problems: {new:?}", b.0, o.0, t.0);
            clean += 1;
        }
    }
    clean
}

/// One version of a file: where it was read, and its bytes.
type Version = (String, Vec<u8>);

/// The distinct versions of each file among `scenarios` (its base, ours, theirs and
/// expected), in scenario order; only files with three or more.
fn history_versions(scenarios: &[Scenario]) -> Vec<Vec<Version>> {
    let mut files: std::collections::BTreeMap<(PathBuf, String), Vec<Version>> = Default::default();
    for s in scenarios {
        let name = s.dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        // Scenario folders are named `NNN-file`: the number orders merges of one repository.
        let file = name.split_once('-').map_or(name, |(_, f)| f).to_owned();
        let group = files.entry((s.dir.parent().map(Path::to_owned).unwrap_or_default(), file)).or_default();
        for which in ["base", "ours", "theirs", "expected"] {
            let text = s.read(which);
            if !group.iter().any(|(_, seen)| *seen == text) {
                group.push((s.file(which).display().to_string(), text));
            }
        }
    }
    files.into_values().filter(|v| v.len() >= 3).collect()
}

/// Every scenario's base edited on both sides in alternate objects (`edit(text, count, parity,
/// seed)`) and merged by splicing the changed parts ([`levelmerge_core::merge_disjoint_parts`])
/// gives what reading every object gives ([`levelmerge_core::merge_objects`]). Panics naming
/// the scenario; returns how many merges were compared.
pub fn check_splices_equal_whole_merges<C>(codec: &C, scenarios: &[Scenario], edit: fn(&str, usize, usize, u64) -> String) -> usize
where
    C: levelmerge_core::Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    use levelmerge_core::{merge_disjoint_parts, merge_objects, Options, Sides};
    let mut compared = 0;
    for s in scenarios {
        let base = s.read("base");
        let Ok(text) = std::str::from_utf8(&base) else { continue };
        let (ours, theirs) = (edit(text, 20, 0, 7), edit(text, 20, 1, 8));
        let texts = Sides::new(text.as_bytes(), ours.as_bytes(), theirs.as_bytes());
        let Some(spliced) = merge_disjoint_parts(codec, texts) else { continue };
        match merge_objects(codec, texts, &Options::default(), &Default::default()) {
            Ok(whole) if whole.open_conflicts == 0 => {
                assert!(whole.text == spliced, "{}: the spliced merge differs from the whole merge", s.dir.display());
                compared += 1;
            }
            // An input the whole merge refuses (duplicate ids, say) is not one to compare.
            _ => {}
        }
    }
    compared
}

/// Whether the merge that tries the splice first ([`levelmerge_core::merge_texts`]) agrees with
/// reading every object ([`levelmerge_core::merge_objects`]) on one merge: both clean with the
/// same bytes, or both left with conflicts, or both refused. One difference is allowed: both
/// sides deleted an object and one added another under its name, which the whole merge reads as
/// one object deleted and changed (a conflict) and the splice as two; the spliced text must then
/// be what settling that conflict for one side writes. `Err` says how they disagree.
pub fn splice_agrees_with_whole_merge<C>(codec: &C, base: &str, ours: &str, theirs: &str) -> Result<(), String>
where
    C: levelmerge_core::Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    use levelmerge_core::{merge_objects, merge_texts, Options, Side, Sides};
    let texts = Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes());
    let style = Default::default();
    let shown = |t: &[u8]| String::from_utf8_lossy(t).into_owned();
    let (spliced, whole) =
        (merge_texts(codec, texts, &Options::default(), &style), merge_objects(codec, texts, &Options::default(), &style));
    let differ = |s: &[u8], w: &[u8]| Err(format!("spliced:\n{}\nwhole:\n{}", shown(s), shown(w)));
    match (spliced, whole) {
        (Ok(s), Ok(w)) => match (s.open_conflicts, w.open_conflicts) {
            (0, 0) if s.text == w.text => Ok(()),
            (0, 0) | (_, 0) => differ(&s.text, &w.text),
            (0, _) => {
                let settled = [Side::Ours, Side::Theirs].map(|side| {
                    let mut options = Options::default();
                    options.policy.prefer = Some(side);
                    merge_objects(codec, texts, &options, &style).map(|o| o.text).unwrap_or_default()
                });
                if settled.contains(&s.text) {
                    Ok(())
                } else {
                    differ(&s.text, &w.text)
                }
            }
            _ => same_outcome(&s, &w),
        },
        (Err(_), Err(_)) => Ok(()),
        (s, w) => Err(format!("one merge failed: spliced {:?}, whole {:?}", s.map(|o| o.open_conflicts), w.map(|o| o.open_conflicts))),
    }
}

/// Every real merge the merge that tries the splice first ([`levelmerge_core::merge_texts`])
/// spliced from the versions' parts (parts added, removed and changed by one side at most,
/// parts both changed merged alone, clean or with conflicts) gives what reading every object
/// gives ([`levelmerge_core::merge_objects`]): the same text, the same conflicts left open
/// ([`same_outcome`]). Panics naming the scenario; returns how many real merges were spliced,
/// and how many of those were left with conflicts.
pub fn check_real_splices_equal_whole_merges<C>(codec: &C, scenarios: &[Scenario]) -> (usize, usize)
where
    C: levelmerge_core::Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    use levelmerge_core::{merge_objects, merge_texts, Options, Sides};
    let (mut spliced, mut with_conflicts) = (0, 0);
    for s in scenarios {
        let (b, o, t) = (s.read("base"), s.read("ours"), s.read("theirs"));
        let texts = Sides::new(&b[..], &o[..], &t[..]);
        let Ok(first) = merge_texts(codec, texts, &Options::default(), &Default::default()) else { continue };
        if !first.spliced {
            continue;
        }
        let whole = merge_objects(codec, texts, &Options::default(), &Default::default())
            .unwrap_or_else(|e| panic!("{}: the whole merge failed where the splice did not: {e}", s.dir.display()));
        if let Err(e) = same_outcome(&first, &whole) {
            panic!("{}: the spliced merge differs from the whole merge: {e}", s.dir.display());
        }
        spliced += 1;
        with_conflicts += usize::from(first.open_conflicts > 0);
    }
    (spliced, with_conflicts)
}

/// Every real merge with its sides swapped leaves as many conflicts open (the law "swapping
/// sides swaps conflicts"), or fails alike. Panics naming the scenario; returns how many
/// merges were compared.
pub fn check_swapped_sides_leave_as_many_conflicts<C>(codec: &C, scenarios: &[Scenario]) -> usize
where
    C: levelmerge_core::Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    for s in scenarios {
        let (b, o, t) = (s.read("base"), s.read("ours"), s.read("theirs"));
        if let Err(difference) = swapped_sides_leave_as_many_conflicts(codec, &b, &o, &t) {
            panic!("{}: {difference}", s.dir.display());
        }
    }
    scenarios.len()
}

/// Whether a merge with its sides swapped leaves as many conflicts open, or fails alike;
/// `Err` says how many each left.
pub fn swapped_sides_leave_as_many_conflicts<C>(codec: &C, base: &[u8], ours: &[u8], theirs: &[u8]) -> Result<(), String>
where
    C: levelmerge_core::Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    use levelmerge_core::{merge_texts, Options, Sides};
    let merge = |ours: &[u8], theirs: &[u8]| merge_texts(codec, Sides::new(base, ours, theirs), &Options::default(), &Default::default());
    let open = |r: Result<levelmerge_core::MergeOutcome, _>| r.ok().map(|m| m.open_conflicts);
    match (open(merge(ours, theirs)), open(merge(theirs, ours))) {
        (given, swapped) if given == swapped => Ok(()),
        (given, swapped) => Err(format!("conflicts left open, sides as given and swapped (None: refused): {given:?}, {swapped:?}")),
    }
}

/// How a merge merged again with one of its sides must come out ([`check_merges_hold_what_they_merged`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Again {
    /// The merge itself, byte for byte.
    Same,
    /// Clean, with as many lines and no problem the merge has not: the codec may number handles
    /// anew (Godot's integer resource ids, which a merge with the sides swapped numbers otherwise).
    Renumbered,
}

/// Every clean real merge `m = merge(b, o, t)` merged again with one of its sides from the same
/// base, as a cherry-pick or a criss-cross history does: `merge(b, m, t)` is `m` byte for
/// byte, and `merge(b, o, m)` comes out as `theirs_again` says; nothing is added twice, nothing
/// conflicts. Panics naming the scenario; returns how many merges were merged again.
pub fn check_merges_hold_what_they_merged<C>(codec: &C, scenarios: &[Scenario], theirs_again: Again) -> usize
where
    C: levelmerge_core::Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    use levelmerge_core::{merge_texts, Options, Sides};
    let merge = |b: &[u8], o: &[u8], t: &[u8]| merge_texts(codec, Sides::new(b, o, t), &Options::default(), &Default::default()).ok();
    let mut again = 0;
    for s in scenarios {
        let name = s.dir.display();
        let (b, o, t) = (s.read("base"), s.read("ours"), s.read("theirs"));
        let Some(m) = merge(&b, &o, &t).filter(|m| m.open_conflicts == 0) else { continue };
        let with_ours = merge(&b, &m.text, &t).unwrap_or_else(|| panic!("{name}: merge(b, m, t) refused"));
        assert!(with_ours.open_conflicts == 0 && with_ours.text == m.text, "{name}: merge(b, m, t) is not m");
        let with_theirs = merge(&b, &o, &m.text).unwrap_or_else(|| panic!("{name}: merge(b, o, m) refused"));
        assert_eq!(with_theirs.open_conflicts, 0, "{name}: merge(b, o, m) conflicts: {:?}", with_theirs.conflicts);
        match theirs_again {
            Again::Same => assert!(with_theirs.text == m.text, "{name}: merge(b, o, m) is not m"),
            Again::Renumbered => {
                let lines = |t: &[u8]| t.iter().filter(|&&c| c == b'\n').count();
                assert_eq!(lines(&with_theirs.text), lines(&m.text), "{name}: merge(b, o, m) has another length than m");
                let keys =
                    |t: &[u8]| levelmerge_core::check_text(codec, t).iter().map(|p| p.key()).collect::<std::collections::BTreeSet<_>>();
                let new: Vec<String> = keys(&with_theirs.text).difference(&keys(&m.text)).cloned().collect();
                assert!(new.is_empty(), "{name}: merge(b, o, m) has problems m has not: {new:?}");
            }
        }
        again += 1;
    }
    again
}

/// A way files may be written that carries no content: Windows line ends (`\r\n`, as git's
/// `core.autocrlf` checks files out), or a UTF-8 byte order mark.
#[derive(Debug, Clone, Copy)]
pub enum Writing {
    WindowsLineEnds,
    ByteOrderMark,
}

impl Writing {
    fn apply(self, text: &[u8]) -> Vec<u8> {
        match self {
            Writing::WindowsLineEnds => levelmerge_core::text::with_line_ends(text, levelmerge_core::text::LineEnds::Crlf),
            Writing::ByteOrderMark => [levelmerge_core::text::BOM, text].concat(),
        }
    }

    /// Whether a text is already written so (such versions are left out).
    fn found_in(self, text: &[u8]) -> bool {
        match self {
            Writing::WindowsLineEnds => text.contains(&b'\r'),
            Writing::ByteOrderMark => text.starts_with(levelmerge_core::text::BOM),
        }
    }
}

/// Every real merge of versions written as `writing` says gives the merge of the files as
/// stored, written so: the same text, conflict markers included, and the same conflicts left
/// open; or it fails alike. Panics naming the scenario; returns how many merges were compared.
pub fn check_writing_does_not_change_merges<C>(codec: &C, scenarios: &[Scenario], writing: Writing) -> usize
where
    C: levelmerge_core::Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    use levelmerge_core::{merge_texts, Options, Sides};
    let mut compared = 0;
    for s in scenarios {
        let stored = [s.read("base"), s.read("ours"), s.read("theirs")];
        if stored.iter().any(|t| writing.found_in(t)) {
            continue;
        }
        let written = stored.clone().map(|t| writing.apply(&t));
        let merge =
            |[b, o, t]: &[Vec<u8>; 3]| merge_texts(codec, Sides::new(&b[..], &o[..], &t[..]), &Options::default(), &Default::default());
        match (merge(&stored), merge(&written)) {
            (Ok(plain), Ok(other)) => {
                assert!(
                    other.text == writing.apply(&plain.text) && other.open_conflicts == plain.open_conflicts,
                    "{}: written with {writing:?} the merge differs from the merge of the files as stored",
                    s.dir.display()
                );
            }
            (Err(_), Err(_)) => {}
            (plain, other) => panic!(
                "{}: as stored the merge {}, written with {writing:?} it {}",
                s.dir.display(),
                if plain.is_ok() { "succeeds" } else { "fails" },
                if other.is_ok() { "succeeds" } else { "fails" }
            ),
        }
        compared += 1;
    }
    compared
}

/// Whether two outcomes of one merge agree: the same text, conflicts left open and marked
/// alike, and the same conflicts (in any order; how an object is named in the hierarchy aside:
/// a part merged alone names it from its own part).
pub fn same_outcome(spliced: &levelmerge_core::MergeOutcome, whole: &levelmerge_core::MergeOutcome) -> Result<(), String> {
    let shown = |t: &[u8]| String::from_utf8_lossy(t).into_owned();
    if spliced.text != whole.text {
        return Err(format!("texts differ:\nspliced:\n{}\nwhole:\n{}", shown(&spliced.text), shown(&whole.text)));
    }
    let counts = |o: &levelmerge_core::MergeOutcome| (o.open_conflicts, o.marked_regions);
    if counts(spliced) != counts(whole) {
        return Err(format!("open conflicts and marked regions {:?} against {:?}", counts(spliced), counts(whole)));
    }
    let conflicts = |o: &levelmerge_core::MergeOutcome| {
        let mut all: Vec<_> = o.conflicts.iter().map(|c| levelmerge_core::ConflictReport { object_path: None, ..c.clone() }).collect();
        all.sort_by(|a, b| (&a.object, &a.path).cmp(&(&b.object, &b.path)));
        all
    };
    if conflicts(spliced) != conflicts(whole) {
        return Err(format!("conflicts {:?} against {:?}", conflicts(spliced), conflicts(whole)));
    }
    Ok(())
}
