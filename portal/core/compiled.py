"""Querysets of one fixed shape, compiled to SQL once per database connection.

Compiling a queryset (Django's SQLCompiler.as_sql) costs a few hundred microseconds of Python:
more than running it, on the reads asked most (a tender by id, a broker by key, a page of the
feed). A `Compiled` query is built by its function with a stand-in for each argument, compiled
once, and then each call runs that SQL with the real arguments and builds what the queryset
would have built: model instances (with their deferred fields and select_related parents,
converted by the same converters), or `values_list` rows.

Only arguments that reach the SQL unchanged may be stand-ins (strings compared to text columns:
ids, digests); a build whose stand-in is changed or dropped on its way is refused when it is
compiled. Arguments that change the shape (a sort direction, the fields asked) select among
several Compiled queries, one per shape.
"""

import weakref
from collections.abc import Callable

from django.db import connections
from django.db.models.query import ValuesListIterable, get_related_populators
from django.db.transaction import TransactionManagementError


class _Plan:
    """One compiled query on one connection: its SQL, where the arguments go, and how its rows
    become objects."""

    def __init__(self, queryset, stand_ins: list[str]):
        self.alias = queryset.db
        compiler = queryset.query.get_compiler(using=self.alias)
        self.sql, params = compiler.as_sql()
        self.params = list(params)
        self.slots = [
            (position, stand_ins.index(param))
            for position, param in enumerate(self.params)
            if isinstance(param, str) and param in stand_ins
        ]
        if sorted({argument for _position, argument in self.slots}) != list(range(len(stand_ins))):
            raise ValueError(f"an argument does not reach the SQL as it is: {self.sql}")
        self.locks = queryset.query.select_for_update
        self.compiler = compiler
        fields = [column[0] for column in compiler.select[: compiler.col_count]]
        self.converters = compiler.get_converters(fields)
        self.rows_only = queryset._iterable_class is ValuesListIterable
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
        self.parents = get_related_populators(info, compiler.select, self.alias, self.fetch_mode)
        self.annotations = compiler.annotation_col_map

    def run(self, connection, arguments: tuple) -> list:
        if self.locks and connection.get_autocommit():
            raise TransactionManagementError(
                "select_for_update cannot be used outside of a transaction."
            )
        params = list(self.params)
        for position, argument in self.slots:
            params[position] = arguments[argument]
        with connection.cursor() as cursor:
            cursor.execute(self.sql, params)
            rows = cursor.fetchall()
        if self.converters:
            rows = [tuple(row) for row in self.compiler.apply_converters(rows, self.converters)]
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


class Compiled:
    """`Compiled(build)(*arguments)` is `list(build(*arguments))`, compiled once."""

    def __init__(self, build: Callable):
        self.build = build
        self._plans: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def __call__(self, *arguments) -> list:
        stand_ins = [f"\x00compiled argument {index}\x00" for index in range(len(arguments))]
        queryset = None
        if not self._plans:
            queryset = self.build(*stand_ins)
        alias = queryset.db if queryset is not None else next(iter(self._plans.values())).alias
        connection = connections[alias]
        plan = self._plans.get(connection)
        if plan is None:
            queryset = queryset if queryset is not None else self.build(*stand_ins)
            plan = self._plans[connection] = _Plan(queryset, stand_ins)
        return plan.run(connection, arguments)

    def first(self, *arguments):
        """The first object or row (the build's slice says how many are read), or None."""
        found = self(*arguments)
        return found[0] if found else None
