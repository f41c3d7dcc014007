"""Request bodies over a size limit are refused with 413 before they are read whole.

FastAPI reads a body whole before validating it, and no layer below bounds it, so a 50 MB body (anyone
may send one to /auth/login) sat in memory before it was refused. A declared Content-Length over the
limit is refused before any of the body is read; a chunked body is counted as it arrives and refused
as soon as it passes the limit. Either way the client gets a problem document (status 413, field
`body`), and what the application answers after that is dropped.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .problems import PROBLEM_MEDIA_TYPE, TITLES, Problem


class _TooLarge(Exception):
    pass


def _problem(scope: Scope, max_bytes: int) -> bytes:
    return Problem(type="https://adwiser.invalid/problems/413", title=TITLES[413], status=413,
                   detail=f"the request body is larger than {max_bytes} bytes", instance=scope.get("path", ""),
                   field="body", errors=[]).model_dump_json().encode()


class BodyLimit:
    def __init__(self, app: ASGIApp, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refused = False
        started = False

        async def refuse() -> None:
            nonlocal refused
            refused = True
            if started:   # the application answered before reading the body: only stop reading it
                return
            body = _problem(scope, self.max_bytes)
            await send({"type": "http.response.start", "status": 413, "headers": [
                (b"content-type", PROBLEM_MEDIA_TYPE.encode()), (b"content-length", str(len(body)).encode()),
                (b"connection", b"close")]})
            await send({"type": "http.response.body", "body": body})

        for name, value in scope["headers"]:
            if name == b"content-length" and value.isdigit() and int(value) > self.max_bytes:
                await refuse()
                return

        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    await refuse()
                    raise _TooLarge
            return message

        async def unless_refused(message: Message) -> None:
            nonlocal started
            if refused:
                return
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted, unless_refused)
        except _TooLarge:
            pass
