"""The hall pages' words in Estonian (the default) and English: key -> (et, en)."""

WORDS = {
    "title": ("Nakk — saal", "Nakk — hall"),
    "standings": ("Edetabel", "Standings"),
    "season": ("Hooaeg", "Season"),
    "draw": ("Loosimine", "Draw"),
    "tables": ("Lauad", "Tables"),
    "results": ("Tulemused", "Results"),
    "projector": ("Projektor", "Projector"),
    "other_lang": ("English", "Eesti"),
    "live": ("otse", "live"),
    "offline": ("ühendus katkes, ootan…", "connection lost, waiting…"),
    "round": ("Voor", "Round"),
    "table": ("Laud", "Table"),
    "room": ("Tuba", "Room"),
    "place": ("Koht", "Place"),
    "name": ("Nimi", "Name"),
    "points": ("Punktid", "Points"),
    "played": ("Mänge", "Played"),
    "tiebreak": ("Võrdsete punktide korral otsustab:", "Ties are broken by:"),
    "no_tournament": ("Turniiri pole veel andmebaasis (kohtunik loob selle: nakk tournament new).",
                      "No tournament in the database yet (the judge creates one: nakk tournament new)."),
    "no_results": ("Tulemusi pole veel.", "No results yet."),
    "no_draw": ("Selle vooru loosimist pole veel.", "No draw for this round yet."),
    "tournament": ("Turniir", "Tournament"),
    "game": ("Mäng", "Game"),
    "sides": ("Pooled", "Sides"),
    "score": ("Skoor", "Score"),
    "winner": ("Võitja", "Winner"),
    "no_winner": ("võitjat pole", "no winner"),
    "status": ("Olek", "Status"),
    "live_tables": ("Lauad otse (Pico W kastid)", "Tables live (Pico W boxes)"),
    "live_note": ("Otse skoor tuleb kastist mängu ajal; tulemus on see, mille kohtunik sünkroonib.",
                  "The live score comes from the box during play; the result is what the judge syncs."),
    "deal_no": ("Jagamisi", "Deals"),
    "since_last": ("Viimasest", "Since last"),
    "quiet": ("vaikne: kas kõik on korras?", "quiet: is all well?"),
    "live_over": ("mäng läbi, ootab sünkrooni", "match over, waiting for the sync"),
    "live_synced": ("tulemus käes", "result in"),
    "provisional": ("Ajutine*", "Provisional*"),
    "provisional_note": ("* Ajutine: käimasoleva mängu skoor otse kastist, ei ole tulemus ega edetabelis.",
                         "* Provisional: the score of the match in play, live from the box; not a result, "
                         "not in the standings."),
    "received": ("Saabus", "Received"),
    "st_verified": ("tulemus käes, kontrollitud", "result in, verified"),
    "st_flagged": ("tulemus vajab kohtunikku", "flagged for the judge"),
    "st_playing": ("mängib", "playing"),
    "st_waiting": ("ootab", "waiting"),
    "st_bye": ("vaba voor", "bye"),
    "match": ("Partii", "Match"),
    "deals": ("Jagamised", "Deals"),
    "event": ("Sündmus", "Event"),
    "what": ("Mis juhtus", "What happened"),
    "gave": ("Andis", "Gave"),
    "total": ("Kokku", "Total"),
    "pokk_chain": ("Pokk", "Pokk"),
    "undone": ("tagasi võetud", "taken back"),
    "bonuses": ("Lõpuboonused", "End bonuses"),
    "final": ("Lõpptulemus", "Final score"),
    "ended": ("Lõppes", "Ended"),
    "problems": ("Probleemid", "Problems"),
    "raw_note": ("Iga rida on kasti salvestatud sündmus, arvutatud uuesti reeglitest.",
                 "Every row is an event the box stored, folded again by the rules."),
    "not_found": ("Sellist tulemust pole.", "No such result."),
    "back": ("Tagasi", "Back"),
    "page": ("lk", "page"),
    "vs": ("vs", "vs"),
    "flagged_note": ("kohtunik vaatab üle", "under the judge's review"),
    "readonly": ("See leht on ainult vaatamiseks.", "This page is read-only."),
    "deduction": ("mahaarvamine", "deduction"),
    "no_season": ("Sellel turniiril pole hooaega.", "This tournament belongs to no season."),
    "stages": ("Etapid", "Stages"),
    "stage_short": ("E", "S"),
    "pending": ("Tulemust ootavad lauad", "Tables still to come in"),
    "of": ("/", "of"),
    "bye": ("vaba voor", "bye"),
    "result_link": ("partii", "match"),
    "then": ("siis", "then"),
    "corrected": ("kohtuniku parandusega", "as corrected by the judge"),
    "correction": ("Kohtuniku parandus", "The judge's correction"),
    "box_final": ("Kasti lõpptulemus", "The box's final score"),
    "record": ("kanne", "record"),
}

# An entrant's status (players.entrants), as every page and export says it.
STATUS = {
    "active": ("osaleb", "active"), "withdrawn": ("loobus", "withdrawn"),
    "disqualified": ("diskvalifitseeritud", "disqualified"),
    "barred": ("ei osale (diskvalifitseeriti eelmises etapis)", "barred (disqualified in the previous stage)"),
}


def status_word(status, lang):
    pair = STATUS.get(status)
    return status if pair is None else pair[1] if lang == "en" else pair[0]


# Standings columns (nakk_host.standings COLUMNS) and tie-break criteria, (et, en).
COLUMNS = {
    "rank": ("Koht", "Place"), "no": ("Nr", "No"), "name": ("Nimi", "Name"), "club": ("Klubi", "Club"),
    "played": ("M", "P"), "wins": ("V", "W"), "losses": ("K", "L"), "draws": ("Viik", "D"), "byes": ("Vaba", "Bye"),
    "nakks": ("Nakke", "Nakks"), "against": ("Vastu", "Against"), "diff": ("Vahe", "Diff"),
    "deductions": ("Mahaarv.", "Deducted"), "mp": ("MP", "MP"), "points": ("Punkte", "Points"),
    "stages_played": ("Etappe", "Stages"),
}
# columns a phone leaves out (the table must fit 360 px without scrolling sideways)
NARROW_HIDDEN = ("no", "club", "byes", "against", "deductions", "draws", "stages_played", "losses")
CRITERIA = {
    "wins": ("partiivõidud", "partii wins"),
    "diff": ("nakkide vahe (võidetud − kaotatud − mahaarvamised)", "difference of nakks (won − lost − deductions)"),
    "nakks": ("võidetud nakid (miinus mahaarvamised)", "nakks won (less deductions)"),
    "against": ("vähem kaotatud nakke", "fewer nakks lost"),
    "h2h": ("omavahelised võidud", "wins between the tied"),
    "mp": ("matšipunktid (võit 2, viik 1)", "match points (win 2, draw 1)"),
    "points": ("punktid (miinus mahaarvamised)", "points (less deductions)"),
}


def order_words(order, lang):
    """A standings order in words: "partii wins, then difference of nakks, ..." in the page's language."""
    i = 1 if lang == "en" else 0
    sep = ", then " if lang == "en" else ", siis "
    return sep.join(CRITERIA.get(k, (k, k))[i] for k in order)


def word(key, lang):
    pair = WORDS.get(key)
    if pair is None:
        return key
    return pair[1] if lang == "en" else pair[0]
