"""Running downloadfs commands (not the daemon) with bounded time and captured output."""

import subprocess


class Result:
    """Exit code and output of one command."""

    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr

    def __repr__(self):
        return f"Result(rc={self.returncode}, stdout={self.stdout!r}, stderr={self.stderr!r})"


def run_cli(args, workdir, timeout=30, stdin_data=None, env=None):
    """Run a command with stdout/stderr in files, not pipes.

    A daemon that forks into the background may keep inherited pipes open;
    files let us wait for the command itself rather than for EOF.
    """
    out_path = workdir / "cli.stdout"
    err_path = workdir / "cli.stderr"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.run([str(a) for a in args], stdout=out, stderr=err, timeout=timeout,
                              input=stdin_data.encode() if isinstance(stdin_data, str) else stdin_data,
                              stdin=None if stdin_data is not None else subprocess.DEVNULL,
                              env=env)
    return Result(proc.returncode, out_path.read_text(errors="replace"),
                  err_path.read_text(errors="replace"))


def one_line_message(text):
    """True if `text` is exactly one non-empty line (a trailing newline allowed)."""
    stripped = text.strip("\n")
    return bool(stripped.strip()) and "\n" not in stripped
