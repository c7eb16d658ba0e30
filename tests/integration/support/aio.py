"""Linux AIO (io_submit) through ctypes: many reads queued in one system call.

Reads from threads reach a FUSE daemon one after another (each thread must
take Python's GIL before its read); `io_submit` queues every read of a batch
before any is answered, so the daemon sees them all at once — what a race
between reads of one handle needs.
"""

import ctypes
import ctypes.util
import os

_libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
_libc.syscall.restype = ctypes.c_long
# x86_64 system call numbers.
_IO_SETUP, _IO_DESTROY, _IO_GETEVENTS, _IO_SUBMIT = 206, 207, 208, 209
_IOCB_CMD_PREAD = 0


class _Iocb(ctypes.Structure):
    _fields_ = [("aio_data", ctypes.c_uint64), ("aio_key", ctypes.c_uint32),
                ("aio_rw_flags", ctypes.c_int32), ("aio_lio_opcode", ctypes.c_uint16),
                ("aio_reqprio", ctypes.c_int16), ("aio_fildes", ctypes.c_uint32),
                ("aio_buf", ctypes.c_uint64), ("aio_nbytes", ctypes.c_uint64),
                ("aio_offset", ctypes.c_int64), ("aio_reserved2", ctypes.c_uint64),
                ("aio_flags", ctypes.c_uint32), ("aio_resfd", ctypes.c_uint32)]


class _Event(ctypes.Structure):
    _fields_ = [("data", ctypes.c_uint64), ("obj", ctypes.c_uint64),
                ("res", ctypes.c_int64), ("res2", ctypes.c_int64)]


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


def _check(result, what):
    if result < 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")
    return result


def read_all_at_once(reads, size=4096, timeout=30.0):
    """Submits every (fd, offset) of `reads` in one io_submit and waits for all.

    Returns each read's result (bytes read, or -errno), in order.
    """
    count = len(reads)
    context = ctypes.c_ulong(0)
    _check(_libc.syscall(_IO_SETUP, count, ctypes.byref(context)), "io_setup")
    try:
        buffers = [ctypes.create_string_buffer(size) for _ in reads]
        blocks = (_Iocb * count)()
        for i, (fd, offset) in enumerate(reads):
            blocks[i].aio_data = i
            blocks[i].aio_lio_opcode = _IOCB_CMD_PREAD
            blocks[i].aio_fildes = fd
            blocks[i].aio_buf = ctypes.addressof(buffers[i])
            blocks[i].aio_nbytes = size
            blocks[i].aio_offset = offset
        pointers = (ctypes.POINTER(_Iocb) * count)(*(ctypes.pointer(b) for b in blocks))
        submitted = _check(_libc.syscall(_IO_SUBMIT, context, count, pointers), "io_submit")
        results = [None] * count
        events = (_Event * count)()
        done = 0
        wait = _Timespec(int(timeout), 0)
        while done < submitted:
            got = _check(_libc.syscall(_IO_GETEVENTS, context, 1, count, events, ctypes.byref(wait)),
                         "io_getevents")
            if got == 0:
                raise TimeoutError(f"{submitted - done} reads still unanswered after {timeout}s")
            for event in events[:got]:
                results[event.data] = event.res
            done += got
        return results
    finally:
        _libc.syscall(_IO_DESTROY, context)
