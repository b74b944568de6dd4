"""Finding tenders by words: on PostgreSQL by migration 0018's full text index (each word as
the start of a word in the text without accents, or as one of its lemmas, which the kept text
carries: tenders.lemmas), and, when that finds nothing, also by the trigram index's similarity
for words of four letters or more (a typo still finds); elsewhere as parts of the folded text.
See tenders/search.py."""

from datetime import timedelta

from django.db import connection
from django.db.models import (
    BooleanField,
    DateTimeField,
    ExpressionWrapper,
    F,
    FloatField,
    Func,
    Q,
    Value,
)

from tenders.lemmas import lemmas
from tenders.search import FUZZY_FROM

COLUMN = "search__search_text"
# The index's expression, which the query repeats exactly for the planner to use it.
WORDS = "to_tsvector('simple'::regconfig, tenders_unaccent({column}))"
# A word quoted after unaccent, which may turn a letter into tsquery syntax ("ʼ" into an
# apostrophe, "⑴" into parentheses): as the start of a word (STARTS) or a whole word (IS).
QUOTED = "'''' || replace(tenders_unaccent({value}), '''', '''''') || '''"
STARTS = f"to_tsquery('simple'::regconfig, {QUOTED}:*')"
IS = f"to_tsquery('simple'::regconfig, {QUOTED}')"
# How many of the newest matches the best match is chosen among (a page goes no further).
RANKED = 1000


class _Sql(Func):
    """An SQL template over a column and a word (each compiled with its parameters); {query}
    in it is the tsquery of the word's start or any of `lemmas` as a whole word."""

    sql = ""

    def __init__(self, column: str, word: str, *lemmas: str, **extra):
        super().__init__(F(column), Value(word), *(Value(lemma) for lemma in lemmas), **extra)

    def as_sql(self, compiler, connection, **extra):
        column, params = compiler.compile(self.source_expressions[0])
        values = []
        for expression in self.source_expressions[1:]:
            value, value_params = compiler.compile(expression)
            values.append(value)
            params = (*params, *value_params)
        query = " || ".join(
            [STARTS.format(value=values[0]), *(IS.format(value=lemma) for lemma in values[1:])]
        )
        # (the templates' quotes are SQL's; a % would be the driver's. A template names
        # either {query} or {value}, which only a word without lemmas is given.)
        sql = self.sql.format(column=column, value=values[0], query=f"({query})")
        return sql, params


class _StartsWords(_Sql):
    sql = f"{WORDS.format(column='{column}')} @@ {{query}}"
    output_field = BooleanField()


class _Resembles(_Sql):
    # (%% is a literal %: the driver formats the statement)
    sql = "{column} %%> {value}"
    output_field = BooleanField()


class _Rank(_Sql):
    sql = f"ts_rank({WORDS.format(column='{column}')}, {{query}})"
    output_field = FloatField()


class _Similarity(_Sql):
    sql = "word_similarity({value}, {column})"
    output_field = FloatField()


def ranks() -> bool:
    """Whether words are ranked (and may be found by similarity): on PostgreSQL."""
    return connection.vendor == "postgresql"


def may_resemble(words: list[str]) -> bool:
    return ranks() and any(len(word) >= FUZZY_FROM for word in words)


def matching(words: list[str], *, resembling: bool = False) -> Q:
    """Tenders whose text has every one of `words`, each as written or as one of its lemmas
    (`resembling`: or, for a long word, one like it; asked only when the words as written find
    nothing, as a word like a common one finds nearly every tender)."""
    found = Q()
    for word in words:
        if not ranks():
            forms = (word, *lemmas(word))
            found &= Q(*(Q(**{f"{COLUMN}__contains": form}) for form in forms), _connector=Q.OR)
        elif resembling and len(word) >= FUZZY_FROM:
            found &= Q(_StartsWords(COLUMN, word, *lemmas(word))) | Q(_Resembles(COLUMN, word))
        else:
            found &= Q(_StartsWords(COLUMN, word, *lemmas(word)))
    return found


def unindexed(column: str):
    """`column`, as an expression no index gives in order: the candidates of the best match
    (the newest matches, every one of which is ranked) are chosen by it, so that they are
    found through the words' index, never by walking the registry's newest."""
    return ExpressionWrapper(F(column) + Value(timedelta(0)), output_field=DateTimeField())


def relevance(words: list[str], *, resembling: bool = False):
    """How well a tender's text answers `words` (PostgreSQL): the full text rank of each, and,
    when similar words were looked for, how closely each is found."""
    scores = [_Rank(COLUMN, word, *lemmas(word)) for word in words]
    if resembling:
        scores += [_Similarity(COLUMN, word) for word in words]
    total = scores[0]
    for score in scores[1:]:
        total = total + score
    return total
