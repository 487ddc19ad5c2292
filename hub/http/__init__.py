"""The hub on the network: the waitress server, the live streams and the web adapter."""
