"""The hub box's MicroPython firmware (a Raspberry Pi Pico). The files run flat on the
board (``main.py`` starts them) and as this package under CPython: the hub's side of
the link shares :mod:`proto`, and the fake microcontroller runs :mod:`mcu`."""
