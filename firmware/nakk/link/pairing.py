"""Pairing a box with its judge, and the box's own reset of it (docs/security.md): loaded only when asked for.

A `pair` request is checked (a paired box needs its current judge's consent, signed with the old
key), then asked at the box over its start screen only, naming the judge; PREV and NEXT held
together say yes. PREV and NEXT held on the start screen ask to forget the judge (refused while a
result waits for it). The functions take the link (nakk.link.task.Link, with nakk.link.trust): its app,
journal, device, key, judge, _pair, _save_key, _fresh, _reject, _error and _send. Imported by
nakk.link.trust on the first pair request or reset of a boot, so a box that is not asked keeps its RAM.
"""

from nakk.compat import const

import hashlib
import time

from nakk.journal import write_atomic
from nakk.link import proto
from nakk.link.sign import KEY_LEN, eq, hmac_sha256
from nakk.link.trust import PAIR_MS, _Refuse, _hex

_JUDGE_MAX = const(40)    # characters of the judge's name a pair request may carry

_Q_PAIR = ("Paarida kohtuniku arvutiga?", "Pair with the judge's laptop?")   # the UI adds the judge, "Hoia PREV+NEXT"
_Q_FORGET = ("Unusta kohtunik?", "Forget the judge?")
_NOT_PAIRED = ("Pole paaritud", "Not paired")
_SYNC_FIRST = ("Enne sünkrooni: tulemusi ootel", "Sync first: results wait")
_FORGOTTEN = ("Kohtunik unustatud: nakk pair", "Judge forgotten: nakk pair")
_NOT_FORGOTTEN = ("Ei saanud kustutada", "Could not erase it")


def request(link, rid, obj):
    """A `pair` request (docs/protocol.md): checked, then asked at the box; None: the answer comes later."""
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
    if link.journal is None:
        raise _Refuse(proto.E_REFUSED, "this box's journal could not be opened: call the judge")
    wifi = _wifi(obj.get("wifi"))
    if link.key is not None:
        # re-keying a paired box: only with its current judge's consent, signed with the old key
        c = obj.get("consent")
        try:
            given = proto.unhexlify(c) if isinstance(c, str) else b""
        except ValueError:
            given = b""
        want = hmac_sha256(link.key, proto.consent_msg(nonce, link.device, link.journal.fs_id,
                                                       _hex(hashlib.sha256(key).digest()), judge))
        if not eq(want, given):
            link._reject("this box is paired with judge %s: only that judge's consent (nakk pair from its "
                         "laptop) gives it another, or its own reset (docs/security.md)" % link.judge)
    ask = getattr(link.app, "ask", None)
    if ask is None:
        raise _Refuse(proto.E_REFUSED, "this box cannot ask its players")
    if link._pair is not None:
        raise _Refuse(proto.E_BUSY, "a pairing is already waiting for the players")
    link._pair = [rid, key, nonce, time.ticks_ms(), judge, wifi]
    if ask(_Q_PAIR, lambda yes: answered(link, yes), PAIR_MS, judge) is False:
        link._pair = None
        raise _Refuse(proto.E_BUSY, "the box is not on its start screen (a match is in play, or a finished one "
                      "waits): pair it between matches, when it shows the start screen")
    return None     # the answer comes when the players have answered


def answered(link, yes):
    """The answer at the box (True: PREV and NEXT held): the key is kept, and the request answered."""
    p = link._pair
    if p is None:
        return
    link._pair = None
    rid, key, nonce, judge = p[0], p[1], p[2], p[4]
    if not yes:
        link._error(rid, proto.E_REFUSED, "nobody at the box held PREV and NEXT to confirm the pairing")
        return
    try:
        link._save_key(key, judge)
        _save_wifi(link, p[5])
    except OSError as e:
        link._error(rid, proto.E_FAILED, "could not save the key: %r" % (e,))
        return
    link._fresh()
    mac = hmac_sha256(key, proto.pair_msg(nonce, link.device, link.journal.fs_id))
    link._send(proto.reply(rid, {"paired": True, "device": link.device,
                                 "fs_id": link.journal.fs_id, "mac": _hex(mac)}))


def reset(link):
    """PREV and NEXT held together on the start screen: the box's own reset of its pairing, for
    a judge whose laptop (and key) is gone. Only with no finished match on flash that the judge
    has not acknowledged (a reset then would let another laptop pair, ack and drop them): the
    box says "sync first". Else it asks, naming its judge; held again, the key is forgotten and
    any judge may pair it, at the box, as a fresh one."""
    app = link.app
    if link.key is None:
        app.say(_NOT_PAIRED)
        return
    j = link.journal
    if j is not None:
        for n, fin in j.matches():
            if fin:
                app.say(_SYNC_FIRST)
                return
    app.ask(_Q_FORGET, lambda yes: _forget(link, yes), PAIR_MS, link.judge)


def _forget(link, yes):
    if not yes:
        return
    import os
    try:
        os.remove(link.key_path)
    except OSError:
        link.app.say(_NOT_FORGOTTEN)      # the key stays, on flash and here
        return
    link.key = None
    link.judge = ""
    try:
        _save_wifi(link, None)        # the judge's network and address go with its key
    except OSError:
        pass
    link._fresh()
    link.app.say(_FORGOTTEN)


def _wifi(w):
    """A pair request's network for the live scores (docs/live.md): None, or (ssid, password,
    "HOST:PORT"). Kept on the box, never shown, never sent back."""
    if w is None:
        return None
    from nakk.link import net
    if not isinstance(w, dict):
        raise _Refuse(proto.E_BAD, "wifi: {ssid, password, live}")
    ssid, pw, live = w.get("ssid"), w.get("password"), w.get("live")
    if not isinstance(ssid, str) or not 1 <= len(ssid) <= 32:
        raise _Refuse(proto.E_BAD, "wifi.ssid: 1 to 32 characters")
    if not isinstance(pw, str) or len(pw) > 63:
        raise _Refuse(proto.E_BAD, "wifi.password: at most 63 characters")
    try:
        net.split_address(live if isinstance(live, str) else "")
    except ValueError:
        raise _Refuse(proto.E_BAD, "wifi.live: the judge's HOST:PORT")
    return ssid, pw, live


def _save_wifi(link, wifi):
    """The network of a confirmed pairing, beside the key (none given: the old one is dropped, so a
    box never sends to a judge it is no longer paired with); the app starts or stops its live link."""
    path = link.app.root + "/net"          # nakk.link.net.config_path, without loading nakk.link.net for a box without
    if wifi is None:
        try:
            import os
            os.remove(path)
        except OSError:
            return                          # there was none: nothing changes
    else:
        from nakk.link import net
        write_atomic(path, net.config_record(wifi[0], wifi[1], wifi[2]))
    changed = getattr(link.app, "net_changed", None)
    if changed is not None:
        changed()
