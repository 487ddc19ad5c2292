"""Adapters: GPIO pins (the one gpiozero module), the sound player, the LED driver."""
