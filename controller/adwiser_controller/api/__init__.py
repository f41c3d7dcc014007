"""HTTP and WebSocket routes under /api/v1/."""
