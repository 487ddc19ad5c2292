"""What the hub and web/ both send out, in one form: words, events and JSON.

``i18n.py`` reads the catalogs the page fetches too (``web/static/i18n/*.json``, where
they stay); ``sse.py`` writes the Server-Sent Events bytes and their compact JSON for
the phones' streams, the tournament board and MQTT; ``hosts.py`` is the ``Host`` rule
the hub's app and the board's both keep. Stdlib only, importing no other
room: below everything that speaks to people or programs.
"""
