"""The box's trust in its judge (docs/security.md): the pairing key on flash, the one-use challenge, and the
requests only the judge may make -- pairing, maintenance mode, and the check of a signed request.

A mixin of nakk.link.Link (its own module so that each stays a size one can read): it uses the
link's board, app, journal, device, _error and _send, and gives it key, judge, challenge,
rejected, _signed (for `assign`), and the handlers of `pair` and `repl`.
"""

from nakk.compat import const

import hashlib
import time

from nakk import proto, record
from nakk.event import encode
from nakk.journal import write_atomic
from nakk.sign import KEY_LEN, eq, hmac_sha256

PAIR_MS = const(60000)    # the players have this long to confirm a pairing
_KEY_MAGIC = b"nakk-key 1 "
_JUDGE_MAX = const(40)    # characters of the judge's name a pair request may carry

_Q_PAIR = ("Paarida kohtuniku arvutiga?", "Pair with the judge's laptop?")   # the UI adds the judge, "Hoia PREV+NEXT"
_Q_FORGET = ("Unusta kohtunik?", "Forget the judge?")
_NOT_PAIRED = ("Pole paaritud", "Not paired")
_SYNC_FIRST = ("Enne sünkrooni: tulemusi ootel", "Sync first: results wait")
_FORGOTTEN = ("Kohtunik unustatud: nakk pair", "Judge forgotten: nakk pair")


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
        try:
            with open(self.key_path, "rb") as f:
                data = f.read(256)
        except OSError:
            return None
        recs, status = record.decode_all(data)
        if status != record.END or len(recs) != 1 or recs[0][0] != record.META:
            return None
        p = recs[0][1]
        if not p.startswith(_KEY_MAGIC):
            return None
        h = len(_KEY_MAGIC) + 2 * KEY_LEN     # the key's hex, then " " and the judge's name
        try:
            key = proto.unhexlify(p[len(_KEY_MAGIC):h])
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

    def c_pair(self, rid, obj):
        key = obj.get("key")
        nonce = obj.get("nonce")
        judge = obj.get("judge")
        if not isinstance(nonce, str) or not 8 <= len(nonce) <= 64:
            raise _Refuse(proto.E_BAD, "nonce: 8 to 64 characters")
        if not isinstance(judge, str) or not 1 <= len(judge) <= _JUDGE_MAX:
            raise _Refuse(proto.E_BAD, "judge: the judge's name, 1 to %d characters" % _JUDGE_MAX)
        try:
            key = proto.unhexlify(key) if isinstance(key, str) else b""
        except ValueError:
            key = b""
        if len(key) != KEY_LEN:
            raise _Refuse(proto.E_BAD, "key: %d bytes in hex" % KEY_LEN)
        if self.journal is None:
            raise _Refuse(proto.E_REFUSED, "this box's journal could not be opened: call the judge")
        if self.key is not None:
            # re-keying a paired box: only with its current judge's consent, signed with the old key
            c = obj.get("consent")
            try:
                given = proto.unhexlify(c) if isinstance(c, str) else b""
            except ValueError:
                given = b""
            want = hmac_sha256(self.key, proto.consent_msg(nonce, self.device, self.journal.fs_id,
                                                           _hex(hashlib.sha256(key).digest()), judge))
            if not eq(want, given):
                self._reject("this box is paired with judge %s: only that judge's consent (nakk pair from its "
                             "laptop) gives it another, or its own reset (docs/security.md)" % self.judge)
        ask = getattr(self.app, "ask", None)
        if ask is None:
            raise _Refuse(proto.E_REFUSED, "this box cannot ask its players")
        if self._pair is not None:
            raise _Refuse(proto.E_BUSY, "a pairing is already waiting for the players")
        self._pair = [rid, key, nonce, time.ticks_ms(), judge]
        if ask(_Q_PAIR, self._paired, PAIR_MS, judge) is False:
            self._pair = None
            raise _Refuse(proto.E_BUSY, "the box is not on its start screen (a match is in play, or a finished one "
                          "waits): pair it between matches, when it shows the start screen")
        return None     # the answer comes when the players have answered

    def _paired(self, yes):
        p = self._pair
        if p is None:
            return
        self._pair = None
        rid, key, nonce, judge = p[0], p[1], p[2], p[4]
        if not yes:
            self._error(rid, proto.E_REFUSED, "nobody at the box held PREV and NEXT to confirm the pairing")
            return
        try:
            self._save_key(key, judge)
        except OSError as e:
            self._error(rid, proto.E_FAILED, "could not save the key: %r" % (e,))
            return
        self._fresh()
        mac = hmac_sha256(key, proto.pair_msg(nonce, self.device, self.journal.fs_id))
        self._send(proto.reply(rid, {"paired": True, "device": self.device,
                                     "fs_id": self.journal.fs_id, "mac": _hex(mac)}))

    def c_repl(self, rid, obj):
        if self.key is not None:
            self._signed(obj)      # an unpaired box holds nothing of a judge's: it takes it unsigned
        if getattr(self.board, "request_maintenance", None) is None:
            raise _Refuse(proto.E_REFUSED, "this board has no maintenance mode")
        self.maintenance += 1
        self._reset = True
        return {"maintenance": True}


    # ------------------------------------------------------------ the box's own reset
    def reset_question(self):
        """PREV and NEXT held together on the start screen: the box's own reset of its pairing, for
        a judge whose laptop (and key) is gone. Only with no finished match on flash that the judge
        has not acknowledged (a reset then would let another laptop pair, ack and drop them): the
        box says "sync first". Else it asks, naming its judge; held again, the key is forgotten and
        any judge may pair it, at the box, as a fresh one."""
        app = self.app
        if self.key is None:
            app.say(_NOT_PAIRED)
            return
        j = self.journal
        if j is not None:
            for n, fin in j.matches():
                if fin:
                    app.say(_SYNC_FIRST)
                    return
        app.ask(_Q_FORGET, self._forget, PAIR_MS, self.judge)

    def _forget(self, yes):
        if not yes:
            return
        import os
        try:
            os.remove(self.key_path)
        except OSError:
            pass
        self.key = None
        self.judge = ""
        self._fresh()
        self.app.say(_FORGOTTEN)
