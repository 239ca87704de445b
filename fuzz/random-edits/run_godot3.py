"""Merge random Godot 3 scenes edited on both sides, both ways, and report broken results,
unresolvable conflict views, asymmetries and lost additions. Usage: run_godot3.py FIRST_SEED COUNT"""
import sys

import godot3
import godot4
import harness

first, count = int(sys.argv[1]), int(sys.argv[2])
harness.run(range(first, first + count), godot3.scenario, ".tscn", godot4.problems, godot3.names, godot4.added, godot4.facts, godot4.rewritten_to_nowhere)
