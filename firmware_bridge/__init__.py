"""The Pi side of the serial link to the hub box (a Pico), and the box's firmware."""
