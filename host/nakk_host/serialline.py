"""The judge's end of one serial line to a box: requests written, answers matched to them, and whatever
was lost or garbled on the way sent again (nakk_host.device.Box is a Line with the protocol's commands).

Frames are nakk.link.proto's (docs/protocol.md). Every request waits for the
response with its id, ignoring other lines (console output, echoes, stale
answers). A request is patient on a noisy cable: a lost or garbled frame is
sent again (under a new id), at once when the loss is certain, with a growing
pause when the box is silent, for up to a time budget (BUDGET_TIMEOUTS
timeouts); see Line.wait. A box silent twice in a row has its port closed and
opened again (a box whose USB output stalled while it booted comes back that
way), and so does a port that fails (a cable that came loose for a moment).
Then DeviceError says so in plain words.
"""

import secrets
import time

import serial

from nakk.link import proto

try:
    import termios    # a pty whose other end went away fails flush() with termios.error (no OSError)
    _PORT_ERRORS = (serial.SerialException, OSError, termios.error)
except ImportError:   # Windows
    _PORT_ERRORS = (serial.SerialException, OSError)

TIMEOUT = 3.0      # seconds for an answer
BUDGET_TIMEOUTS = 5  # a request gives up after this many timeouts' time (sends again meanwhile)
MAX_SENDS = 60     # and after this many sends (at a byte error rate of 1e-3 a 1.2 KB answer
                   # arrives whole one time in three: 60 sends fail together about once in 10^10)
QUIET = 0.25       # seconds without a byte after a garbled line: the oldest request sent before it is lost


class DeviceError(Exception):
    """A box could not be reached or did not answer sensibly (the message says which, in plain words)."""


class Refused(DeviceError):
    """The box answered with an error frame: .code (proto.ERRORS) and .why."""

    def __init__(self, code, why, url=""):
        DeviceError.__init__(self, "%s: the box refused: %s" % (url, why) if url else why)
        self.code = code
        self.why = why


class PortFailed(DeviceError):
    """The port itself failed (a read or write error: the cable came out)."""


class Timeout(DeviceError):
    """No answer within the request's budget, however often it was sent."""


class OtherBox(DeviceError):
    """The port was opened again and another box answers on it (device.Box checks who it is)."""


class _Req:
    """One request in flight: what to send again, how often it was, and its answer once it came."""

    def __init__(self, cmd, fields, retry):
        self.cmd = cmd
        self.fields = fields
        self.retry = retry
        self.first = self.at = time.monotonic()   # first sent; last sent
        self.ids = []            # every id it was sent under, the latest last
        self.sends = 1
        self.due = None          # when to send it again (it was lost), or None
        self.answer = None


class Line:
    """One serial line to a box: open()/close() or a context manager; send()/wait()/request()."""


    def __init__(self, url, timeout=TIMEOUT):
        self.url = url
        self.timeout = timeout
        self.ser = None
        self._next = secrets.randbelow(1 << 20) + 1     # request ids: a fresh run never reuses a stale answer
        self._buf = bytearray()
        self._lines = []
        self._reqs = {}         # handle (its first id) -> _Req, sent and not yet taken by wait()
        self._ids = {}          # every id in flight -> its request's handle
        self._order = []        # ids in flight, in the order they were written (the box answers in order)
        self._garbled = None    # when a line that was no answer came (damaged, or the box could not read one)
        self._garbles = 0       # how many, since the last answer
        self._rx_at = 0.0       # when the last bytes came
        self._heard_at = 0.0    # when the last answer came (any id: the box is alive)
        self._sent = {}         # id in flight -> when it was written
        self._srtt = 0.1        # smoothed seconds from a write to its answer (the box's pace)
        self._silent = 0        # timeouts in a row with no byte from the box
        self.reopened = 0
        self.resent = 0      # requests sent again (a frame lost or garbled on the way)
        self.sent = 0        # bytes written
        self.received = 0    # bytes read

    # ------------------------------------------------------------ transport
    def open(self):
        try:
            self.ser = serial.serial_for_url(self.url, baudrate=115200, timeout=0.02, write_timeout=self.timeout)
        except _PORT_ERRORS + (ValueError,) as e:
            raise DeviceError("%s: cannot open the port: %s" % (self.url, e)) from None
        self._buf = bytearray()
        self._lines = []
        self._clear_line()
        return self

    def _clear_line(self):
        """End whatever partial line the box holds (a cut in mid-frame leaves one, which would swallow
        the next request), and drop what is waiting from it (answers to an earlier run)."""
        self.write(b"\n")
        end = time.monotonic() + 0.2
        quiet = time.monotonic() + 0.04
        try:
            while time.monotonic() < min(end, quiet):
                if self.ser.read(max(1, self.ser.in_waiting)):
                    quiet = time.monotonic() + 0.04
        except _PORT_ERRORS as e:
            raise PortFailed("%s: the port failed: %s" % (self.url, e)) from None

    def close(self):
        if self.ser is not None:
            try:
                self.ser.close()
            except Exception:
                pass
            self.ser = None

    def reopen(self):
        """Close the port and open it again; the requests in flight are sent again."""
        self.close()
        self.reopened += 1
        self.open()
        for r in self._reqs.values():
            if r.answer is None and r.due is None:
                r.due = time.monotonic()

    def __enter__(self):
        if self.ser is None:
            self.open()
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def write(self, data):
        try:
            self.ser.write(data)
            self.ser.flush()
        except _PORT_ERRORS as e:
            raise PortFailed("%s: cannot write to the port: %s" % (self.url, e)) from None
        self.sent += len(data)

    def _read_lines(self, deadline):
        """Whole lines read so far (bytes, no line end); waits for some until deadline."""
        ser = self.ser
        while not self._lines:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            try:
                n = ser.in_waiting
                data = ser.read(n if n else 1)
            except _PORT_ERRORS as e:
                raise PortFailed("%s: the port failed: %s" % (self.url, e)) from None
            if not data:
                continue
            self.received += len(data)
            self._rx_at = time.monotonic()
            self._buf += data
            while True:
                i = self._buf.find(b"\n")
                if i < 0:
                    if len(self._buf) > proto.MAX_LINE + 2:
                        del self._buf[:]           # an overlong line: not a frame, drop it
                    break
                line = bytes(self._buf[:i])
                del self._buf[:i + 1]
                if line.endswith(b"\r"):
                    line = line[:-1]
                if len(line) <= proto.MAX_LINE and proto.is_frame(line):
                    self._lines.append(line)
                elif line.strip():
                    # not a frame: one whose marker was damaged (or console output); kept in its
                    # place among the answers, where it reads as a garbled one
                    self._lines.append(line[:16])
        return True

    # ------------------------------------------------------------ requests
    #
    # Each request is a _Req under a handle (its first id). A request sent again gets a new id (its
    # answer to an earlier id still counts), so the order of ids is the order of the writes, and
    # the box answers in that order. Hence, while waiting:
    #   - an answer to id X: every request whose latest id was written before X, and that has no
    #     answer yet, was lost (or its answer was garbled): it is sent again at once;
    #   - a garbled line (damaged on the way, no marker, or the box's "could not read it" error
    #     with id 0) stands for the oldest request still unanswered: sent again at once;
    #   - a line left without its end, or garbled lines with no request to blame, for QUIET
    #     seconds without a byte: the oldest request still unanswered was the victim;
    #   - a box that is talking and then says nothing for 4 of its usual answer times (at least
    #     0.3 s): the request never reached it whole;
    #   - no answer within a timeout: sent again after a pause that doubles (the box may be busy);
    #     twice silent in a row, the port is reopened first.
    # Sending again after noise waits at most 20 ms; a request gives up after BUDGET_TIMEOUTS
    # timeouts' time or MAX_SENDS sends. Every request starts with a line break, so a lost byte
    # cannot glue it to what came before.

    def _new_id(self):
        rid = self._next
        self._next = rid + 1 if rid + 1 < proto.ID_MAX else 1
        return rid

    def _write_request(self, h, r):
        rid = self._new_id()
        r.ids.append(rid)
        self._ids[rid] = h
        self._order.append(rid)
        self._sent[rid] = time.monotonic()
        self.write(b"\n" + proto.request(rid, r.cmd, r.fields))
        return rid

    def send(self, cmd, fields=None, retry=True):
        """Write one request; returns its handle for wait(). retry=False: never sent again."""
        r = _Req(cmd, fields, retry)
        h = self._next
        self._reqs[h] = r
        try:
            self._write_request(h, r)
        except PortFailed:
            r.due = time.monotonic()     # wait() reopens the port and sends it again
        return h

    def wait(self, rid, timeout=None):
        """The response to the request with handle rid (a dict with ok true); Refused for an error
        frame, Timeout when none came within the budget however often it was sent."""
        r = self._reqs.get(rid)
        if r is None:
            raise DeviceError("%s: no request %s is waiting" % (self.url, rid))
        per = self.timeout if timeout is None else timeout
        budget = max(per, self.timeout * BUDGET_TIMEOUTS) if r.retry else per
        try:
            while True:
                now = time.monotonic()
                self._take_lines(now)
                if r.answer is not None:
                    break
                if now - r.first > budget or (not r.retry and now - r.at > per):
                    raise Timeout("%s: the box does not answer (%s)%s" % (
                        self.url, r.cmd, " (sent %d times in %.0f s)" % (r.sends, now - r.first) if r.sends > 1 else ""))
                try:
                    self._tend(now, per)
                    due = [x.due for x in self._reqs.values() if x.due is not None and x.answer is None]
                    self._read_lines(min([now + 0.05] + due))     # back in time for a send that is due
                except PortFailed:
                    self._port_failed(r, budget)
        finally:
            self._forget(rid, r)
        obj = r.answer
        if obj["ok"] is True:
            return obj
        raise Refused(str(obj.get("error")), str(obj.get("why", "")), self.url)

    def _forget(self, h, r):
        self._reqs.pop(h, None)
        for i in r.ids:
            self._ids.pop(i, None)
            self._sent.pop(i, None)

    def _take_lines(self, now):
        """Match the lines read so far to the requests in flight."""
        while self._lines:
            line = self._lines.pop(0)
            try:
                got = proto.decode_frame(line)
            except proto.ProtoError:
                self._garble(now)            # damaged on the way
                continue
            if "ok" not in got:
                continue                     # a request (an echo): not an answer
            self._heard_at = now
            rid = got.get("id")
            if rid == 0:
                self._garble(now)            # the box could not read a line that looked like a frame
                continue
            h = self._ids.get(rid)
            r = self._reqs.get(h) if h is not None else None
            if r is None:
                continue                     # stale: an earlier run's, or the box's answer to noise
            self._silent = 0
            at = self._sent.pop(rid, None)
            if at is not None:
                self._srtt += (now - at - self._srtt) / 8
            self._garbled = None             # what was garbled before this answer: the order below tells
            self._garbles = 0
            if r.answer is None:
                r.answer = got
                r.due = None                 # answered after all (to an earlier id): not sent again
            if rid in self._order:
                k = self._order.index(rid)
                before = self._order[:k]
                del self._order[:k + 1]
                for x in before:             # written before this one and not answered: lost
                    hx = self._ids.get(x)
                    rx = self._reqs.get(hx) if hx is not None else None
                    if rx is not None and rx.ids[-1] == x:
                        self._lost(rx, now)

    def _garble(self, now):
        """A line that is no answer came: the box answers in order, so it stands for the oldest
        request still unanswered (a console line or a line cut in two costs a request sent twice)."""
        self._garbled = now
        for rid in self._order:
            h = self._ids.get(rid)
            r = self._reqs.get(h) if h is not None else None
            if r is not None and r.ids[-1] == rid and r.answer is None and r.due is None and r.retry:
                self._order.remove(rid)
                self._lost(r, now)
                return
        self._garbles += 1     # none to blame yet: the quiet rule below decides

    def _lost(self, r, now):
        """r was lost or garbled while the box is talking: send it again soon (a pause that grows
        with its sends, up to 20 ms: noise, not a busy box; silence backs off more, see _tend)."""
        if r.answer is None and r.due is None and r.retry:
            r.due = now + min(0.0025 * (1 << min(r.sends, 3)), 0.02)

    def _tend(self, now, per):
        """Send again what is due, and decide what is lost by silence or by a garbled line."""
        if self._buf and now - self._rx_at >= QUIET:
            del self._buf[:]                 # a line whose end was lost on the way
            self._garble(now)
        if self._garbled is not None and now - max(self._garbled, self._rx_at) >= QUIET:
            waiting = sorted((r.at, id(r), r) for r in self._reqs.values()
                             if r.answer is None and r.due is None and r.retry and r.at < self._garbled)
            for _, _, r in waiting[:max(1, self._garbles)]:   # two answers glued into one line
                self._lost(r, now)
            self._garbled = None
            self._garbles = 0
        silent = False
        # a request the box never read (its marker or its line end lost on the way) gets no answer
        # at all: on a box that is talking, once the link was quiet for several of its usual
        # answer times, it is lost (a box silent for a timeout is backed off from instead)
        rto = min(per, max(0.3, 4 * self._srtt))
        talking = now - self._heard_at < per
        for h, r in list(self._reqs.items()):
            if r.answer is not None:
                continue
            if talking and r.due is None and r.retry and now - max(r.at, self._rx_at) > rto:
                self._lost(r, now)
            if r.due is None and r.retry and now - r.at > per:
                if self._heard_at < r.at:
                    silent = True            # not a word from the box since
                r.due = now + min(0.25 * (1 << min(self._silent, 3)), 2.0)   # the box may be busy: back off
            if r.due is not None and now >= r.due:
                if r.sends >= MAX_SENDS:
                    raise Timeout("%s: the box does not answer (%s) (sent %d times)" % (self.url, r.cmd, r.sends))
                r.due = None
                r.sends += 1
                r.at = now
                self.resent += 1
                self._write_request(h, r)
        if silent:
            self._silent += 1
            if self._silent >= 2:
                self._silent = 0
                self.reopen()

    def _port_failed(self, r, budget):
        """The port failed (a cable that came loose): open it again a few times, then give up."""
        for pause in (0.2, 0.5):
            time.sleep(pause)
            if time.monotonic() - r.first > budget:
                break
            try:
                self.reopen()
                return
            except OtherBox:
                raise                        # not the box this line was talking to: never go on
            except DeviceError:
                continue
        raise DeviceError("%s: the port failed and cannot be opened again (is the cable in?)" % self.url)

    def request(self, cmd, fields=None, timeout=None, retry=True):
        """Send a request and wait for its answer (sent again when lost, see above; retry=False: not)."""
        return self.wait(self.send(cmd, fields, retry), timeout)
