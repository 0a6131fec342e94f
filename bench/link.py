"""An emulated shared network link: a local TCP proxy in front of a local server.

Every connection through it pays one round trip to open (the TCP handshake), then half the round
trip on each direction for every byte; all the downstream bytes of all connections share one
bandwidth cap (a single bottleneck, served chunk by chunk in turn, so parallel downloads split it
as TCP flows roughly would).  Upstream bandwidth is not limited (requests are small).  It counts
the downstream bytes (headers and bodies) and when each arrived, so a benchmark can ask how many
bytes the page and its worker had received by a given moment.

Only loopback addresses: it listens on 127.0.0.1 and forwards to 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import bisect
import threading
import time
from dataclasses import dataclass, field

CHUNK = 16 * 1024  # bytes per turn on the bottleneck


@dataclass
class LinkStats:
    """Arrival times (``time.time()``) and running totals of the downstream bytes."""

    times: list[float] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)

    def add(self, count: int) -> None:
        self.times.append(time.time())
        self.totals.append((self.totals[-1] if self.totals else 0) + count)

    def bytes_until(self, moment: float) -> int:
        """Downstream bytes delivered up to the wall-clock ``moment``."""
        i = bisect.bisect_right(self.times, moment)
        return self.totals[i - 1] if i else 0

    @property
    def total(self) -> int:
        return self.totals[-1] if self.totals else 0


class EmulatedLink:
    """``mbit`` Mbit/s downstream shared by all connections, ``rtt_ms`` round trip, to ``target_port``."""

    def __init__(self, target_port: int, mbit: float, rtt_ms: float) -> None:
        self.target_port = target_port
        self.rate = mbit * 1e6 / 8  # bytes per second
        self.rtt = rtt_ms / 1000
        self.stats = LinkStats()
        self.loop = asyncio.new_event_loop()
        self.port = 0
        self._free_at = 0.0
        self._lock: asyncio.Lock | None = None
        self._server: asyncio.base_events.Server | None = None
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def start(self) -> str:
        """Start listening; returns the base URL to open instead of the server's."""
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._listen(), self.loop).result(10)
        return f"http://127.0.0.1:{self.port}"

    def reset(self) -> None:
        """Forget the byte counts (before each measured page load)."""
        self.stats = LinkStats()

    def stop(self) -> None:
        """Close the listener and every open connection (the browser keeps some alive), then the loop."""
        async def close() -> None:
            if self._server is not None:
                self._server.close()
            open_connections = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in open_connections:
                task.cancel()
            await asyncio.gather(*open_connections, return_exceptions=True)
        asyncio.run_coroutine_threadsafe(close(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)

    async def _listen(self) -> None:
        self._lock = asyncio.Lock()
        self._server = await asyncio.start_server(self._connection, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _connection(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        writers = [client_w]
        try:
            await asyncio.sleep(self.rtt)  # the handshake
            server_r, server_w = await asyncio.open_connection("127.0.0.1", self.target_port)
            writers.append(server_w)
            await asyncio.gather(self._upstream(client_r, server_w), self._downstream(server_r, client_w),
                                 return_exceptions=True)
        except (OSError, asyncio.CancelledError):
            pass  # the server refused, or stop() closes the connections still open
        finally:
            for writer in writers:
                writer.close()

    async def _upstream(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Client to server: delayed by half the round trip, not rate-limited."""
        while data := await reader.read(65536):
            self.loop.call_later(self.rtt / 2, _write, writer, data)
        await asyncio.sleep(self.rtt / 2)
        if not writer.is_closing():
            writer.write_eof()

    async def _downstream(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Server to client: each chunk waits its turn on the shared bottleneck, then half the round trip."""
        assert self._lock is not None
        while data := await reader.read(CHUNK):
            async with self._lock:  # FIFO: active connections take turns chunk by chunk
                start = max(self.loop.time(), self._free_at)
                self._free_at = start + len(data) / self.rate
                await asyncio.sleep(self._free_at - self.loop.time())
            self.loop.call_later(self.rtt / 2, self._deliver, writer, data)
        await asyncio.sleep(self.rtt / 2 + 0.01)
        if not writer.is_closing():
            writer.close()

    def _deliver(self, writer: asyncio.StreamWriter, data: bytes) -> None:
        if _write(writer, data):
            self.stats.add(len(data))


def _write(writer: asyncio.StreamWriter, data: bytes) -> bool:
    if writer.is_closing():
        return False
    writer.write(data)
    return True
