"""The voice: what the hub says after a table change, rendered offline with espeak-ng.

``phrases`` is the pure part (effects + table + setting -> catalog keys and their
parameters); ``engine`` runs espeak-ng; ``speaker`` renders ahead of time, caches the
PCM and hands it to the sound player. See ``docs/sound.md``, "The voice".
"""
