"""The dictionary forms (lemmas) of Ukrainian words, so that a word is found in any of its
forms: "покрівлі" and "покрівля" are one word, "паперу" and "папір" too. A tender's kept words
carry the lemmas of its words beside the words as written (tenders.search.searchable), and a
word asked is looked for as written (its start) or as any of its lemmas (search_words).

pymorphy3 with pymorphy3-dicts-uk, chosen among:
- pymorphy3 + pymorphy3-dicts-uk: a dictionary of Ukrainian (VESUM) with every form of a word,
  and a predictor for words it does not know; a few MB, loaded in a tenth of a second, about
  50 µs a word (cached below); gives every lemma of an ambiguous form. Kept up (2.0.6, 2025).
- a hunspell/ispell Ukrainian dictionary inside PostgreSQL (a text search configuration): needs
  the dictionary's files on the database server, which neither CI's nor a user's PostgreSQL
  has, and nothing on SQLite.
- snowball: no Ukrainian stemmer (PostgreSQL has none either).
- simplemma: a lookup table of forms, as good on common words, no predictor for the words it
  does not know and one lemma only for an ambiguous form; slower to load (0.6 s).
- spaCy's and stanza's Ukrainian pipelines: models of hundreds of MB, downloaded at run time.
"""

import re
from functools import cache, lru_cache

# A word as the dictionary knows it: letters, an apostrophe inside (комп'ютер).
WORD = re.compile(r"[^\W\d_]+(?:['ʼ’][^\W\d_]+)*")
APOSTROPHES = str.maketrans({"ʼ": "'", "’": "'"})
CYRILLIC = re.compile(r"[а-яіїєґ]")
# Where Ukrainian spelling puts an apostrophe: after a labial or р, before я, ю, є, ї (комп'ютер,
# п'ять, м'ясо). People often leave it out ("компютер"), which the dictionary does not know.
LEFT_OUT_APOSTROPHE = re.compile(r"(?<=[бпвмфр])(?=[яюєї])")
# Shorter words (prepositions, conjunctions) are kept as they are.
SHORTEST = 3


@cache
def analyzer():
    """pymorphy3's analyzer of Ukrainian, created once per process (its dictionary is
    read when it is)."""
    import pymorphy3

    return pymorphy3.MorphAnalyzer(lang="uk")


@lru_cache(maxsize=50_000)
def lemmas(word: str) -> tuple[str, ...]:
    """The lemmas of a folded `word` other than the word itself (every one an ambiguous form
    may have), in the analyzer's order; none for a word not in Ukrainian letters."""
    if len(word) < SHORTEST or not CYRILLIC.search(word):
        return ()
    written = word.translate(APOSTROPHES)
    if "'" not in written and not analyzer().word_is_known(written):
        with_apostrophes = LEFT_OUT_APOSTROPHE.sub("'", written)
        if with_apostrophes != written and analyzer().word_is_known(with_apostrophes):
            written = with_apostrophes  # (its lemmas: комп'ютер for "компютери")
    found = dict.fromkeys(parse.normal_form.casefold() for parse in analyzer().parse(written))
    return tuple(lemma for lemma in found if lemma != word)
