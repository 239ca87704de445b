"""What the random-edit runs share: two sides edited from one base, and a run that merges each
scenario as given and swapped and reports what went wrong."""
import collections
import copy
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.environ.get("LEVELMERGE_SHARED_TOOLS", os.path.join(ROOT, "..", "shared", "tools")))
LM = os.environ.get("LM", os.path.join(ROOT, "target", "release", "levelmerge"))


def two_sides(seed, rng, base, op):
    """base's text and each side's after one to three `op`s (as many as `rng`, the generator
    base was built with, draws; `EDITS` in the environment raises the most), with the edits
    made; each side draws its edits from its own."""
    out, logs = [base.dumps()], []
    for tag in ("O", "T"):
        side = copy.deepcopy(base)
        side.rng = random.Random(seed * 7 + (1 if tag == "O" else 2))
        log = []
        for _ in range(rng.randint(1, int(os.environ.get("EDITS", "3")))):
            op(side, side.rng, tag, log)
        out.append(side.dumps())
        logs.append(log)
    return out, logs


def merge(d, ext, b, o, t):
    """Exit code, merged text, stderr, and each side's view of a structured conflict, taken with
    `resolve --take` (its exit code and text)."""
    paths = [os.path.join(d, n + ext) for n in ("base", "ours", "theirs")]
    for p, x in zip(paths, (b, o, t)):
        open(p, "w").write(x)
    out = os.path.join(d, "out" + ext)
    if os.path.exists(out):
        os.remove(out)
    r = subprocess.run([LM, "merge", *paths, "-o", out], capture_output=True, text=True, timeout=60)
    text = open(out).read() if os.path.exists(out) else None
    views = {}
    if r.returncode == 1 and text is not None and "merged as lines" not in r.stderr:
        for s in ("ours", "theirs"):
            v = os.path.join(d, f"view-{s}{ext}")
            shutil.copy(out, v)
            rr = subprocess.run([LM, "resolve", v, "--take", s], capture_output=True, text=True)
            views[s] = (rr.returncode, open(v).read())
    return r.returncode, text, r.stderr, views


def lost_edits(facts, b, o, t, merged, notes):
    """The facts (`facts(text)`: a dict from a key naming an object's property to its value)
    that one side changed and the other left as base had them, which a clean `merged` holds
    otherwise: an edit lost. Facts a version lacks (an object deleted or added) are left out,
    and so are those of an object whose move the merge undid to break a parent cycle (the
    `notes` say so, naming it as `(id)`, or a Cocos node as `[#id]`)."""
    fb, fo, ft, fm = facts(b), facts(o), facts(t), facts(merged)
    broken = [line for line in notes.splitlines() if "parent cycle broken" in line]
    lost = []
    for k in fb.keys() & fo.keys() & ft.keys() & fm.keys():
        if any(f"({part})" in line or f"[#{part}]" in line for part in k for line in broken):
            continue
        for mine, other, side in ((fo, ft, "ours"), (ft, fo, "theirs")):
            if other[k] == fb[k] and mine[k] != fb[k] and fm[k] != mine[k]:
                lost.append(f"{side}' {k}: {fb[k]!r} -> {mine[k]!r}, merged {fm[k]!r}")
    return sorted(lost)


def run(seeds, scenario, ext, problems, shape, added, facts=None, clean_problems=None):
    """Merge every scenario both ways. `problems(text, inputs)`: what is wrong with a result
    that no input had; `shape(text)`: what two results must share whichever side is ours;
    `added(text)`: the names of added nodes it holds; `facts(text)`: its objects' properties,
    by which a clean result is checked to hold every edit one side alone made
    ([`lost_edits`]); `clean_problems(text, inputs)`: what else is wrong with a clean result
    (not asked of a conflict's views, which may keep what the other side's edits took away)."""
    stats = collections.Counter()
    d = tempfile.mkdtemp()
    for seed in seeds:
        (b, o, t), logs = scenario(seed)
        results = []
        for swap in (False, True):
            code, text, err, views = merge(d, ext, b, *((t, o) if swap else (o, t)))
            results.append((code, text))
            tag = f"seed {seed}{' swapped' if swap else ''}"
            if code == 0:
                p = problems(text, (b, o, t)) + (clean_problems(text, (b, o, t)) if clean_problems else [])
                if p:
                    print(tag, "BROKEN", p[:3], logs)
                    stats["BROKEN"] += 1
                lost = sorted((added(o) | added(t)) - added(b) - added(text))
                if lost:
                    print(tag, "LOST", lost, logs)
                    stats["lost"] += 1
                edits = facts and lost_edits(facts, b, *((t, o) if swap else (o, t)), text, err)
                if edits:
                    print(tag, "EDIT LOST", edits[:3], logs)
                    stats["edit lost"] += 1
            elif code == 1:
                if "merged as lines" in err:
                    stats["lines"] += 1
                    print(tag, "LINES", err.strip().splitlines()[0][-220:], logs)
                for s, (rc, v) in views.items():
                    p = problems(v, (b, o, t)) if rc == 0 else [f"resolve exit {rc}"]
                    if p:
                        print(tag, "VIEW", s, p[:3], logs)
                        stats["badview"] += 1
            else:
                print(tag, "ERROR", code, err[:300])
                stats["error"] += 1
            stats[f"exit{code}"] += 1
        (c1, t1), (c2, t2) = results
        if c1 != c2:
            print(f"seed {seed} ASYM exit {c1} vs {c2}", logs)
            stats["asym"] += 1
        elif c1 == 0 and shape(t1) != shape(t2):
            print(f"seed {seed} ASYM content", logs)
            stats["asym"] += 1
    print(dict(stats))


def json_structure(check):
    """A `structure_problems` for a JSON format: `check(data)` (a set) on the parsed text, or
    the parse error."""
    def problems(text):
        try:
            data = json.loads(text)
        except ValueError as e:
            return {f"invalid JSON: {e}"}
        return check(data)
    return problems


def new_problems(structure_problems):
    """A `problems` for `run`: what `structure_problems(text)` (a set) finds in a result that
    no input had."""
    return lambda text, inputs: sorted(structure_problems(text) - set().union(*[structure_problems(i) for i in inputs]))


def added_names(names):
    """An `added` for `run`: the names `names(text)` counts that start with `Added` (the
    generators' new nodes and objects)."""
    return lambda text: {n for n in names(text) if n.startswith("Added")}
