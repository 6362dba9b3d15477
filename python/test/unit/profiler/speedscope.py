"""Opening a trace in speedscope (tools/viewer/node_modules, installed by tools/setup) in headless
Chromium: a local HTTP server on 127.0.0.1 serves speedscope's built files and the trace; Chromium
loads `index.html#profileURL=...` and takes a screenshot or dumps the DOM. Used by test_viewer.py
and tools/docs/profiler_screenshot.py."""

import contextlib
import functools
import http.server
import os
import shutil
import subprocess
import tempfile
import threading

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
RELEASE = os.path.join(REPO, "tools", "viewer", "node_modules", "speedscope", "dist", "release")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def missing():
    """Why the viewer cannot run here, or None."""
    if CHROMIUM is None:
        return "chromium (Debian's headless browser) is not installed; tools/setup installs it"
    if not os.path.isfile(os.path.join(RELEASE, "index.html")):
        return (f"speedscope is not installed in {os.path.relpath(RELEASE, REPO)}; tools/setup installs it "
                f"(npm ci in tools/viewer)")
    return None


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve(trace_bytes):
    """Serve speedscope under /speedscope/ and the trace as /trace.json; yields the page's URL."""
    with tempfile.TemporaryDirectory(prefix="tessera_viewer_") as root:
        os.symlink(RELEASE, os.path.join(root, "speedscope"))
        with open(os.path.join(root, "trace.json"), "wb") as f:
            f.write(trace_bytes)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=root))
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            base = f"http://127.0.0.1:{server.server_address[1]}"
            yield f"{base}/speedscope/index.html#profileURL={base}/trace.json"
        finally:
            server.shutdown()
            server.server_close()
            thread.join()


def _chromium(url, *flags, width=1400, height=900):
    # A profile folder of its own: a Chromium already running (another test's, the user's) would
    # otherwise own the default one and this one would wait for it.
    with tempfile.TemporaryDirectory(prefix="tessera_chromium_") as profile_dir:
        return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                               "--no-first-run", f"--user-data-dir={profile_dir}", f"--window-size={width},{height}",
                               "--virtual-time-budget=5000", *flags, url],
                              check=True, capture_output=True, timeout=120)


def screenshot(url, path, width=1400, height=900):
    """A PNG of the page at `url` after its scripts ran."""
    _chromium(url, f"--screenshot={path}", width=width, height=height)
    return path


def dom(url):
    """The page's DOM (HTML text) after its scripts ran."""
    return _chromium(url, "--dump-dom").stdout.decode("utf-8", "replace")
