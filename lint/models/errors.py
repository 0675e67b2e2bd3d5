"""The errors that end a command with exit code 2 and a message, raised at every stage."""

from __future__ import annotations


class ConfigError(Exception):
    """A configuration that cannot be used; the message names the file and the key."""


class InputError(Exception):
    """A path that cannot be read at all (missing, without permission, a FIFO or a device, ...)."""
