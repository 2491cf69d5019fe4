"""Key scripts for the simulator and the hardware tests: `OK OK A A PREV:long A+B ...` -> [(button, long)],
and playing them on a box. Pure: touches nothing."""

from nakk.drivers.buttons import NAMES as BUTTONS   # A B C PREV OK NEXT, by index

CLUSTER = BUTTONS[3:]
SHORT_MS = 60      # a tap
LONG_MS = 1000     # a long press (the firmware's threshold is 800 ms)

_LONG_ALIASES = {"LPREV": "PREV", "LOK": "OK", "LNEXT": "NEXT"}


def _chord(name):
    """Whether name is side buttons pressed together (A+B, B+C, A+B+C ...) or PREV+NEXT (held
    together: the pairing's yes)."""
    parts = name.split("+")
    return (len(parts) > 1 and len(set(parts)) == len(parts) and all(p in BUTTONS[:3] for p in parts)) \
        or name == "PREV+NEXT"


class KeyScriptError(ValueError):
    pass


def parse_keys(text, source="keys"):
    """A key script -> [(button, long)]. Tokens: A B C PREV OK NEXT; long presses
    PREV:long OK:long NEXT:long (or LPREV LOK LNEXT), A:long B:long C:long (a side button
    held: "Trump · võit" held is a jänn win); side buttons pressed together
    (a chord) A+B, A+C, B+C, A+B+C; PREV+NEXT:long (held together: the pairing's yes);
    `#` starts a comment; any whitespace separates.
    Case does not matter."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0]
        for tok in line.split():
            t = tok.upper()
            long = False
            if t.endswith(":LONG"):
                t = t[:-5]
                long = True
                if t not in BUTTONS and t != "PREV+NEXT":
                    raise KeyScriptError("%s line %d: %r: a long press is of one button (A:long, OK:long) "
                                         "or PREV+NEXT:long" % (source, n, tok))
            elif t in _LONG_ALIASES:
                t = _LONG_ALIASES[t]
                long = True
            if t not in BUTTONS and not _chord(t):
                raise KeyScriptError("%s line %d: unknown key %r (keys: A B C PREV OK NEXT, "
                                     "OK:long, A:long, A+B for a chord)" % (source, n, tok))
            out.append((t, long))
    return out


def play(sim, keys, progress=None):
    """Press every key of a parsed script in order; progress(i, key) after each."""
    for i, (name, long) in enumerate(keys):
        sim.press(name, long)
        if progress is not None:
            progress(i, (name, long))
