"""The tournament board: every hub on one broker, its model, and its own small web app."""
