"""A real HTTP(S) server on loopback that serves a metrics text, for the unit tests of the load test's reads
(observe.api_get_text, scrape's node targets): it records each GET (path, Authorization, Accept) in its handler's
``seen`` and answers what the handler's ``answer()`` gives, (status, body)."""
import contextlib
import http.server
import threading


class MetricsHandler(http.server.BaseHTTPRequestHandler):
    """Subclass it with its own ``seen = []`` and ``answer(self)``."""

    seen = None

    def answer(self):
        raise NotImplementedError

    def do_GET(self):  # noqa: N802 - http.server's name
        type(self).seen.append((self.path, self.headers.get("Authorization"), self.headers.get("Accept")))
        status, body = self.answer()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serving(handler, tls=None):
    """The server of ``handler`` on a free loopback port (HTTPS with the ssl context ``tls``), stopped afterwards;
    yields its port."""
    server = http.server.HTTPServer(("127.0.0.1", 0), handler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_port
    finally:
        server.shutdown()
