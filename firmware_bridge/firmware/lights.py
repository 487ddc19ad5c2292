"""The ring's animations, computed on the microcontroller from each pixel's colour and
effect as the last LED frame set them (so a breathing slot stays smooth over USB)."""

STEADY = 0
BREATHE = 1
BLINK = 2
CHASE = 3

BREATHE_MS = 2000
BLINK_MS = 800
CHASE_STEP_MS = 60
CHASE_TAIL = 4


def scale(rgb: "tuple[int, int, int]", level: int) -> "tuple[int, int, int]":
    """``rgb`` at ``level``/255."""
    return ((rgb[0] * level) // 255, (rgb[1] * level) // 255, (rgb[2] * level) // 255)


def level(effect: int, index: int, count: int, ms: int) -> int:
    """How bright (0-255) a pixel with ``effect`` is at ``ms``."""
    if effect == BREATHE:
        p = ms % BREATHE_MS
        half = BREATHE_MS // 2
        tri = p if p < half else BREATHE_MS - p
        return 40 + (tri * 215) // half
    if effect == BLINK:
        return 255 if ms % BLINK_MS < BLINK_MS // 2 else 0
    if effect == CHASE:
        head = (ms // CHASE_STEP_MS) % count
        behind = (head - index) % count
        return 255 - behind * (255 // CHASE_TAIL) if behind < CHASE_TAIL else 0
    return 255


def frame(pixels: "list[tuple[int, ...]]", ms: int) -> "list[tuple[int, int, int]]":
    """Every pixel's colour now, from ``pixels`` (each ``(r, g, b, effect)``)."""
    count = len(pixels)
    out = []
    for i in range(count):
        r, g, b, effect = pixels[i]
        out.append(scale((r, g, b), level(effect, i, count, ms)))
    return out


def animated(pixels: "list[tuple[int, ...]]") -> bool:
    """True when some pixel changes over time."""
    for p in pixels:
        if p[3] != STEADY and (p[0] or p[1] or p[2]):
            return True
    return False
