"""How far a long command is: one line on stderr."""

import sys
import time


__all__ = ["Progress"]


class Progress:
    """How far a long command is, on stderr.

    On a terminal one line is rewritten in place, at most ten times a second:
    the command, the games done of the total (when the file's games were
    counted) and the rate, ``axon scan: game 12/150, 1,834 plies, 2,310
    plies/s``. Anywhere else (a log file, CI) a plain line with the same
    totals is written only once every ``interval`` seconds, so that a short
    run writes nothing and a long one shows it is alive without flooding the
    log.
    """

    def __init__(self, total_games, stream=None, enabled=True, interval=30.0,
                 clock=time.monotonic, command="axon"):
        self.total = total_games
        self.command = command
        self.stream = sys.stderr if stream is None else stream
        self.tty = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.plain = enabled and not self.tty
        self.interval = 0.1 if self.tty else interval
        self.clock = clock
        self.started = clock()
        # A terminal shows the first update at once; a log waits an interval.
        self.last_time = None if self.tty else self.started
        self.width = 0
        self.plies = 0
        self._at = (None, 0)

    def _count(self, game, ply):
        last_game, last_ply = self._at
        self.plies += ply - last_ply if game == last_game else ply
        self._at = (game, ply)

    def text(self, game):
        """The progress line after game ``game`` (0-based)."""
        games = f"game {game + 1}"
        if self.total is not None and game < self.total:
            games += f"/{self.total}"
        elapsed = self.clock() - self.started
        rate = f", {self.plies / elapsed:,.0f} plies/s" if elapsed > 0 else ""
        return f"{self.command}: {games}, {self.plies:,} {'ply' if self.plies == 1 else 'plies'}" \
               f"{rate}"

    def update(self, game, ply):
        """Game ``game`` (0-based place in the list being answered) was
        answered up to its ``ply`` (1-based)."""
        if not (self.tty or self.plain):
            return
        self._count(game, ply)
        self._show(game)

    def _show(self, at):
        # Written at most once an interval: the line of `text(at)`.
        now = self.clock()
        if self.last_time is not None and now - self.last_time < self.interval:
            return
        self.last_time = now
        text = self.text(at)
        if self.tty:
            self.stream.write("\r" + text.ljust(self.width))
            self.width = len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def say(self, line):
        """A one-off line about a long step (the first CXXRTL compile), shown
        whenever progress is on, terminal or not."""
        if not (self.tty or self.plain):
            return
        if self.tty and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.width = 0
        self.stream.write(line + "\n")
        self.stream.flush()

    def done(self):
        if self.tty and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
