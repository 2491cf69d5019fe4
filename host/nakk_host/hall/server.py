"""Runs the hall's application on uvicorn: binds the socket itself (so a taken port is a plain error), says where to look."""

import errno
import ipaddress
import socket
import sys



def is_loopback(addr):
    """True for an address only this machine reaches (127.0.0.0/8, ::1)."""
    try:
        return ipaddress.ip_address(addr.split("%")[0]).is_loopback
    except ValueError:
        return False


class ServeError(Exception):
    """The server cannot start (the port is taken, the address is not this machine's)."""


def bind(host, port):
    """A listening socket on host:port; ServeError in plain words."""
    if not 0 <= port <= 65535:
        raise ServeError("port %d is not a port number (0..65535)" % port)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise ServeError("cannot listen on %s: %s" % (host, e.strerror))
    family, kind, proto, _, addr = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(addr)
    except OSError as e:
        sock.close()
        if e.errno == errno.EADDRINUSE:
            raise ServeError("port %d on %s is taken (another nakk serve?): choose another with --port" % (port, host))
        raise ServeError("cannot listen on %s port %d: %s" % (host, port, e.strerror or e))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def serve(db, host="127.0.0.1", port=8080, page_seconds=10, out=None, sock=None, quiet_s=600.0):
    """Serve until interrupted. Returns 0."""
    import uvicorn

    from nakk_host.hall.app import make_app
    out = out or sys.stdout
    if sock is None:
        sock = bind(host, port)
    port = sock.getsockname()[1]
    app = make_app(db, page_seconds=page_seconds, quiet_s=quiet_s)
    shown = "[%s]" % host if ":" in host else host
    out.write("nakk serve: %s on http://%s:%d/ (projector: /projector; read-only; Ctrl-C stops)\n" % (db, shown, port))
    if not is_loopback(sock.getsockname()[0]):
        out.write("nakk serve: listening on %s: anyone on the hall's network can read these pages\n" % host)
    out.flush()
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=1,
                            access_log=False)
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    return 0
