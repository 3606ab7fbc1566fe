"""Worker processes for the HTTP service's costly decisions: the bots that search or score every legal action.

A ``go`` of the heuristic, expert or search bot can take seconds (an ``all-6p`` position has hundreds of legal
actions), so the service does not run it in its own process, where a thread cannot be stopped and would hold the
interpreter lock against every other request. It hands the request to one of a fixed number of worker processes:

* **bounded queue**: ``workers`` requests run, at most ``queue`` wait for a worker; one more is refused at once
  (:class:`Busy`: 503 with ``Retry-After``);
* **time**: a worker interrupts a bot that is ``HARD_STOP_GRACE_S`` past its ``movetime_ms``
  (``protocol.enable_hard_stop``: the reply is ``time_budget_exceeded`` and the worker goes on serving); a request
  past the service's time limit, waiting or running, is given up (:class:`Expired`) and its worker killed;
* **abandoned work**: when the client disconnects, a waiting request leaves the queue and a running one's worker
  is killed (:class:`Abandoned`).

A killed worker is replaced by a fork of a server process that has the engine and the bots imported already
(``multiprocessing``'s ``forkserver``), in milliseconds. A worker gets the request's raw body and answers with
``(status, reply bytes)``, so the service's own process does no engine work for it. Workers exit when the service
does (their pipe closes).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import signal
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

#: Modules the fork server imports once, so that a new worker starts with them loaded (and its caches warm).
PRELOAD = ["embedding._preload"]
log = logging.getLogger("uvicorn.error")


class Busy(Exception):
    """Every worker is busy and the queue is full."""


class Expired(Exception):
    """The request passed its deadline, waiting for a worker or running."""


class Abandoned(Exception):
    """The client went away."""


class WorkerDied(Exception):
    """A worker ended without answering (killed from outside, out of memory)."""


def _worker_main(conn: Any, job: Callable[..., tuple[int, bytes]]) -> None:
    """A worker: answer jobs one at a time until the service closes the pipe."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C at a terminal reaches the whole process group
    from . import protocol, wirejson

    protocol.enable_hard_stop()
    while True:
        try:
            args = conn.recv()
        except (EOFError, OSError):
            return
        try:
            result = job(*args)
        except BaseException as exc:  # a defect; the worker answers it and goes on
            reply = protocol.error_reply(None, None, "internal", f"{type(exc).__name__}: {str(exc)[:300]}")
            result = (500, wirejson.encode_bytes(reply))
        try:
            conn.send(result)
        except (OSError, ValueError):
            return


class _Worker:
    def __init__(self, ctx: Any, job: Callable[..., tuple[int, bytes]]) -> None:
        parent, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child, job), daemon=True, name="bc-worker")
        self.proc.start()
        child.close()
        self.conn = parent

    def kill(self) -> None:
        self.proc.kill()
        self.proc.join()
        self.conn.close()


class WorkerPool:
    """``workers`` processes running ``job(*args) -> (status, body)``, and a queue of at most ``queue`` waiting
    requests. Start with :meth:`start`, stop with :meth:`close` (both from the event loop)."""

    @staticmethod
    def check(workers: int, queue: int) -> None:
        """ValueError unless ``workers >= 1`` and ``queue >= 0``."""
        if workers < 1 or queue < 0:
            raise ValueError(f"a pool needs workers >= 1 and queue >= 0, got {workers} and {queue}")

    def __init__(self, job: Callable[..., tuple[int, bytes]], workers: int = 2, queue: int = 4) -> None:
        self.check(workers, queue)
        self.job = job
        self.workers = workers
        self.queue = queue
        self._ctx = multiprocessing.get_context("forkserver")
        self._ctx.set_forkserver_preload(PRELOAD)
        self._idle: list[_Worker] = []
        self._busy: set[_Worker] = set()
        self._waiters: deque[asyncio.Future[_Worker]] = deque()
        self._tasks: set[asyncio.Task[None]] = set()
        self.killed = 0  # workers stopped because their request was abandoned or expired

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        for _ in range(self.workers):
            self._idle.append(await loop.run_in_executor(None, _Worker, self._ctx, self.job))

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for fut in self._waiters:
            fut.cancel()
        loop = asyncio.get_running_loop()
        for worker in [*self._idle, *self._busy]:
            await loop.run_in_executor(None, worker.kill)
        self._idle.clear()
        self._busy.clear()

    def pids(self) -> list[int]:
        """The process ids of the workers (for tests and monitoring)."""
        return [int(w.proc.pid) for w in [*self._idle, *self._busy] if w.proc.pid is not None]

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    async def run(self, args: tuple[Any, ...], deadline: float, gone: Awaitable[Any]) -> tuple[int, bytes]:
        """``job(*args)`` on a worker, by ``deadline`` (the event loop's clock); ``gone`` completes when the client
        disconnects (the caller cancels it afterwards). Raises :class:`Busy`, :class:`Expired`, :class:`Abandoned` or
        :class:`WorkerDied`."""
        gone_fut = asyncio.ensure_future(gone)
        worker = await self._acquire(deadline, gone_fut)
        answered = False
        try:
            result = await self._exchange(worker, args, deadline, gone_fut)
            answered = True
            return result
        finally:
            self._busy.discard(worker)
            if answered:
                self._release(worker)
            else:
                self.killed += 1
                self._replace(worker)

    async def _acquire(self, deadline: float, gone: asyncio.Future[Any]) -> _Worker:
        loop = asyncio.get_running_loop()
        if self._idle:
            worker = self._idle.pop()
        else:
            if len(self._waiters) >= self.queue:
                raise Busy
            fut: asyncio.Future[_Worker] = loop.create_future()
            self._waiters.append(fut)
            try:
                done, _ = await asyncio.wait(
                    {fut, gone}, timeout=max(0.0, deadline - loop.time()), return_when=asyncio.FIRST_COMPLETED
                )
            except asyncio.CancelledError:
                self._leave(fut)
                raise
            if fut not in done:
                self._leave(fut)
                raise Abandoned if gone in done else Expired
            worker = fut.result()
        self._busy.add(worker)
        return worker

    def _leave(self, fut: asyncio.Future[_Worker]) -> None:
        """A waiter gives up: out of the queue, and the worker it was handed meanwhile (if any) goes back."""
        if fut in self._waiters:
            self._waiters.remove(fut)
        if fut.done() and not fut.cancelled():
            self._release(fut.result())
        else:
            fut.cancel()

    def _release(self, worker: _Worker) -> None:
        while self._waiters:
            fut = self._waiters.popleft()
            if not fut.done():
                fut.set_result(worker)
                return
        self._idle.append(worker)

    async def _exchange(
        self, worker: _Worker, args: tuple[Any, ...], deadline: float, gone: asyncio.Future[Any]
    ) -> tuple[int, bytes]:
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[tuple[int, bytes]] = loop.create_future()
        fd = worker.conn.fileno()

        def readable() -> None:
            loop.remove_reader(fd)
            if answer.done():
                return
            try:
                answer.set_result(worker.conn.recv())
            except (EOFError, OSError) as exc:
                answer.set_exception(WorkerDied(f"the worker ended without answering ({type(exc).__name__})"))

        try:
            worker.conn.send(args)
        except (OSError, ValueError) as exc:
            raise WorkerDied(f"the worker is gone ({type(exc).__name__})") from None
        loop.add_reader(fd, readable)
        try:
            done, _ = await asyncio.wait(
                {answer, gone}, timeout=max(0.0, deadline - loop.time()), return_when=asyncio.FIRST_COMPLETED
            )
            if answer in done:
                return answer.result()
            raise Abandoned if gone in done else Expired
        finally:
            loop.remove_reader(fd)

    def _replace(self, worker: _Worker) -> None:
        """Kill ``worker`` (its request was given up) and start another in the background."""
        loop = asyncio.get_running_loop()
        worker.proc.kill()  # at once: the work stops now; reaping it and starting the next can wait

        async def replace() -> None:
            await loop.run_in_executor(None, worker.kill)
            while True:
                try:
                    fresh = await loop.run_in_executor(None, _Worker, self._ctx, self.job)
                except Exception:  # e.g. out of processes for a moment: try again, the queue waits meanwhile
                    log.exception("could not start a worker; trying again in 1 s")
                    await asyncio.sleep(1.0)
                    continue
                self._release(fresh)
                return

        task = loop.create_task(replace())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
