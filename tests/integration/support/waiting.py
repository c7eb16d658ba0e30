"""Polling with deadlines: the suite never sleeps hoping something happened."""

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
