"""The judge's end of the serial link: finding boxes, and the protocol's requests to one (over nakk_host.serialline).

    for port in discover():                 # USB 2E8A:0005 and running simulators
        with Box(port.url) as box:          # anything serial_for_url opens
            h = box.hello()                 # dict: device, fs_id, fw, proto, paired, ...
    assign(url, {"ruleset": "saare-2020", "table": 3, "round": 1, "sides": [...]})

A request that is lost or garbled on the way is sent again, patiently, within
a time budget; a box that stays silent is "does not answer" (DeviceError, in
plain words): nakk_host.serialline says how.
"""

import os
import time

from nakk.link import proto
from nakk_host.serialline import TIMEOUT, DeviceError, Line, OtherBox, PortFailed, Refused, Timeout  # noqa: F401

USB_VID = 0x2E8A   # Raspberry Pi
USB_PID = 0x0005   # MicroPython's USB CDC on the RP2040
PAIR_TIMEOUT = 75.0  # the players confirm a pairing on the box (it gives up after 60 s)


class Port:
    """A place a box may be: url (for serial_for_url), kind ("usb", "sim" or "url"), a label, and ident:
    what tells one box there from the next on the same url (a device path or pty is used again)."""

    def __init__(self, url, kind="url", label="", ident=None):
        self.url = url
        self.kind = kind
        self.label = label or url
        self.ident = ident or url

    def __repr__(self):
        return "Port(%r, %r)" % (self.url, self.kind)


def discover():
    """Every connected box: USB ports with the Pico's VID:PID, then the registered simulators."""
    out = []
    try:
        from serial.tools import list_ports
        for p in sorted(list_ports.comports(), key=lambda p: p.device):
            if p.vid == USB_VID and p.pid == USB_PID:
                out.append(Port(p.device, "usb", "%s (USB %s)" % (p.device, p.serial_number or ""),
                                "usb %s %s %s" % (p.device, p.serial_number, getattr(p, "location", None))))
    except Exception:      # a platform whose port list fails still finds simulators
        pass
    from nakk_host import simregistry
    for e in simregistry.registered_simulators():
        out.append(Port(e["path"], "sim", "simulator %s (%s)" % (e["path"], os.path.basename(e.get("image", ""))),
                        "sim %s %s %s %s" % (e["path"], e["pid"], e.get("sim_pid"), e.get("started"))))
    return out


def ports_from(urls):
    """Ports for the URLs named on the command line, or every discovered box when none is named."""
    if urls:
        return [Port(u) for u in urls]
    return discover()


class Box(Line):
    """One box on one port. Use as a context manager, or open()/close()."""

    who = None      # (device, fs_id) of the box this line first said hello to: the one it stays with

    def reopen(self):
        """Open the port again (serialline), and once the box has said who it is, make sure it is still
        that box before anything is sent again: a device path (or pty) freed by a box pulled out goes
        to the next box plugged in, and requests meant for one box must never reach another."""
        Line.reopen(self)
        if self.who is not None:
            self._same_box()

    def _same_box(self):
        """A hello outside the requests in flight (they are sent again only after it): OtherBox when
        another box answers, PortFailed when none does within a timeout (the port is tried again)."""
        end = time.monotonic() + self.timeout
        sends = 0
        rid = None
        while time.monotonic() < end:
            if rid is None or sends < 10 and self._garbled is not None:
                rid = self._new_id()          # a garbled line on a noisy cable: asked again
                self._garbled = None
                sends += 1
                self.write(b"\n" + proto.request(rid, "hello", {}))
            self._read_lines(min(end, time.monotonic() + 0.3))
            while self._lines:
                line = self._lines.pop(0)
                try:
                    got = proto.decode_frame(line)
                except proto.ProtoError:
                    self._garbled = time.monotonic()
                    continue
                if got.get("id") == 0:
                    self._garbled = time.monotonic()
                if got.get("id") != rid or got.get("ok") is not True:
                    continue
                if (got.get("device"), got.get("fs_id")) != self.who:
                    raise OtherBox("%s: another box (%s) is on this port now, not %s: it was pulled out"
                                   % (self.url, got.get("device"), self.who[0]))
                self._garbled = None
                return
        raise PortFailed("%s: the box does not answer since the port was opened again" % self.url)

    # ------------------------------------------------------------ commands
    def hello(self, nonce=None):
        """The box's hello: device, fs_id, fw, proto, journal, rulesets, free, unsynced, ready,
        paired, clock; with a nonce, a paired box adds mac (proto.hello_msg under its key)."""
        fields = {} if nonce is None else {"nonce": nonce}
        h = self.request("hello", fields)
        if h.get("proto") != proto.VERSION:
            raise DeviceError("%s: the box speaks protocol %s, this nakk speaks %d: update one of them"
                              % (self.url, h.get("proto"), proto.VERSION))
        if self.who is None:
            self.who = (h.get("device"), h.get("fs_id"))
        return h

    def list(self):
        """[(match number, result id)] of the finished matches the box offers, and whether there are more."""
        r = self.request("list")
        return [(int(m[0]), str(m[1])) for m in r.get("matches", [])], bool(r.get("more"))

    def get(self, n):
        """Match n as the box stores it: dict with rid, raw (bytes), sha256, sig, final, events."""
        return self._rest(n, self.request("get", {"n": n, "off": 0}))

    def get_many(self, ns, window=8):
        """{n: get(n)} for many matches, pipelined: the first chunks of `window` matches at once,
        then every further chunk of them at once (chunks are proto.CHUNK bytes, so their offsets
        are known from the size). The round trip, not the box, is what a sync waits for.
        Refused answers are {n: Refused}."""
        out = {}
        ns = list(ns)
        for i in range(0, len(ns), window):
            firsts = [(n, self.send("get", {"n": n, "off": 0})) for n in ns[i:i + window]]
            got = {}
            for n, rid in firsts:
                try:
                    got[n] = self.wait(rid)
                except Refused as e:
                    out[n] = e
            rest = [(n, off, self.send("get", {"n": n, "off": off}))
                    for n, first in got.items() for off in range(proto.CHUNK, first["size"], proto.CHUNK)]
            parts = {n: [first["data"].encode("ascii")] for n, first in got.items()}
            for n, off, rid in rest:
                r = self.wait(rid)
                self._check_chunk(n, got[n], r, off)
                parts[n].append(r["data"].encode("ascii"))
            for n, first in got.items():
                out[n] = self._whole(n, first, parts[n])
        return out

    def _check_chunk(self, n, first, r, off):
        if r.get("sha256") != first["sha256"] or r.get("size") != first["size"] or r.get("off") != off:
            raise DeviceError("%s: match %d changed while it was read" % (self.url, n))
        if len(r["data"]) != min(proto.CHUNK, first["size"] - off):
            raise DeviceError("%s: match %d: a chunk of the wrong length at offset %d" % (self.url, n, off))

    def _whole(self, n, first, parts):
        raw = b"".join(parts)
        if len(raw) != first["size"]:
            raise DeviceError("%s: match %d: %d bytes of %d arrived" % (self.url, n, len(raw), first["size"]))
        return {"n": n, "rid": first["rid"], "raw": raw, "size": first["size"], "sha256": first["sha256"],
                "sig": first.get("sig"), "final": first.get("final"), "events": first.get("events")}

    def _rest(self, n, first):
        parts = [first["data"].encode("ascii")]
        for off in range(proto.CHUNK, first["size"], proto.CHUNK):
            r = self.request("get", {"n": n, "off": off})
            self._check_chunk(n, first, r, off)
            parts.append(r["data"].encode("ascii"))
        return self._whole(n, first, parts)

    def ack_many(self, items, key, judge=None):
        """Acknowledge [(n, rid, sha256)] pipelined; {n: True (dropped now) / False (already)}."""
        from nakk.link.sign import hmac_sha256
        out = {}
        ids = []
        for n, rid, sha in items:
            fields = {"n": n, "rid": rid, "sha256": sha, "mac": hmac_sha256(key, proto.ack_msg(rid, sha)).hex()}
            if judge:
                fields["judge"] = judge[:64]
            ids.append((n, self.send("ack", fields)))
        for n, rid in ids:
            try:
                self.wait(rid)
                out[n] = True
            except Refused as e:
                if e.code != proto.E_NO_MATCH:
                    raise
                out[n] = False     # already dropped: an ack sent again after its answer was lost
        return out

    def ack(self, n, rid, sha256, key, judge=None):
        """Acknowledge a stored result (the box then drops it). True when the box dropped it now,
        False when it had already (a repeated ack)."""
        from nakk.link.sign import hmac_sha256
        fields = {"n": n, "rid": rid, "sha256": sha256,
                  "mac": hmac_sha256(key, proto.ack_msg(rid, sha256)).hex()}
        if judge:
            fields["judge"] = judge[:64]
        try:
            self.request("ack", fields)
            return True
        except Refused as e:
            if e.code == proto.E_NO_MATCH:
                return False
            raise

    def signed(self, cmd, fields, key, hello=None, timeout=None, retry=True):
        """A request that changes a paired box, signed with its key (proto.signed_msg) over the box's
        current challenge: from `hello` when given (it must be this box's latest), else a fresh hello."""
        from nakk.event import encode
        from nakk.link.sign import hmac_sha256
        h = hello if hello is not None else self.hello()
        body = dict(fields)
        body["cmd"] = cmd
        body["challenge"] = str(h.get("challenge", ""))
        mac = hmac_sha256(key, proto.signed_msg(str(h.get("device")), str(h.get("fs_id")), encode(body)))
        out = dict(fields)
        out["challenge"] = body["challenge"]
        out["mac"] = mac.hex()
        # a resend after a timeout is the same request: if the first reached the box, its challenge
        # is used up and the resend is refused, which the caller sees as bad-mac
        return self.request(cmd, out, timeout=timeout, retry=retry)

    def assign(self, assignment, key, hello=None):
        """Push the next match's assignment (setup fields: tournament, table, round, ruleset,
        settings, sides, seats, first_shuffler, boards, room, assignment; clock defaults to now),
        signed with the box's key."""
        fields = dict(assignment)
        fields.setdefault("clock", int(time.time()))
        return self.signed("assign", fields, key, hello, retry=False)

    def pair(self, key, nonce, judge, timeout=PAIR_TIMEOUT, consent=None, wifi=None):
        """Give the box its key, naming the judge (the box shows the name); returns once someone at
        the box held PREV+NEXT (Refused if not). consent: proto.consent_msg signed with the box's
        current key, for a box already paired with this judge. wifi: {"ssid", "password", "live":
        "HOST:PORT"}, the network a Pico W reports live scores over (docs/live.md)."""
        fields = {"key": key.hex(), "nonce": nonce, "judge": judge}
        if consent is not None:
            fields["consent"] = consent.hex()
        if wifi is not None:
            fields["wifi"] = dict(wifi)
        return self.request("pair", fields, timeout=timeout, retry=False)

    def repl(self, key=None, hello=None):
        """Ask the box for maintenance mode (it resets; mpremote then has the REPL): signed with key
        for a paired box, unsigned for one that is not paired."""
        if key is None:
            return self.request("repl", retry=False)
        return self.signed("repl", {}, key, hello, retry=False)


def assign(url, assignment, key, timeout=TIMEOUT):
    """Push one assignment, signed with key, to the box at url (the function `nakk assign` calls). Returns the box's answer."""
    with Box(url, timeout) as box:
        return box.assign(assignment, key)
