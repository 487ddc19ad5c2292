"""Bring-up: the walk-through of every part, on the terminal and the page, and the checks."""
