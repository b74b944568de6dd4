"""Querysets of one fixed shape, compiled to SQL once per database connection.

Compiling a queryset (Django's SQLCompiler.as_sql) costs a few hundred microseconds of Python:
more than running it, on the reads asked most (a tender by id, a broker by key, a page of the
feed). A `Compiled` query is built by its function with a stand-in for each argument, compiled
once, and then each call runs that SQL with the real arguments and builds what the queryset
would have built: model instances (with their deferred fields and select_related parents,
converted by the same converters), or `values_list` rows (named too).

Arguments are strings compared to text columns (ids, digests) or moments compared to date-time
columns, and must reach the SQL as they are (a moment: as the database takes date-times); a
build that changes or drops a stand-in on its way is refused when it is compiled. What changes
the shape (a sort direction, the fields asked, a page's length) selects among several Compiled
queries, one per shape (`Shapes`).
"""

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from datetime import UTC, datetime, timedelta

from django.db import connections
from django.db.models.query import (
    NamedValuesListIterable,
    ValuesListIterable,
    create_namedtuple_class,
    get_related_populators,
)
from django.db.transaction import TransactionManagementError

_TEXT, _MOMENT = "text", "moment"


def _kind(argument) -> str:
    if isinstance(argument, str):
        return _TEXT
    if isinstance(argument, datetime) and argument.tzinfo is not None:
        return _MOMENT
    raise TypeError(f"a compiled query takes strings and aware moments, not {argument!r}")


def _stand_in(index: int, kind: str):
    if kind == _TEXT:
        return f"\x00compiled argument {index}\x00"
    return datetime(1901, 2, 3, tzinfo=UTC) + timedelta(microseconds=index + 1)


class _Plan:
    """One compiled query on one connection: its SQL, where the arguments go, and how its rows
    become objects."""

    def __init__(self, build: Callable, kinds: tuple[str, ...], connection_of: Callable):
        stand_ins = [_stand_in(index, kind) for index, kind in enumerate(kinds)]
        queryset = build(*stand_ins)
        self.alias = queryset.db
        connection = connection_of(self.alias)
        self.kinds = kinds
        compiler = queryset.query.get_compiler(using=self.alias)
        self.sql, params = compiler.as_sql()
        self.params = list(params)
        adapt = connection.ops.adapt_datetimefield_value
        forms = {}  # what a stand-in looks like in the parameters -> (argument, adapted?)
        for index, (kind, stand_in) in enumerate(zip(kinds, stand_ins, strict=True)):
            forms[stand_in] = (index, False)
            if kind == _MOMENT:
                forms[adapt(stand_in)] = (index, True)
        self.slots = [
            (position, *forms[param])
            for position, param in enumerate(self.params)
            if isinstance(param, (str, datetime)) and param in forms
        ]
        if {index for _position, index, _adapted in self.slots} != set(range(len(kinds))):
            raise ValueError(f"an argument does not reach the SQL as it is: {self.sql}")
        self.locks = queryset.query.select_for_update
        self.compiler = compiler
        fields = [column[0] for column in compiler.select[: compiler.col_count]]
        self.converters = compiler.get_converters(fields)
        self.rows_only = queryset._iterable_class in (ValuesListIterable, NamedValuesListIterable)
        self.row_class = None
        if queryset._iterable_class is NamedValuesListIterable:
            query = queryset.query
            names = queryset._fields or [
                *query.extra_select, *query.values_select, *query.annotation_select
            ]  # fmt: skip
            self.row_class = create_namedtuple_class(*names)
        if self.rows_only:
            return
        if queryset._iterable_class.__name__ != "ModelIterable" or queryset._known_related_objects:
            raise ValueError("only model instances and values_list rows are built")
        info = compiler.klass_info
        self.model = info["model"]
        first, last = info["select_fields"][0], info["select_fields"][-1] + 1
        self.own = slice(first, last)
        self.attnames = [column[0].target.attname for column in compiler.select[self.own]]
        self.fetch_mode = queryset._fetch_mode
        if getattr(self.fetch_mode, "track_peers", False):
            raise ValueError("a fetch mode that tracks peers is not built here")
        self.parents = get_related_populators(info, compiler.select, self.alias, self.fetch_mode)
        self.annotations = compiler.annotation_col_map

    def run(self, connection, arguments: tuple) -> list:
        if tuple(map(_kind, arguments)) != self.kinds:
            raise TypeError(f"compiled for arguments of kinds {self.kinds}")
        if self.locks and connection.features.has_select_for_update and connection.get_autocommit():
            raise TransactionManagementError(
                "select_for_update cannot be used outside of a transaction."
            )
        params = list(self.params)
        adapt = connection.ops.adapt_datetimefield_value
        for position, index, adapted in self.slots:
            params[position] = adapt(arguments[index]) if adapted else arguments[index]
        with connection.cursor() as cursor:
            cursor.execute(self.sql, params)
            rows = cursor.fetchall()
        if self.converters:
            rows = [tuple(row) for row in self.compiler.apply_converters(rows, self.converters)]
        if self.row_class is not None:
            return [tuple.__new__(self.row_class, row) for row in rows]
        if self.rows_only:
            return rows
        built = []
        for row in rows:
            instance = self.model.from_db(
                self.alias, self.attnames, row[self.own], fetch_mode=self.fetch_mode
            )
            for parent in self.parents:
                parent.populate(row, instance)
            for name, position in self.annotations.items():
                setattr(instance, name, row[position])
            built.append(instance)
        return built


def _plans_of(connection) -> weakref.WeakKeyDictionary:
    """The plans compiled on `connection`, kept with it (they go when it goes; a plan holds
    its connection, so a table of them outside it would keep every connection alive), by
    Compiled query (which may go before it: a shape no longer kept)."""
    plans = getattr(connection, "_compiled_plans", None)
    if plans is None:
        plans = connection._compiled_plans = weakref.WeakKeyDictionary()
    return plans


class Compiled:
    """`Compiled(build)(*arguments)` is `list(build(*arguments))`, compiled once."""

    def __init__(self, build: Callable):
        self.build = build
        self._alias: str | None = None

    def __call__(self, *arguments) -> list:
        plan = _plans_of(connections[self._alias]).get(self) if self._alias else None
        if plan is None:
            kinds = tuple(map(_kind, arguments))
            plan = _Plan(self.build, kinds, lambda alias: connections[alias])
            self._alias = plan.alias
            _plans_of(connections[plan.alias])[self] = plan
        return plan.run(connections[plan.alias], arguments)

    def first(self, *arguments):
        """The first object or row (the build's slice says how many are read), or None."""
        found = self(*arguments)
        return found[0] if found else None


class Shapes:
    """Compiled queries by shape, the most recently used `size` of them kept (the shapes a
    caller can ask for may be many: a feed's fields)."""

    def __init__(self, size: int = 64):
        self.size = size
        self._kept: OrderedDict[Hashable, Compiled] = OrderedDict()
        self._lock = threading.Lock()  # (threads of one process share the shapes)

    def get(self, shape: Hashable, build: Callable) -> Compiled:
        """The Compiled query of `shape`, made from `build` when it is new."""
        with self._lock:
            compiled = self._kept.get(shape)
            if compiled is None:
                compiled = self._kept[shape] = Compiled(build)
                while len(self._kept) > self.size:
                    self._kept.popitem(last=False)
            else:
                self._kept.move_to_end(shape)
            return compiled
