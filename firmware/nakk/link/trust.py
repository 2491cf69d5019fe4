"""The box's trust in its judge (docs/security.md): the pairing key on flash, the one-use challenge, and the
requests only the judge may make -- maintenance mode, and the check of a signed request.

A mixin of nakk.link.task.Link (its own module so that each stays a size one can read): it uses the
link's board, app, journal, device, _error and _send, and gives it key, judge, challenge,
rejected, _signed (for `assign`), the handler of `repl`, and the doors to nakk.link.pairing.
"""

from nakk.compat import const, let_go

from nakk.link import proto
from nakk import record
from nakk.event import encode
from nakk.journal import read_meta, write_atomic
from nakk.link.sign import KEY_LEN, eq, hmac_sha256

PAIR_MS = const(60000)    # the players have this long to confirm a pairing
_KEY_MAGIC = b"nakk-key 1 "



class _Refuse(Exception):
    """A request that gets an error response: code and why."""

    def __init__(self, code, why):
        super().__init__(why)
        self.code = code
        self.why = why


def _hex(b):
    return proto.hexlify(b).decode()


class Trust:
    # ------------------------------------------------------------ key
    def _load_key(self):
        p = read_meta(self.key_path, _KEY_MAGIC, 256)
        if p is None:
            return None
        h = 2 * KEY_LEN     # the key's hex, then " " and the judge's name
        try:
            key = proto.unhexlify(p[:h])
            judge = str(p[h + 1:], "utf-8") if len(p) > h else ""
        except (ValueError, UnicodeError):
            return None
        if len(key) != KEY_LEN:
            return None
        self.judge = judge
        return key

    def _save_key(self, key, judge):
        write_atomic(self.key_path, record.encode(record.META, _KEY_MAGIC + proto.hexlify(key) + b" "
                                                  + judge.encode()))
        self.key = key
        self.judge = judge

    # ------------------------------------------------------------ signed requests
    def _fresh(self):
        """A new challenge: the judge's next signed request must carry it (one use, and none
        survives a reboot), so a recorded request cannot be sent again."""
        try:
            import os
            b = os.urandom(8)
        except (ImportError, AttributeError):
            import random
            b = bytes(random.getrandbits(8) for _ in range(8))
        self.challenge = _hex(b)

    def _reject(self, why):
        self.rejected += 1
        raise _Refuse(proto.E_BAD_MAC, why)

    def _signed(self, obj):
        """Refuse (E_BAD_MAC, counted) unless obj is signed with this box's key over its canonical
        body and the box's current challenge (proto.signed_msg); then the challenge is used up."""
        mac = obj.get("mac")
        ch = obj.get("challenge")
        if not isinstance(mac, str) or not isinstance(ch, str):
            self._reject("not signed: this box is paired, and only its judge (%s) changes it" % self.judge)
        try:
            given = proto.unhexlify(mac)
        except ValueError:
            given = b""
        body = {}
        for k in obj:
            if k != "id" and k != "mac":
                body[k] = obj[k]
        fs_id = self.journal.fs_id if self.journal is not None else ""
        want = hmac_sha256(self.key, proto.signed_msg(self.device, fs_id, encode(body)))
        ok = eq(want, given)
        if not eq(ch.encode(), self.challenge.encode()):
            ok = False
        if not ok:
            self._reject("not signed by this box's judge (%s), or with an old challenge: ask hello again"
                         % self.judge)
        self._fresh()

    def _mpremote(self):
        # bytes alone reset only a box that holds no judge's key (a fresh box is flashed so);
        # a paired one needs its judge's signed `repl`, or OK held at power-on
        if self.key is not None:
            self.rejected += 1
            self._error(0, proto.E_BAD_MAC, "this box is paired: maintenance needs its judge's signed repl "
                        "request (nakk flash) or OK held at power-on")
            return
        self.maintenance += 1
        if getattr(self.board, "request_maintenance", None) is not None:
            self._reset = True

    # pairing and the box's own reset: nakk.link.pairing, imported only when asked for (most boots
    # of a paired box never are: its code then takes no RAM) and let go after each call (a question
    # it asked holds its answer's function, and so its code, until it is answered)
    def c_pair(self, rid, obj):
        from nakk.link import pairing
        try:
            return pairing.request(self, rid, obj)
        finally:
            let_go("nakk.link.pairing")

    def reset_question(self):
        """PREV and NEXT held together on the start screen (the app's hook): nakk.link.pairing.reset."""
        from nakk.link import pairing
        try:
            pairing.reset(self)
        finally:
            let_go("nakk.link.pairing")

    def pair_timed_out(self):
        """The pairing question's own time-out did not come: the answer is no."""
        from nakk.link import pairing
        try:
            pairing.answered(self, False)
        finally:
            let_go("nakk.link.pairing")

    def c_repl(self, rid, obj):
        if self.key is not None:
            self._signed(obj)      # an unpaired box holds nothing of a judge's: it takes it unsigned
        if getattr(self.board, "request_maintenance", None) is None:
            raise _Refuse(proto.E_REFUSED, "this board has no maintenance mode")
        self.maintenance += 1
        self._reset = True
        return {"maintenance": True}
