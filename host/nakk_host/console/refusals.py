"""The modules' refusals in Estonian: the console shows the judge each one in the session's language.

The modules (players, draw, acts, enter, assign, tournament) refuse in
English plain words, which the CLI prints as they are. Each pattern here
matches one such sentence (its %-fields as groups) and gives the Estonian;
a sentence no pattern knows is shown as it is, in English.
"""

import re

_RULES = [
    (r"no pair or team '?(.+?)'? in (.+)", "paari või võistkonda {0} turniiril {1} pole"),
    (r"the file is empty .*", "fail on tühi (vaja on päiserida, nt nimi;mängija;mängija;klubi)"),
    (r"line 1: no name or player column in the header (.+)", "rida 1: päises {0} pole nime ega mängija veergu"),
    (r"the file has a header but no entrants", "failis on päis, aga ühtegi paari"),
    (r"(.+) holds a control character \((.+)\): not a name", "{0} sisaldab juhtmärki ({1}): see pole nimi"),
    (r"(\d+) pairs \(teams\) are called (.+) \(numbers (.+)\): give the number",
     "{0} paari nimi on {1} (numbrid {2}): anna number"),
    (r"say who does this.*", "ütle, kes seda teeb"),
    (r"say why.*", "miks? põhjus jääb ajalukku"),
    (r"(.+) is withdrawn already", "{0} on juba loobunud"),
    (r"(.+) is disqualified already", "{0} on juba diskvalifitseeritud"),
    (r"the new name is empty", "uus nimi on tühi"),
    (r"a (\w+) entrant has (\d+) players", "paaris (võistkonnas) on {1} mängijat"),
    (r"the file is neither UTF-8 nor Windows-1257 text \(byte (\w+) at (\d+)\)",
     "fail pole UTF-8 ega Windows-1257 tekst (bait {0} kohal {1})"),
    (r"line 1: unknown column (.+) \(known: .*\)", "rida 1: tundmatu veerg {0} (tuntud: nimi, klubi, mängija, nr)"),
    (r"line (\d+): (\d+) cells, the header has (\d+)", "rida {0}: {1} lahtrit, päises on {2}"),
    (r"line (\d+): (\d+) players; a \w+ entrant has (\d+)", "rida {0}: {1} mängijat, peab olema {2}"),
    (r"no (\d+) is called (.+) already: give another name", "nr {0} nimi on juba {1}: anna teine nimi"),
    (r"line (\d+): no name and no players", "rida {0}: pole nime ega mängijaid"),
    (r"a pair \(team\) needs a name", "paaril (võistkonnal) peab olema nimi"),
    (r"(.+): (\d+) players; a \w+ entrant has (\d+)", "{0}: {1} mängijat, peab olema {2}"),
    (r"(.+) is registered already \(as no (\d+), (.+)\)", "{0} on juba kirjas (nr {1}, {2})"),
    (r"(.+) has (\d+) rounds, all drawn", "turniiril {0} on {1} vooru, kõik loositud"),
    (r"not enough entrants to draw \((\d+) active\)", "loosimiseks on liiga vähe paare ({0} mängib)"),
    (r"round (\d+) is not in yet: tables? (.+) \((.+)\); a (.+) draw needs its standings",
     "{0}. voor pole veel käes: laud {1} ({2}); loosimine vajab selle edetabelit"),
    (r"round (\d+) is drawn already \(the latest drawn is (\d+)\)", "{0}. voor on juba loositud (viimane on {1}.)"),
    (r"round (\d+) cannot be drawn before round (\d+)", "{0}. vooru ei saa loosida enne {1}. vooru"),
    (r"a deduction is a positive number.*", "mahaarvamine on positiivne punktide arv (tühistamiseks: tühista kirje)"),
    (r"a deduction of (\d+) is more than any match gives \(at most (\d+)\)",
     "mahaarvamine {0} on suurem, kui ükski partii annab (kuni {1})"),
    (r"no result '?(.+?)'? \(see .*\)", "tulemust {0} pole"),
    (r"(.+) is a result of (.+), not of (.+?): .*", "{0} on turniiri {1} tulemus, mitte {2}"),
    (r"say what changes.*", "ütle, mis muutub: punktid ja/või võitja"),
    (r"no record (.+) in (.+?) \(.*\)", "kirjet {0} turniiril {1} pole"),
    (r"record (\d+) is a (\w+): only a deduction or a correction is voided this way.*",
     "kirje {0} on {1}: nii saab tühistada ainult mahaarvamise või paranduse"),
    (r"record (\d+) was voided already \(record (\d+), by (.+)\)", "kirje {0} on juba tühistatud (kirje {1}, {2})"),
    (r"round (\d+) has no table (\d+)(?: room (\d+))?(?: in .+)?", "{0}. voorus pole lauda {1}"),
    (r"give (\d+) numbers, one per side \((.+)\)", "anna {0} arvu, üks iga poole kohta ({1})"),
    (r"a correction of more than (\d+) points.*", "parandus üle {0} punkti on suurem, kui ükski partii annab"),
    (r"the winner is one of (.+) \(or none\)", "võitja on {0} (või pole)"),
    (r"round (\d+) table (\d+)(?: room \d+)? has a result already \((.+?)\):.*",
     "{0}. vooru laual {1} on tulemus juba käes ({2}): selle asendamiseks tühista see enne"),
    (r"this match is over already.*", "see partii on juba läbi: sünkrooni või sisesta see, sulgeda pole midagi"),
    (r"these events are of (\w+) (.+), not (.+?)(?::.*)?", "need sündmused on: {0} {1}, mitte {2}"),
    (r"the box's events do not fold: (.+)", "kasti sündmused ei klapi: {0}"),
    (r"round (\d+) table (\d+) is a bye: no box plays it", "{0}. vooru laud {1} on vaba voor: seal kasti pole"),
    (r"round (\d+)(?: table (\d+))? is not drawn", "{0}. voor pole loositud"),
    (r"box (.+) is not paired with this judge.*", "kast {0} pole selle kohtunikuga paaritatud: paarita see enne"),
    (r"box (.+) was reformatted since it was paired.*", "kast {0} vormindati pärast paaritamist: paarita uuesti"),
    (r"the box at (.+) refused the assignment: (.+)", "kast ({0}) ei võtnud lauda vastu: {1}"),
    (r"format (\w+) plays (.+), not (.+)", "vorming {0} on reeglitele {1}, mitte {2}"),
    (r"a tournament needs a name", "turniiril peab olema nimi"),
    (r"a tournament has at least one round", "turniiril on vähemalt üks voor"),
    (r"a tournament '?(.+?)'? exists already.*", "turniir {0} on juba olemas"),
    (r"a Turniirisasku tournament needs --boards.*", "Turniirisaskul on vaja jaotuste arvu matšis"),
    (r"--boards is for Turniirisasku only", "jaotuste arv on ainult Turniirisaskule"),
    (r"no tournament yet.*", "turniiri veel pole: loo see"),
    (r"no tournament '?(.+?)'? \(known: (.+)\)", "turniiri {0} pole (on: {1})"),
    (r"--date '?(.+?)'? is not a date.*", "{0} pole kuupäev (AAAA-KK-PP)"),
    (r"--code '?(.+?)'?: letters, digits.*", "kood {0}: tähed, numbrid, . _ - (kuni 40)"),
    (r"unknown standings criterion '?(.+?)'? for (\w+) \(known: (.+)\)", "tundmatu järjestuse alus {0} (on: {2})"),
    (r"a criterion appears twice in the standings order", "alus on järjestuses kaks korda"),
    (r"--set KEY=VALUE \(got (.+)\)", "seade on kujul VÕTI=VÄÄRTUS (anti {0})"),
    (r"settings\.(\w+): unknown setting for (.+)", "tundmatu seade {0} reeglitele {1}"),
    (r"settings\.(\w+): must be a whole number (\d+)\.\.(\d+)", "seade {0}: täisarv {1} kuni {2}"),
    # a paper sheet: the form's answers (enter.Sheet.answer) and Match's refusals
    (r"choose 1 to (\d+)", "vali 1 kuni {0}"),
    (r"type a number from the list", "vali number loendist"),
    (r"(.+) needs a side: (.+)", "{0}: vaja on poolt ({1})"),
    (r"(.+) takes no side", "{0}: pool pole vajalik"),
    (r"(\d+) of (\d+) given: give exactly (\d+).*", "{0} punkti {1}-st antud: anna täpselt {2}"),
    (r"no (\w+) yet to give the rest to", "ülejäänu saajat ({0}) pole veel"),
    (r"a side \(.+\), a number 1 to (\d+), or rest", "pool (A, B, C või nt A2), number 1 kuni {0} või rest"),
    (r"target: there is no entry to undo", "tagasi võtta pole midagi"),
    (r"target: only the latest entry \(seq (\d+)\) can be undone", "tagasi saab võtta ainult viimase kirje ({0})"),
    (r"type: the match is already over", "partii on juba läbi"),
    (r"type: the result is locked.*", "tulemus on lukus: kõik pooled on kinnitanud või vaidlustanud"),
    (r"type: the match is over; .*", "partii on läbi; tulemust parandab kohtunik"),
    (r"by: side (\w) has already answered", "pool {0} on juba vastanud"),
    # a pairing (judge.pair_box)
    (r"not paired: nobody at the box held PREV and NEXT.*", "paaritamata: kastil ei hoitud PREV ja NEXT korraga all"),
    (r"not paired: the box is paired with another judge \((.+?)\).*",
     "paaritamata: kast on paaritatud teise kohtunikuga ({0})"),
    (r"not paired: (.+)", "paaritamata: {0}"),
    # pushing a round to the boxes (assign.push_all), syncing them (sync.sync)
    (r"not paired with this judge", "pole selle kohtunikuga paaritatud"),
    (r"its name (.+) names no table.*", "selle nimi {0} ei nimeta lauda: paarita see nimega „laud N”"),
    (r"which room\? .*", "mis tuba? nimeta kast „laud N/1” või „laud N/2”"),
    (r"refused: (.+)", "keeldus: {0}"),
    (r"no answer: (.+)", "ei vasta: {0}"),
    (r"line (\d+): (.+)", "rida {0}: {1}"),
]
_COMPILED = [(re.compile(p + r"\Z", re.S), et) for p, et in _RULES]


def estonian(text):
    """The Estonian of a module's refusal, or the text itself when no pattern knows it."""
    for rx, et in _COMPILED:
        m = rx.match(text)
        if m:
            return et.format(*[g if g is not None else "" for g in m.groups()])
    return text
