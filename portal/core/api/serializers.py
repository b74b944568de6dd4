"""The base of every 2.3 representation: camelCase, Kyiv ISO dates, no nulls."""

from rest_framework import serializers


def compact(data: dict) -> dict:
    """2.3 omits absent values: nulls, and empty strings, lists and objects."""
    return {key: value for key, value in data.items() if value not in (None, [], {}, "")}


class Out(serializers.BaseSerializer):
    """A read-only representation: subclasses say what `represent(instance)` shows."""

    def to_representation(self, instance):
        return compact(self.represent(instance))

    def represent(self, instance) -> dict:
        raise NotImplementedError
