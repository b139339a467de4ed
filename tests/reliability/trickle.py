#!/usr/bin/env python3
"""Hostile peers for the rendezvous test: keeps CONNECTIONS connections open
to each HOST:PORT, each sending the magic "PIPR" and then one byte every
INTERVAL seconds, reconnecting whatever the server drops, for SECONDS.
Prints how many connections it opened and how many the server dropped.

    trickle.py SECONDS CONNECTIONS INTERVAL HOST:PORT [HOST:PORT ...]
"""
import selectors
import signal
import socket
import sys
import time


def open_one(host, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setblocking(False)
    try:
        s.connect((host, port))
    except BlockingIOError:
        pass
    except OSError:
        s.close()
        return None
    return s


def main():
    seconds, count, interval = float(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    targets = []
    for t in sys.argv[4:]:
        host, port = t.rsplit(":", 1)
        targets.append((host, int(port)))
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    conns = {}  # socket -> (target, bytes sent)
    opened = dropped = 0
    end = time.monotonic() + seconds
    sel = selectors.DefaultSelector()

    def close(s):
        nonlocal dropped
        if s in sel.get_map():
            sel.unregister(s)
        s.close()
        del conns[s]
        dropped += 1

    next_round = time.monotonic()
    while time.monotonic() < end and not stop:
        now = time.monotonic()
        if now >= next_round:
            # A round: open what is missing, then one byte on each ("PIPR"
            # first, then zeros) -- one byte per connection per interval.
            next_round = now + interval
            for target in targets:
                while sum(1 for t, _ in conns.values() if t == target) < count:
                    s = open_one(*target)
                    if s is None:
                        break
                    conns[s] = (target, 0)
                    sel.register(s, selectors.EVENT_READ)
                    opened += 1
            for s in list(conns):
                target, sent = conns[s]
                byte = b"PIPR"[sent:sent + 1] if sent < 4 else b"\0"
                try:
                    if s.send(byte) == 1:
                        conns[s] = (target, sent + 1)
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:
                    close(s)
        # Between rounds: only notice what the server closed.
        for key, _ in sel.select(timeout=max(0.0, min(next_round, end) - time.monotonic())):
            s = key.fileobj
            try:
                data = s.recv(64)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                data = b""
            if data == b"" or s not in conns:
                close(s)
            else:
                close(s)  # a reply (BUSY): the server is done with it
    for s in list(conns):
        s.close()
    print(f"opened {opened} connections, the server dropped {dropped}", flush=True)


if __name__ == "__main__":
    main()
