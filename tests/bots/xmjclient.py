"""A minimal client of mj-server's protocol, for the xmj seat's tests: it logs in, says Ready to every pause,
says NoClaim to every discard, discards the tile it last drew (the dealer its last dealt tile), and shows its tiles
when another player has won.  A mode makes it misbehave once, at its first turn:

    pass        no misbehaviour
    garbage     a line that is no message
    silent      no answer at all
    disconnect  close the connection
    falsemj     Mah-Jong without a complete hand
    badtile     discard a tile it does not hold

Usage (mjref adds the options): ``python xmjclient.py MODE --server PATH --id N --name NAME``.
"""

from __future__ import annotations

import socket
import sys
import time


class Client:
    def __init__(self, mode: str, me: str, sock: socket.socket) -> None:
        self.mode = mode
        self.me = me
        self.out = sock.makefile("wb", buffering=0)
        self.misbehaved = mode == "pass"
        self.hand: list[str] = []
        self.last: str | None = None
        self.dealing = False
        self.shown = False

    def send(self, line: str) -> None:
        self.out.write(line.encode() + b"\r\n")

    def turn(self, tile: str) -> None:
        if not self.misbehaved:
            self.misbehaved = True
            if self.mode == "garbage":
                self.send("Bogus 1 2 3")
                return
            if self.mode == "silent":
                time.sleep(3600)
            if self.mode == "disconnect":
                sys.exit(0)
            if self.mode == "falsemj":
                self.send("MahJong 0")
                return
            if self.mode == "badtile":
                absent = next(t for t in ("RD", "GD", "WD", "EW", "SW", "1C", "9C") if t not in self.hand)
                self.send(f"Discard {absent} 0")
                return
        self.send(f"Discard {tile} 0")

    def message(self, words: list[str]) -> bool:
        kind, rest = words[0], words[1:]
        mine = bool(rest) and rest[0] == self.me
        if kind == "NewHand":
            self.hand, self.last, self.dealing, self.shown = [], None, True, False
        elif kind == "Pause":
            self.send("Ready")
            if rest[0] == self.me and words[-1] == "play":  # the dealer starts: no draw
                self.dealing = False
                self.turn(self.last or self.hand[-1])
            elif words[-1] == "play":
                self.dealing = False
        elif kind in ("PlayerDraws", "PlayerDrawsLoose") and mine:
            tile = rest[1]
            self.hand.append(tile)
            if tile[1] not in "FS":
                self.last = tile
                if not self.dealing:
                    self.turn(tile)
        elif kind == "PlayerDeclaresSpecial" and mine and rest[1] in self.hand:
            self.hand.remove(rest[1])
        elif kind == "PlayerDiscards" and mine and rest[1] in self.hand:
            self.hand.remove(rest[1])
        elif kind in ("PlayerDiscards", "PlayerAddsToPung", "PlayerDeclaresClosedKong") and not mine:
            self.send(f"NoClaim {rest[2]}")
        elif kind == "HandScore" and not mine and not self.shown:
            self.shown = True
            self.send("ShowTiles")  # a loser, once the winner is scored
        elif kind == "GameOver":
            return False
        return True


def main() -> None:
    mode = sys.argv[1]
    args = dict(zip(sys.argv[2::2], sys.argv[3::2]))
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(args["--server"])
    client = Client(mode, args["--id"], sock)
    client.send(f"Connect 1110 {args['--id']} {args['--name']}")
    pending = b""
    for raw in sock.makefile("rb"):
        if raw.endswith(b"\\\r\n"):  # a line continued (a score's explanation)
            pending += raw
            continue
        words = (pending + raw).decode().split()
        pending = b""
        if words and not client.message(words):
            return


if __name__ == "__main__":
    main()
