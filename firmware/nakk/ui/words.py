"""The words on the box's screen, each as (Estonian, English): index with the UI's language (0, 1).

What the screens say about a game (its steps, choices, offences, redeal
reasons, the header's counter) is the ruleset's; these are the words every
game shares. The rules' own reasons for refusing an entry are English, the
judge's language (shown after REFUSED).
"""

from nakk.event import SIDES

ET = 0   # Ui.lang: Estonian (the default)
EN = 1   # English

SAVING = ("salvestan", "saving")
HOLD = ("hoia:", "hold:")        # before a held side button's answer, while it is down
SIDE = ("Vajuta poole nuppu", "Press a side button")
PRESS_OK = ("Vajuta OK", "Press OK")
CHORD = ("Üks pool korraga", "One side at a time")
STUCK = ("Nupp kinni: ", "Button stuck: ")
FREED = ("Nupp töötab", "Button works again")
NOSIDE = ("Sellist poolt pole", "No such side here")
UNDO = ("Tühistada?", "Undo?")
UNDONE = ("Tühistatud", "Undone")
WOKE = ("Ärkas: vajuta uuesti", "Awake: press again")   # the press that woke the screen did nothing else
NOTHING = ("Pole midagi tühistada", "Nothing to undo")
MENU = ("Menüü", "Menu")
PENALTY = ("Karistus", "Penalty")
NOPEN = ("Selles mängus karistusi pole", "No penalties in this game")
FORFEIT = ("Loobub (poole nupp)", "Forfeit (side button)")
LANG = ("Keel: eesti", "Language: English")
SOUND_ON = ("Heli: sees", "Sound: on")
SOUND_OFF = ("Heli: väljas", "Sound: off")
BACK = ("Tagasi", "Back")
OVER = ("Mäng läbi", "Match over")
CONFIRM = ("Kinnitan", "Confirm")
DISPUTE = ("Vaidlustan", "Dispute")
WINNER = ("Võitis ", "Won: ")
DRAW = ("Viik", "Draw")
JUDGE = ("Ootab kohtunikku", "Waits for the judge")
NEW = ("Pikk OK: uus mäng", "Long OK: new match")
FULL = ("Mälu täis: sünkrooni", "Flash full: sync first")
SAVEFAIL = ("Salvestus ebaõnnestus", "Could not save")
REFUSED = ("Reeglid ei luba", "The rules do not allow it")
# a refusal in a short sentence by the field the rules refused (their detailed English reason
# goes to the judge's tool); a field not listed here gets REFUSED
_REFUSALS = {
    "game": ("See mäng ei sobi", "Not this game"),
    "maker": ("Tegija ei sobi", "Not this maker"),
    "contract": ("See mäng ei sobi", "Not this game"),
    "result": ("Tulemus ei sobi", "Not this result"),
    "winner": ("Võitja ei sobi", "Not this winner"),
    "eyes": ("Silmad ei sobi", "The eyes do not add up"),
    "tricks": ("Tihid ei sobi", "The tricks do not add up"),
    "by": ("See pool ei saa", "Not this side"),
    "offence": ("Seda karistust pole", "No such penalty here"),
    "cards": ("Kaartide arv ei sobi", "Not this number of cards"),
    "reason": ("See põhjus ei sobi", "Not this reason"),
    "target": ("Tühistada ei saa", "Cannot undo that"),
}
ABANDON = ("Katkesta: vale algus", "Abandon: wrong start")
NEWMATCH = ("Uus mäng", "New match")
ASSIGN = ("Kohtuniku määrang", "Judge's assignment")
RULES = ("Mäng", "Game")
TABLE = ("Laud", "Table")
ROUND = ("Voor", "Round")
ROOM = ("Tuba", "Room")      # "mõlemas toas" (Turniirisasku)
BOARDS = ("Jaotusi", "Boards")
FIRST = ("Esimene segaja", "First to shuffle")
SHUFFLES = ("Segab ", "Shuffles ")
HOLD_PN = ("Hoia PREV+NEXT koos", "Hold PREV+NEXT together")
ERROR = ("Viga", "Error")


def refusal(field):
    """The box's words for an entry the rules refused at `field` (nakk.event.EventError.field)."""
    w = _REFUSALS.get(field)
    if w is None and field.startswith("settings"):
        return REFUSED
    return w if w is not None else REFUSED


def text(w, lang):
    """The on-screen text of w: an (et, en) pair, or plain text (a name, a number) as it is."""
    if isinstance(w, tuple):
        return w[lang]
    return w


_SEATS = {2: ("A1", "B1", "A2", "B2"), 3: ("A1", "B1", "C1", "A2", "B2", "C2")}


def seat_name(seat, sides):
    """Seat s belongs to side s % sides; A1 B1 A2 B2 (C1 C2 with three sides).
    From a table for the boxes that exist: render draws it on every deal, so it must not allocate."""
    names = _SEATS.get(sides)
    if names is not None and 0 <= seat < len(names):
        return names[seat]
    return SIDES[seat % sides] + str(seat // sides + 1)
