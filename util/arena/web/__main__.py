"""``python -m util.arena.web``: the browser app (play, analysis, tournament dashboard) on a real
server (waitress), on localhost by default."""
from __future__ import annotations

import socket
import sys

from base.cli import OneLineParser, exit_code, int_in, raise_if_signalled, stop_on_signals


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m util.arena.web",
                           description="Play every game against every agent in the browser, see the agent's analysis "
                                       "and search tree, and browse tournaments.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int_in(1, 65535), default=8000, help="port, 1 to 65535 (default 8000)")
    parser.add_argument("--db", default=None, help="tournament store the dashboard reads (default results/tournament.sqlite)")
    parser.add_argument("--threads", type=int_in(1, 64), default=8, help="requests served at once, 1 to 64 (default 8)")
    parser.add_argument("--sessions", type=int_in(1, 10_000), default=200,
                        help="game sessions kept, 1 to 10000 (default 200; the least recently used go first)")
    args = parser.parse_args(argv)
    try:  # before anything is built: waitress would raise a bare ValueError after the banner
        socket.getaddrinfo(args.host, args.port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        parser.error(f"--host {args.host!r} is no address of this machine ({getattr(exc, 'strerror', None) or exc}); "
                     "give an IP address or a name such as 127.0.0.1")
    import waitress

    from util.arena.web.app import create_app
    from util.arena.web.dashboard import stop_matches

    app = create_app(db=args.db, capacity=args.sessions)
    print(f"serving on http://{args.host}:{args.port}/ (Ctrl-C to stop)", file=sys.stderr)
    # SIGINT and SIGTERM stop the server, also when started in the background (`&` leaves
    # SIGINT ignored); waitress ends its loop on the KeyboardInterrupt and returns.
    with stop_on_signals():
        try:
            waitress.serve(app, host=args.host, port=args.port, threads=args.threads, ident="agents-web")
            raise_if_signalled()
        except (OSError, ValueError) as exc:  # ValueError: waitress's 'Invalid host/port'
            print(f"error: cannot listen on {args.host}:{args.port} ({getattr(exc, 'strerror', None) or exc}); choose another --port", file=sys.stderr)
            return 2
        except KeyboardInterrupt as exc:
            print("stopped", file=sys.stderr)
            return exit_code(exc)
        finally:
            stop_matches(app)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
