"""The Sphinx-free core: the table, the landing rule, source spans and edits.

Nothing here imports Sphinx or docutils (tests/test_layout.py checks), so the build and
the command line share one implementation of every rule.
"""
