"""Which flash images running simulators hold and which serial ports they offer: a JSON file per
simulator in $XDG_RUNTIME_DIR/nakk (else <tmp>/nakk-<uid>), so that `nakk sync`, `pair` and `doctor`
find a simulator's pty and no two simulators play one image. Touches only that folder."""

import hashlib
import json
import os
import tempfile
import time

from nakk_host.unixport import SimulatorError


def registry_dir():
    """Where running simulators register their serial ports: $XDG_RUNTIME_DIR/nakk, else <tmp>/nakk-<uid>."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base:
        return os.path.join(base, "nakk")
    return os.path.join(tempfile.gettempdir(), "nakk-%d" % os.getuid())


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def registered_simulators():
    """Running simulators, oldest first: dicts with path (the tty), pid, image, started.

    Entries whose process is gone (or whose tty vanished) are removed."""
    d = registry_dir()
    try:
        names = sorted(os.listdir(d))
    except OSError:
        return []
    out = []
    for name in names:
        if not (name.startswith("sim-") and name.endswith(".json")):
            continue
        p = os.path.join(d, name)
        try:
            with open(p, encoding="utf-8") as f:
                entry = json.load(f)
            ok = (isinstance(entry, dict) and isinstance(entry.get("pid"), int)
                  and isinstance(entry.get("path"), str) and _alive(entry["pid"])
                  and os.path.exists(entry["path"]))
        except (OSError, ValueError):
            ok = False
        if not ok:
            try:
                os.remove(p)
            except OSError:
                pass
            continue
        out.append(entry)
    out.sort(key=lambda e: (e.get("started", 0), e["path"]))
    return out


def _claim_path(image):
    return os.path.join(registry_dir(), "image-%s.json" % hashlib.sha1(
        os.path.abspath(image).encode("utf-8", "surrogateescape")).hexdigest()[:16])


def image_in_use(image):
    """Who holds the flash image `image` (a dict: pid, image, and tty once registered), or None.
    A claim whose process is gone is removed."""
    p = _claim_path(image)
    try:
        with open(p, encoding="utf-8") as f:
            entry = json.load(f)
    except (OSError, ValueError):
        return None
    if not (isinstance(entry, dict) and isinstance(entry.get("pid"), int) and _alive(entry["pid"])) \
            or entry["pid"] == os.getpid() and entry.get("token") not in _CLAIMS:
        try:
            os.remove(p)
        except OSError:
            pass
        return None
    for sim in registered_simulators():
        if sim.get("image") == entry.get("image") and sim.get("pid") == entry["pid"]:
            entry["tty"] = sim["path"]
    return entry


def in_use_error(image, entry):
    return SimulatorError("the flash image %s is in use by a running simulator (process %d%s): a second one "
                          "on it would mix two boxes' writes; stop that one first, or use another --image"
                          % (image, entry["pid"], ", port %s" % entry["tty"] if entry.get("tty") else ""))


_CLAIMS = set()                          # tokens of the claims this process holds


def claim_image(image):
    """Claim the flash image for this process (one simulator or writer on an image at a time);
    returns the claim's path for release_image(). SimulatorError when another holds it."""
    d = registry_dir()
    os.makedirs(d, mode=0o700, exist_ok=True)
    p = _claim_path(image)
    for _ in range(3):
        try:
            fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            entry = image_in_use(image)
            if entry is not None:
                raise in_use_error(image, entry)
            continue                     # a stale claim, removed: try again
        token = "%d-%f-%d" % (os.getpid(), time.time(), len(_CLAIMS))
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"pid": os.getpid(), "image": os.path.abspath(image), "token": token}, f)
        _CLAIMS.add(token)
        return p, token
    raise SimulatorError("cannot claim the flash image %s (registry %s)" % (image, d))


def release_image(claim):
    if claim is None:
        return
    p, token = claim
    _CLAIMS.discard(token)
    try:
        os.remove(p)
    except OSError:
        pass
