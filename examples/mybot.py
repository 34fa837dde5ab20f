#!/usr/bin/env python3
"""A complete ICGA protocol bot in 40 lines of standard Python: the starting point of docs/authoring.md.

It keeps its hand from /initCard, /mo and its own claims, wins whenever it is asked /ask hu, declines every other
claim, and throws the tile it drew last (or its highest tile).  Run it: `mjref check ./examples/mybot.py`.
"""

import sys


def main() -> None:
    hand: list[int] = []
    me = 0
    drawn = None
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        cmd, args = words[0], words[1:]
        if cmd == "/start":
            me, hand, drawn = int(args[1]), [], None
        elif cmd == "/initCard":
            hand = sorted(map(int, args))
        elif cmd == "/mo":
            drawn = int(args[0])
            hand.append(drawn)
        elif cmd == "/throw" and int(args[0]) == me:
            hand.remove(int(args[1]))  # our own throw comes back to us
        elif cmd == "/ask":
            if args[0] == "throw":
                tile = drawn if drawn in hand else max(hand)
                answer = f"/throw {tile}"
            elif args[0] == "hu":
                answer = "/hu"
            else:
                answer = "/pass"  # eat, pong, gong: a claim is always optional
            print(answer, flush=True)  # one line per question, flushed
        elif cmd == "/exit":
            return  # the hand is over: exit (the referee starts us again for the next hand)


if __name__ == "__main__":
    main()
