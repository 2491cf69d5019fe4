"""Drivers: the buttons, the font (with its viper loops, glyphs.py, and its tables), the rings. They know their hardware or its picture and nothing of a match."""
