"""How a WebSocket route refuses its client: an error message, then a close with 4000 + the HTTP status.

A browser's WebSocket sees neither the status nor the body of a handshake refused over HTTP, only a
bare 1006 that reads as a dropped connection and is retried. So the socket is accepted first and the
refusal sent in it: the message names the field at fault, the close code (4401, 4403, 4404, 4422; API.md)
tells a client that trying again as it is will not help, and the reason repeats the detail for a client
that only looks at the close.
"""

from __future__ import annotations

from starlette.websockets import WebSocket, WebSocketState

_REASON_BYTES = 123  # the most a close frame's reason may hold (RFC 6455 §5.5)


def _reason(detail: str) -> str:
    return detail.encode()[:_REASON_BYTES].decode(errors="ignore")


async def refuse(ws: WebSocket, status: int, detail: str, field: str | None) -> None:
    if ws.application_state == WebSocketState.CONNECTING:
        await ws.accept()
    await ws.send_json({"type": "error", "status": status, "detail": detail, "field": field})
    await ws.close(code=4000 + status, reason=_reason(detail))
