"""A private FTP server on 127.0.0.1 (pyftpdlib, Debian's python3-pyftpdlib).

One user (`user` / `pw`) with a home dir the test fills; downloads can be
throttled, and every command the server receives is recorded, so a test can
check that a resume sent `REST N`.
"""

import threading

from pyftpdlib.authorizers import DummyAuthorizer
from pyftpdlib.handlers import FTPHandler, ThrottledDTPHandler
from pyftpdlib.servers import FTPServer


class FtpServer:
    USER, PASSWORD = "user", "pw"

    def __init__(self, home, throttle=None):
        self.home = home
        self.commands = []
        self._lock = threading.Lock()
        authorizer = DummyAuthorizer()
        authorizer.add_user(self.USER, self.PASSWORD, str(home), perm="elr")
        server = self

        class Handler(FTPHandler):
            def pre_process_command(self, line, cmd, arg):
                with server._lock:
                    server.commands.append((cmd, arg))
                return super().pre_process_command(line, cmd, arg)

        dtp = type("Throttled", (ThrottledDTPHandler,), {"write_limit": throttle or 0})
        Handler.authorizer = authorizer
        Handler.dtp_handler = dtp if throttle else Handler.dtp_handler
        Handler.banner = "downloadfs test FTP"
        Handler.permit_foreign_addresses = False
        Handler.passive_ports = None
        self._server = FTPServer(("127.0.0.1", 0), Handler)
        self.port = self._server.socket.getsockname()[1]
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"timeout": 0.2, "blocking": True}, daemon=True)
        self._thread.start()

    def url(self, path, user=USER, password=PASSWORD):
        return f"ftp://{user}:{password}@127.0.0.1:{self.port}/{path.lstrip('/')}"

    def sent(self, cmd):
        """Arguments of every `cmd` command received, in order."""
        with self._lock:
            return [arg for name, arg in self.commands if name == cmd]

    def stop(self):
        self._server.close_all()
        self._thread.join(10)
