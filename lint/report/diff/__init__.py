"""Reporters of ``tlint diff``: concise, full (rich), json and a self-contained html page."""
