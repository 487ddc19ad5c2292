"""The Mexican Train hub: the composition root (``app``) and its rooms, one per kind."""


def version() -> str:
    """The installed hub's version (``unknown`` when run from a bare source tree): the
    start-up line, Home Assistant's ``sw_version``."""
    from importlib import metadata

    try:
        return metadata.version("mtrain-hub")
    except metadata.PackageNotFoundError:
        return "unknown"
