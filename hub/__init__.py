"""The Mexican Train hub: the composition root (``app``) and its rooms, one per kind."""
