"""Polling with deadlines: the suite never sleeps hoping something happened."""

import threading
import time


def wait_until(fn, timeout, what, interval=0.05):
    """Call `fn` until it returns something truthy and return that value.

    Raises AssertionError naming `what` (and the last value or exception seen)
    when `timeout` seconds pass first. Exceptions raised by `fn` count as
    "not yet", so a condition may read files that do not exist yet.
    """
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            value = fn()
            if value:
                return value
            last = value
        except Exception as exc:  # noqa: BLE001 - "not yet", reported on timeout
            last = exc
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what} (last: {last!r})")
        time.sleep(interval)


def stays_true(fn, duration, what, interval=0.05):
    """Assert that `fn()` stays truthy for `duration` seconds."""
    deadline = time.monotonic() + duration
    while time.monotonic() < deadline:
        value = fn()
        assert value, f"{what} stopped holding (got {value!r})"
        time.sleep(interval)


def within(fn, timeout, what):
    """Run `fn()` in a helper thread and return its result, so a daemon that
    never answers fails the test instead of hanging it. Raises what `fn`
    raised, or TimeoutError naming `what` when it still runs after `timeout`
    seconds (the thread is left behind, a daemon thread)."""
    box = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise TimeoutError(f"{what} took over {timeout}s")
    if "error" in box:
        raise box["error"]
    return box["value"]


def start_order(mount, tasks, timeout):
    """The order in which `tasks` leave `queued`, polled until every one has (R16, R30)."""
    order = []
    deadline = time.monotonic() + timeout
    while len(order) < len(tasks):
        for task in tasks:
            if task not in order and mount.status(task)["state"] != "queued":
                order.append(task)
        assert time.monotonic() < deadline, f"started so far: {order}"
        time.sleep(0.02)
    return order
