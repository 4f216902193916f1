"""Shared pytest setup: Hypothesis profiles (see properties/profiles.py)."""
from properties import profiles

profiles.load()
