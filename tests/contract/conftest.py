"""``outside_plugin/`` is a distribution of its own: its tests run where it is installed
(``test_outside_plugin.py``), not in this session, which does not have it."""

collect_ignore = ["outside_plugin"]
