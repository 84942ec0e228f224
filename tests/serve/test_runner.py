"""The model's thread (nbayes.serve.runner): a job's answer reaches its request once the
model is free again, so that the client's next request (sent as soon as it has the answer)
runs inline instead of being handed to the thread as well (a hand-off costs more than a
small read, and under load each one waits for a core)."""

from __future__ import annotations

import asyncio
import threading

from nbayes.serve.runner import ModelRunner


def _thread_name() -> str:
    return threading.current_thread().name


def test_a_job_is_answered_after_the_model_is_released() -> None:
    async def main() -> list[bool]:
        runner = ModelRunner(10.0, lambda: None)
        held = []
        try:
            for _ in range(50):
                await runner.write(lambda: sum(range(1000)))
                held.append(runner._model.locked())
                # and a small read finds the model free: it runs here, on the loop's thread
                ran_on = await runner.read(_thread_name, lambda: True)
                held.append(ran_on != _thread_name())
        finally:
            runner.close()
        return held

    assert not any(asyncio.run(main()))
