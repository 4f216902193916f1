"""The explorer answers only its own page: checks every request before a route reads or writes.

- ``Host`` on every request names this server: ``127.0.0.1``, ``localhost``, ``[::1]`` or the
  ``--host`` given, at the port it serves. Another name is a DNS-rebinding page
  (``evil.example`` resolved to 127.0.0.1) or a request meant for another server: 403.
- A state-changing request (any method but GET, HEAD and OPTIONS: a search started or
  stopped, a file saved) also carries the page's own ``Origin`` (a browser sends it on
  every such request, so one without it is no browser's page: refused too) and the
  server's token in ``X-Groupcheck-Token``. The token is random per server and only in the
  page ``/`` serves: another origin cannot read that page (no CORS header lets it) and a
  rebinding one is refused by the Host check, so only the page itself can send it.

Every answer also says ``nosniff`` and a Content-Security-Policy: the page runs only its own
scripts, is never framed, and a value that slipped into the HTML as markup would still not run.
"""
from __future__ import annotations

import hmac
import secrets
from urllib.parse import urlsplit

from flask import Flask, jsonify, request

LOOPBACK = ("127.0.0.1", "localhost", "::1")
SAFE = ("GET", "HEAD", "OPTIONS")            # methods that read; every other one changes state
TOKEN_HEADER = "X-Groupcheck-Token"
POLICY = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
          "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


def names(host: str | None) -> frozenset[str]:
    """The host names a request may address: the loopback ones and ``host`` (as --host gave it)."""
    given = {host.strip("[]").lower()} if host else set()
    return frozenset(LOOPBACK) | given


def _ours(netloc: str, allowed: frozenset[str], port: int) -> bool:
    """Whether ``netloc`` (a Host header, an Origin's host[:port]) is one of ``allowed`` at
    ``port`` (80 when it names none, as for http)."""
    if not netloc or any(c in netloc for c in "@/\\?# "):
        return False
    try:
        parts = urlsplit("//" + netloc)
        return parts.hostname in allowed and (parts.port or 80) == port
    except ValueError:                      # a port that is not a number, a bad IPv6 literal
        return False


def _page(origin: str | None, allowed: frozenset[str], port: int) -> bool:
    """Whether ``origin`` is this server's own page: ``http://`` and an allowed host:port."""
    try:
        parts = urlsplit(origin or "")
    except ValueError:
        return False
    return origin == f"http://{parts.netloc}" and _ours(parts.netloc, allowed, port)


def _refusal(why: str):
    return jsonify({"error": f"forbidden: {why}; open the page at the URL groupcheck explore printed"}), 403


def install(app: Flask, host: str | None = None) -> str:
    """Check every request ``app`` gets as the module says; the token the page must send."""
    allowed, token = names(host), secrets.token_urlsafe(32)

    @app.before_request
    def only_our_page():
        port = int(request.environ.get("SERVER_PORT") or 0)
        given = request.headers.get("Host", "")
        if not _ours(given, allowed, port):
            return _refusal(f"Host {given[:80]!r} is not this explorer's address")
        if request.method in SAFE:
            return None
        origin = request.headers.get("Origin")
        if not _page(origin, allowed, port):
            return _refusal(f"Origin {str(origin)[:80]!r} is not this explorer's page")
        if not hmac.compare_digest(request.headers.get(TOKEN_HEADER, "").encode(), token.encode()):
            return _refusal(f"{request.method} needs the page's {TOKEN_HEADER}")
        return None

    @app.after_request
    def headers(response):
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Content-Security-Policy"] = POLICY
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    return token
