"""The base of every 2.3 representation: camelCase, Kyiv ISO dates, no nulls."""

from rest_framework import serializers

# What 2.3 leaves out of a representation: nulls, and empty strings, lists and objects.
ABSENT = (None, [], {}, "")


def compact(data: dict) -> dict:
    """2.3 omits absent values."""
    return {key: value for key, value in data.items() if value not in ABSENT}


class Out(serializers.BaseSerializer):
    """A read-only representation: subclasses say what `represent(instance)` shows."""

    def to_representation(self, instance):
        return compact(self.represent(instance))

    def represent(self, instance) -> dict:
        raise NotImplementedError
