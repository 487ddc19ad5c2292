"""The game store's SQL schema, as migrations (text only; :mod:`scorer.store` runs them).

``MIGRATIONS[k]`` holds the statements that take a database from schema version ``k``
(``PRAGMA user_version``) to ``k + 1``. Append a new step for every schema change;
never edit a step that has shipped.

Tables: ``games`` (one row per game; ``rounds`` is the planned series length,
``options`` JSON, ``winner`` a name or null), ``players`` (seat order in
``position``, hub ``slot``), ``rounds`` (one row per started round), ``scores``
(one row per player per scored round) and ``score_edits`` (every score change,
never updated or deleted); from version 2 ``tokens`` (the SHA-256 of every
scorekeeper token of a game: never the token itself), ``games.abandoned_at`` (another
game replaced it on the table) and ``games.version`` (bumped by every write).
From version 3 the players across evenings (docs/storage.md, "Players"): ``people``
(one row per remembered player: the name as last spelled, its :func:`scorer.names.skeleton`
unique, when last seen), ``players.person`` (the seat's remembered player, null when the
hub was not remembering or the player was forgotten), ``players.place`` and
``players.won`` (a finished game's standings, tie-breaks applied, written when it
finishes) and ``plays`` (the doubles played and last tiles called, from the table).
Its migration brings every stored game in: one person per skeleton, named as in its
first game (as a new game remembers them: a renaming is asked for, never guessed); the
places of finished games are filled in by the store, in Python, in the same
transaction (:func:`scorer.people.placing`).
From version 4 ``scores_by_player``: a player's points in a game read by their key (a
player's rounds, for the statistics, read 13 rows a game, not every seat's 104).
Statements may call ``token_hash(text)`` and ``name_skeleton(text)``, which the store
registers.
"""

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE games (
            id INTEGER PRIMARY KEY AUTOINCREMENT, created_at TEXT NOT NULL,
            rules TEXT NOT NULL, set_max INTEGER NOT NULL, rounds INTEGER NOT NULL,
            options TEXT NOT NULL DEFAULT '{}', token TEXT NOT NULL,
            mexican_slot INTEGER, first_slot INTEGER, finished_at TEXT, winner TEXT)""",
        """CREATE TABLE players (
            game_id INTEGER NOT NULL REFERENCES games(id), name TEXT NOT NULL,
            slot INTEGER, position INTEGER NOT NULL,
            PRIMARY KEY (game_id, name), UNIQUE (game_id, position), UNIQUE (game_id, slot))""",
        """CREATE TABLE rounds (
            game_id INTEGER NOT NULL REFERENCES games(id), round INTEGER NOT NULL,
            engine INTEGER NOT NULL, went_out TEXT,
            blocked INTEGER NOT NULL DEFAULT 0 CHECK (blocked IN (0, 1)),
            finished INTEGER NOT NULL DEFAULT 0 CHECK (finished IN (0, 1)),
            PRIMARY KEY (game_id, round),
            FOREIGN KEY (game_id, went_out) REFERENCES players(game_id, name))""",
        """CREATE TABLE scores (
            game_id INTEGER NOT NULL, round INTEGER NOT NULL, player TEXT NOT NULL,
            points INTEGER NOT NULL CHECK (points >= 0),
            PRIMARY KEY (game_id, round, player),
            FOREIGN KEY (game_id, round) REFERENCES rounds(game_id, round),
            FOREIGN KEY (game_id, player) REFERENCES players(game_id, name))""",
        """CREATE TABLE score_edits (
            id INTEGER PRIMARY KEY AUTOINCREMENT, game_id INTEGER NOT NULL,
            round INTEGER NOT NULL, player TEXT NOT NULL, old_points INTEGER,
            new_points INTEGER NOT NULL, edited_by TEXT NOT NULL, edited_at TEXT NOT NULL,
            FOREIGN KEY (game_id, round) REFERENCES rounds(game_id, round),
            FOREIGN KEY (game_id, player) REFERENCES players(game_id, name))""",
        "CREATE INDEX score_edits_by_round ON score_edits (game_id, round, id)",
    ),
    (
        """CREATE TABLE tokens (
            game_id INTEGER NOT NULL REFERENCES games(id), hash TEXT NOT NULL,
            created_at TEXT NOT NULL, PRIMARY KEY (game_id, hash))""",
        "INSERT INTO tokens (game_id, hash, created_at) SELECT id, token_hash(token),"
        " created_at FROM games",
        "UPDATE games SET token = token_hash(token)",
        "ALTER TABLE games ADD COLUMN abandoned_at TEXT",
        "ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 0",
    ),
    (
        """CREATE TABLE people (
            id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL,
            skeleton TEXT NOT NULL UNIQUE, seen_at TEXT NOT NULL)""",
        "ALTER TABLE players ADD COLUMN person INTEGER REFERENCES people(id)",
        "ALTER TABLE players ADD COLUMN place INTEGER",
        "ALTER TABLE players ADD COLUMN won INTEGER NOT NULL DEFAULT 0",
        """CREATE TABLE plays (
            id INTEGER PRIMARY KEY AUTOINCREMENT, game_id INTEGER NOT NULL,
            round INTEGER NOT NULL, player TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('double', 'last_tile')),
            FOREIGN KEY (game_id, player) REFERENCES players(game_id, name))""",
        "CREATE INDEX players_by_person ON players (person, game_id)",
        "CREATE INDEX plays_by_player ON plays (game_id, player, kind)",
        "CREATE INDEX rounds_went_out ON rounds (game_id, went_out)",
        "CREATE INDEX games_by_finish ON games (finished_at)",
        "INSERT OR IGNORE INTO people (name, skeleton, seen_at) SELECT p.name,"
        " name_skeleton(p.name), g.created_at FROM players p JOIN games g ON g.id = p.game_id"
        " ORDER BY g.id, p.position",
        "UPDATE players SET person = (SELECT id FROM people"
        " WHERE skeleton = name_skeleton(players.name))",
        "UPDATE people SET seen_at = (SELECT max(g.created_at) FROM players p"
        " JOIN games g ON g.id = p.game_id WHERE p.person = people.id)",
    ),
    (  # a player's points in a game by their key, not every seat's (the statistics)
        "CREATE INDEX IF NOT EXISTS scores_by_player ON scores (game_id, player, points)",
    ),
)
