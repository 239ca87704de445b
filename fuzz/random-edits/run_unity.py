"""Merge random Unity scenes edited on both sides, both ways, and report broken results,
unresolvable conflict views, asymmetries and lost additions. Usage: run_unity.py FIRST_SEED COUNT"""
import sys

import harness
import unity

first, count = int(sys.argv[1]), int(sys.argv[2])
harness.run(range(first, first + count), unity.scenario, ".unity", unity.problems, unity.names, unity.added, unity.facts)
