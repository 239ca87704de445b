use std::time::Instant;
use levelmerge_core::{Codec, Side, Sides, Options};
use levelmerge_json::JsonCodec;
use levelmerge_testutils::gen::{large_level, spread_edits, Style};
#[global_allocator]
static A: mimalloc::MiMalloc = mimalloc::MiMalloc;
fn main() {
    let base = large_level(10_000_000, 7);
    let mut ours = base.clone();
    for e in spread_edits(&base, 300, 1_000_000, 11) { ours.apply(&e); }
    let mut theirs = base.clone();
    for e in spread_edits(&base, 300, 2_000_000, 13) { theirs.apply(&e); }
    let t = [base.to_json(Style::TWO), ours.to_json(Style::TWO), theirs.to_json(Style::TWO)];
    let c = JsonCodec::default();
    let n = Instant::now();
    let d: Vec<_> = t.iter().map(|x| c.parse(x.as_bytes()).unwrap()).collect();
    eprintln!("parse {:?}", n.elapsed()); let n = Instant::now();
    let l: Vec<_> = d.iter().map(|x| c.lower(x, Side::Base).unwrap()).collect();
    eprintln!("lower {:?}", n.elapsed()); let n = Instant::now();
    let m = levelmerge_core::merge(Sides::new(&l[0], &l[1], &l[2]), &Options::default());
    eprintln!("merge {:?}", n.elapsed()); let n = Instant::now();
    let r = m.resolve(Side::Ours);
    eprintln!("resolve {:?}", n.elapsed()); let n = Instant::now();
    let g = r.graph(false);
    let p = levelmerge_core::coherence::check(&g);
    eprintln!("check {:?} {}", n.elapsed(), p.len()); let n = Instant::now();
    let out = c.render(Sides::new(&d[0], &d[1], &d[2]), &r);
    eprintln!("render {:?} {}", n.elapsed(), out.len()); let n = Instant::now();
    let r2 = m.resolve(Side::Theirs);
    let out2 = c.render(Sides::new(&d[0], &d[1], &d[2]), &r2);
    eprintln!("theirs {:?} {}", n.elapsed(), out2.len()); let n = Instant::now();
    let mk = levelmerge_core::text::mark_differences(&out, &out2, &Default::default());
    eprintln!("mark {:?} {}", n.elapsed(), mk.conflicts); let n = Instant::now();
    let mut pp = 0; for x in &l { pp += x.problems().len(); }
    eprintln!("problems {:?} {}", n.elapsed(), pp);
}
#[allow(dead_code)]
fn unused() {}
