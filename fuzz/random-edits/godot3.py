"""Random Godot 3 scenes (`format=2`) and editor-like edits for merge testing: `godot4`'s
scenes and edits, written as Godot 3 writes them. Godot 3 numbers its resources 1, 2, 3… in
the order it writes them, again on every save, so an edit that adds or drops a resource
renumbers the others and every use of them. `scenario(seed)` gives base, ours, theirs and
the edits made."""
import random
import re

import godot4
import harness

# Godot 4 class names and their Godot 3 names
TYPES = {"Sprite2D": "Sprite", "Texture2D": "Texture"}


def as_godot3(text):
    """A Godot 4 scene text written as Godot 3 writes it."""
    numbers = {}
    for kind in ("ext_resource", "sub_resource"):
        ids = re.findall(r'^\[' + kind + r' [^\n]*id="([^"]+)"\]', text, re.M)
        numbers.update({(kind, i): n for n, i in enumerate(ids, 1)})
    def header(m):
        kind, attrs = m.group(1), dict(re.findall(r'(\w+)="([^"]*)"', m.group(2)))
        number = numbers[(kind, attrs["id"])]
        typ = TYPES.get(attrs["type"], attrs["type"])
        if kind == "ext_resource":
            return f'[ext_resource path="{attrs["path"]}" type="{typ}" id={number}]'
        return f'[sub_resource type="{typ}" id={number}]'
    text = re.sub(r'^\[(ext_resource|sub_resource) ([^\n]*)\]$', header, text, flags=re.M)
    text = re.sub(r'ExtResource\("([^"]+)"\)', lambda m: f"ExtResource( {numbers[('ext_resource', m.group(1))]} )", text)
    text = re.sub(r'SubResource\("([^"]+)"\)', lambda m: f"SubResource( {numbers[('sub_resource', m.group(1))]} )", text)
    text = re.sub(r'Vector2\(([^)]*)\)', r'Vector2( \1 )', text)
    text = re.sub(r'type="(\w+)"', lambda m: f'type="{TYPES.get(m.group(1), m.group(1))}"', text)
    return re.sub(r'^\[gd_scene load_steps=(\d+) format=3 uid="[^"]*"\]', r'[gd_scene load_steps=\1 format=2]', text, flags=re.M)


class Scene(godot4.Scene):
    def dumps(s):
        return as_godot3(super().dumps())


def build(rng, size):
    s = godot4.build(rng, size)
    s.__class__ = Scene
    return s


def scenario(seed):
    rng = random.Random(seed)
    return harness.two_sides(seed, rng, build(rng, rng.randint(3, 30)), godot4.op)


def names(text):
    """`godot4.names` with resource numbers left out: which side's numbers a resource both
    sides added under one number keeps depends on which side is ours."""
    return godot4.names(re.sub(r"(Ext|Sub)Resource\( \d+ \)", r"\1Resource( _ )", text))
