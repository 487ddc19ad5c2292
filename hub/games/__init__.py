"""Games the hub keeps: a game's changes, the table following the store, and trust."""
