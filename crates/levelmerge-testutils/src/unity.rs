//! Unity scenes made from real ones, for benchmarks and tests: a bigger scene built by
//! replicating one with fresh fileIDs, and deterministic edits of numeric fields.

use crate::gen::Rng;

/// Where each document starts (a `--- ` line), and the end of the text.
fn document_bounds(scene: &str) -> Vec<usize> {
    let mut starts: Vec<usize> = scene.match_indices("\n--- ").map(|(i, _)| i + 1).collect();
    if scene.starts_with("--- ") {
        starts.insert(0, 0);
    }
    starts.push(scene.len());
    starts
}

/// `scene`'s fileIDs (in `--- !u!C &ID` headers and local references `{fileID: ID}`) moved by
/// `shift`; references into other assets (with a guid) and `{fileID: 0}` are kept.
fn shift_ids(scene: &str, shift: i64) -> String {
    let moved = |id: &str| id.parse::<i64>().ok().filter(|&n| n != 0).map(|n| n.wrapping_add(shift).to_string());
    let mut out = String::with_capacity(scene.len() + scene.len() / 16);
    for line in scene.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix("--- !u!") {
            if let Some((class, tail)) = rest.split_once(" &") {
                let digits = tail.find(|c: char| !(c.is_ascii_digit() || c == '-')).unwrap_or(tail.len());
                if let Some(new) = moved(&tail[..digits]) {
                    out.push_str(&format!("--- !u!{class} &{new}{}", &tail[digits..]));
                    continue;
                }
            }
        }
        let mut rest = line;
        while let Some(at) = rest.find("{fileID: ") {
            let (before, after) = rest.split_at(at + "{fileID: ".len());
            out.push_str(before);
            let digits = after.find(|c: char| !(c.is_ascii_digit() || c == '-')).unwrap_or(after.len());
            match (after[digits..].starts_with('}'), moved(&after[..digits])) {
                (true, Some(new)) => out.push_str(&new),
                _ => out.push_str(&after[..digits]),
            }
            rest = &after[digits..];
        }
        out.push_str(rest);
    }
    out
}

/// `copies` copies of `scene`'s documents after its header, copy `k` with every fileID moved
/// by `k × 10¹²` (so the copies never share an id and their references stay inside them).
pub fn replicate(scene: &str, copies: usize) -> String {
    let bounds = document_bounds(scene);
    let (header, body) = scene.split_at(bounds[0]);
    let mut out = String::with_capacity(scene.len() * copies);
    out.push_str(header);
    for k in 0..copies {
        let copy = if k == 0 { body.to_owned() } else { shift_ids(body, k as i64 * 1_000_000_000_000) };
        out.push_str(&copy);
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// `scene` with `count` top-level numeric fields (`  m_Name: 12`) given new values, all in
/// documents whose index is `parity` modulo 2: two calls with parities 0 and 1 edit disjoint
/// documents, so their merge is clean. Deterministic for a seed.
pub fn edit_numbers(scene: &str, count: usize, parity: usize, seed: u64) -> String {
    let bounds = document_bounds(scene);
    // Candidate lines: (start, end) of the number after `: `.
    let mut candidates = Vec::new();
    for (d, w) in bounds.windows(2).enumerate().filter(|(d, _)| d % 2 == parity) {
        let doc = &scene[w[0]..w[1]];
        let mut at = w[0];
        for line in doc.split_inclusive('\n') {
            let text = line.trim_end();
            if let Some((key, value)) = text.split_once(": ") {
                let top_level = key.starts_with("  m_") && !key[2..].contains(' ');
                if top_level && !value.is_empty() && value.parse::<f64>().is_ok() {
                    let start = at + key.len() + 2;
                    candidates.push((start, start + value.len(), d));
                }
            }
            at += line.len();
        }
    }
    let mut rng = Rng::new(seed);
    let mut chosen: Vec<(usize, usize)> = Vec::with_capacity(count);
    for _ in 0..count.min(candidates.len()) {
        let i = (rng.next_u64() % candidates.len() as u64) as usize;
        let (start, end, _) = candidates.swap_remove(i);
        chosen.push((start, end));
    }
    chosen.sort_unstable();
    let mut out = String::with_capacity(scene.len());
    let mut at = 0;
    for (start, end) in chosen {
        out.push_str(&scene[at..start]);
        out.push_str(&format!("{}", 10_000 + rng.next_u64() % 90_000));
        at = end;
    }
    out.push_str(&scene[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCENE: &str = "%YAML 1.1\n--- !u!1 &10\nGameObject:\n  m_Component:\n  - component: {fileID: 11}\n  m_Layer: 0\n--- !u!4 &11\nTransform:\n  m_GameObject: {fileID: 10}\n  m_Prefab: {fileID: 11, guid: abc, type: 3}\n  m_RootOrder: 3\n  m_Father: {fileID: 0}\n";

    #[test]
    fn copies_get_fresh_ids_and_keep_their_references_inside() {
        let big = replicate(SCENE, 2);
        assert!(big.starts_with(SCENE));
        let copy = &big[SCENE.len()..];
        assert!(copy.contains("--- !u!1 &1000000000010\n") && copy.contains("--- !u!4 &1000000000011\n"), "{copy}");
        assert!(copy.contains("component: {fileID: 1000000000011}") && copy.contains("m_GameObject: {fileID: 1000000000010}"));
        // References into other assets and null references are untouched.
        assert!(copy.contains("{fileID: 11, guid: abc, type: 3}") && copy.contains("m_Father: {fileID: 0}"));
    }

    #[test]
    fn edits_touch_only_the_documents_of_their_parity() {
        let ours = edit_numbers(SCENE, 5, 0, 1);
        let theirs = edit_numbers(SCENE, 5, 1, 2);
        assert_ne!(ours, SCENE);
        assert_ne!(theirs, SCENE);
        // Document 0 (the GameObject) is ours', document 1 (the transform) theirs'.
        let split = |s: &str| s.split_once("--- !u!4").map(|(a, b)| (a.to_owned(), b.to_owned())).unwrap();
        assert_eq!(split(&ours).1, split(SCENE).1);
        assert_eq!(split(&theirs).0, split(SCENE).0);
        assert_eq!(edit_numbers(SCENE, 5, 0, 1), ours, "deterministic");
    }
}
