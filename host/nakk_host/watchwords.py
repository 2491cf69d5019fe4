"""The words of the box watcher's events (nakk_host.watch), Estonian (the default) and English: kind -> (et, en).

Pure text: it touches nothing. Each template is filled with the event's fields: `who` (the
table the box plays, its name, or its port), `where` (the table a result names), `score`,
`port`, `why`, ...
"""

WORDS = {
    "plugged": ("Kast ühendati ({port})", "A box was plugged in ({port})"),
    "gone": ("{who}: kast eemaldati", "{who}: the box was unplugged"),
    "result": ("{where}: {score} vastu võetud, kontrollitud", "{where}: {score} received, verified"),
    "recount": ("{where}: {score} vastu võetud, AGA kohtuniku ülelugemine ei klapi kastiga: vaata üle ({why})",
                "{where}: {score} received, BUT the judge's recount does not agree with the box: check it ({why})"),
    "already": ("{where}: {score} oli juba salvestatud; kast kustutab selle nüüd",
                "{where}: {score} was already stored; the box drops it now"),
    "nothing": ("{who}: uusi tulemusi pole", "{who}: no new results"),
    "left": ("{who}: {count} tulemust jäi veel kasti: ühendage kast uuesti",
             "{who}: {count} results are still on the box: plug it in again"),
    "signature": ("{who}: HÄIRE: tulemuse {rid} allkiri ei klapi; seda ei salvestatud",
                  "{who}: ALARM: result {rid} has a bad signature; it was not stored"),
    "moved": ("{who}: HÄIRE: tulemus {rid} ei vasta kohtuniku määratud lauale ega voorule; seda ei salvestatud ({why})",
              "{who}: ALARM: result {rid} does not fit the table and round the judge assigned; not stored ({why})"),
    "twice": ("{who}: HÄIRE: sama tunnusega ({rid}) on salvestatud teine tulemus; salvestatu jääb",
              "{who}: ALARM: another result is stored under the same id ({rid}); the stored one stays"),
    "garbled": ("{who}: tulemus {rid} rikkus teel ära; see jääb kasti, ühendage kast uuesti",
                "{who}: result {rid} was damaged on the way; it stays on the box, plug it in again"),
    "rejected": ("{who}: HÄIRE: tulemust {rid} ei salvestatud ({why})",
                 "{who}: ALARM: result {rid} was not stored ({why})"),
    "damaged": ("{who}: HÄIRE: kastis on kahjustatud mäng (nr {matches}); selle järelejäänu on kastis alles",
                "{who}: ALARM: a damaged match on the box (no. {matches}); what is left of it stays on the box"),
    "broken": ("{who}: HÄIRE: kasti päevikut ei saa lugeda ({why}); kast ei anna midagi üle",
               "{who}: ALARM: the box's journal cannot be read ({why}); it hands over nothing"),
    "key": ("{who}: HÄIRE: kast ei tõestanud, et tal on selle kohtuniku võti: paarige see uuesti",
            "{who}: ALARM: the box did not prove it holds this judge's key: pair it again"),
    "reformatted": ("{who}: kast vormindati pärast paarimist ümber: paarige see uuesti",
                    "{who}: the box was reformatted since it was paired: pair it again"),
    "no-answer": ("{who}: kast ei vasta ({port})", "{who}: the box does not answer ({port})"),
    "failed": ("{who}: sünkroonimine katkes: {why}", "{who}: the sync broke off: {why}"),
    "stored-then-failed": ("{who}: {count} tulemust salvestati, siis ühendus katkes; ülejäänud tulevad järgmisel "
                           "ühendamisel", "{who}: {count} results stored, then the link broke; the rest come at the "
                           "next plug-in"),
    "hung": ("{who}: pole {seconds} s jooksul lõpetanud; teised kastid jätkavad",
             "{who}: not done within {seconds} s; the other boxes go on"),
    "pair-offer": ("Uus kast {box} ({port}) pole selle kohtunikuga paaritud: paarida?",
                   "New box {box} ({port}) is not paired with this judge: pair it?"),
    "foreign": ("{who}: paaritud teise kohtunikuga ({judge}); selle vabastab ainult too kohtunik või kasti "
                "lähtestus", "{who}: paired with another judge ({judge}); only that judge or the box's own reset "
                "frees it"),
    "pairing": ("{who}: kast küsib mängijatelt: hoidke PREV ja NEXT koos",
                "{who}: the box asks its players to hold PREV and NEXT together"),
    "paired": ("{who}: paaritud selle kohtunikuga", "{who}: paired with this judge"),
    "pair-failed": ("{who}: ei paaritud: {why}", "{who}: not paired: {why}"),
    "assign-offer": ("{where}: voor {round} on loositud ({sides}), kastil seda veel pole: saata?",
                     "{where}: round {round} is drawn ({sides}) and the box does not have it yet: send it?"),
    "assigned": ("{where}: voor {round} saadetud kastile ({sides}); OK kastil alustab",
                 "{where}: round {round} sent to the box ({sides}); OK on the box starts it"),
    "assign-failed": ("{where}: vooru {round} ei saadetud: {why}", "{where}: round {round} was not sent: {why}"),
    "crash": ("Jälgija viga ({who}): {why}", "The watcher failed ({who}): {why}"),
}

# kinds that are alarms: the console shows them in red until the judge has looked
ALARMS = {"recount", "signature", "moved", "twice", "rejected", "damaged", "broken", "key", "crash"}

TABLE = ("Laud", "Table")
BOX = ("Kast", "Box")
ROOM = ("tuba", "room")


def say(kind, fields):
    """(et, en) for an event of this kind; a field the template names and the event lacks reads "?"."""
    et, en = WORDS[kind]
    return et.format_map(_Fields(fields, 0)), en.format_map(_Fields(fields, 1))


class _Fields(dict):
    """The event's fields for str.format_map; a pair (et, en) gives the one of the language."""

    def __init__(self, fields, lang):
        dict.__init__(self, fields)
        self.lang = lang

    def __getitem__(self, k):
        v = dict.get(self, k)
        if isinstance(v, tuple):
            v = v[self.lang]
        return "?" if v is None else v

    def __missing__(self, k):
        return "?"


def place(table, room=0):
    """("Laud 3", "Table 3") for a table; Turniirisasku's rooms: ("Laud 3, tuba 2", "Table 3, room 2")."""
    if table is None:
        return None
    return tuple("%s %s%s" % (TABLE[i], table, ", %s %s" % (ROOM[i], room) if room else "") for i in (0, 1))


def score(final):
    """A score as the judge writes it: "16 : 12" (Schmier: three numbers)."""
    if not final:
        return ("pooleli", "not over")
    return " : ".join(str(x) for x in final)


# a box's state in boxes(): what the console shows beside it
STATES = {
    "new": ("ühendati", "plugged in"),
    "checking": ("vaatan, mis kast see on", "looking at it"),
    "syncing": ("võtan tulemusi vastu", "taking its results"),
    "synced": ("sünkroonitud", "synced"),
    "unpaired": ("paarimata", "not paired"),
    "foreign": ("teise kohtuniku kast", "another judge's box"),
    "pairing": ("paaritan: kast küsib mängijatelt", "pairing: the box asks its players"),
    "assigning": ("saadan vooru", "sending the round"),
    "failed": ("viga", "failed"),
    "hung": ("ei vasta", "not answering"),
}
