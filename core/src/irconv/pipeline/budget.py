"""Moved to ``irconv.graph.budget``; this name stays for plugins written before 0.2."""

from irconv.graph.budget import *  # noqa: F403
