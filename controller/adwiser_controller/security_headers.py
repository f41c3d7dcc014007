"""Headers on every HTTP answer of the controller (the web UI at / and the API alike) that keep a browser from
framing it, sniffing a content type, or running a script of another origin in it.

The session cookie is SameSite=Strict, which keeps it from cross-site requests only: a page on another host of
the same site (any *.campus.example) gets it sent along, so it could frame the dashboard and have the operator
click "apply" through it. The built web UI (Vite) loads its scripts and styles from /assets; Vue sets inline
styles (hence 'unsafe-inline' for styles only), and the live feed is a same-origin WebSocket ('self').
nginx's site (ansible role webui) sends the same for the files it serves itself. FastAPI's own API pages (/docs,
/redoc) run an inline script and load Swagger UI / ReDoc from a CDN: they are only kept from being framed.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                           "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
                           "form-action 'self'; frame-ancestors 'none'")
API_PAGES_POLICY = "frame-ancestors 'none'"
HEADERS = {"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY",
           "Content-Security-Policy": CONTENT_SECURITY_POLICY, "Referrer-Policy": "same-origin"}


class SecurityHeaders:
    def __init__(self, app: ASGIApp, api_pages: tuple[str, ...] = ("/docs", "/docs/oauth2-redirect", "/redoc")):
        self.app = app
        self.api_pages = api_pages

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    headers[name] = value
                if scope["path"] in self.api_pages:
                    headers["Content-Security-Policy"] = API_PAGES_POLICY
            await send(message)

        await self.app(scope, receive, with_headers)
