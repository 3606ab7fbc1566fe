"""Embedding the bots in other frontends: the line-based JSON bot protocol (``protocol``, ``stdio``), the
stateless HTTP service with its browser page (``http``, ``static/``). docs/protocol.md and docs/embedding.md
describe them."""

from .protocol import PROTOCOL_VERSION, ProtocolError, Session

__all__ = ["PROTOCOL_VERSION", "ProtocolError", "Session"]
