"""The hub on the network: the web server (on Tornado), the live streams and the web adapter."""
