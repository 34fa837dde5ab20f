"""A bot as Python users of the ICGA framework write them: ``print`` for answers, and no ``flush`` of its own.

Mode ``input`` reads with ``input()``, which flushes stdout before it reads, so its answers go out; mode ``loop``
reads with ``for line in sys.stdin``, and its answers stay in stdout's buffer (a pipe is fully buffered): it times
out, and the fault says to flush.  Mode ``stall2`` reads as ``input`` does, but its second process (a bot is started
per hand; the second hand's /initGame names another hand wind than EAST) never answers: a bot that played and
flushed, then timed out.
Mode ``immortal`` reads as ``input`` does and, at ``/exit``, neither exits nor reads on: it sleeps for a minute.
It throws the tile it drew, passes every claim and wins when asked."""

import sys
import time


def lines(mode: str):
    if mode == "loop":
        yield from sys.stdin
        return
    while True:
        try:
            yield input()
        except EOFError:
            return


def main() -> None:
    hand: list[int] = []
    me, last = 0, 0
    for line in lines(sys.argv[1]):
        w = line.split()
        if w[0] == "/start":
            me, hand = int(w[2]), []
        elif w[0] == "/initGame" and sys.argv[1] == "stall2" and w[2] != "EAST":
            time.sleep(60)  # the second hand's process (its hand wind is no longer EAST): never answers
        elif w[0] == "/initCard":
            hand = [int(t) for t in w[1:]]
            last = hand[-1]
        elif w[0] == "/mo":
            last = int(w[1])
            hand.append(last)
        elif w[0] == "/ask":
            if w[1] == "throw":
                print("/throw", last if last in hand else hand[-1])
            else:
                print("/hu" if w[1] == "hu" else "/pass")
        elif w[0] == "/throw" and int(w[1]) == me:
            hand.remove(int(w[2]))
        elif w[0] == "/exit":
            if sys.argv[1] == "immortal":
                time.sleep(60)
            return


main()
