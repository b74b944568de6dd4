"""The building blocks of 2.3 document schemas: DRF serializers that speak 2.3's messages.

A schema validates the *shape* of a document (types, required fields, choices) and answers in
the 2.3 wording, so that a 2.3 client sees the errors it knows:

    ["This field is required."]                      (DRF's own wording is the 2.3 one)
    ["Value must be one of ['open', 'selective', 'limited']."]
    ["Could not parse tomorrow. Should be ISO8601."]
    ["Please use a mapping for this field or Value instance instead of unicode."]
    "Rogue field"                                     (an unknown key)

Schemas are used by model methods, never trusted from a caller: `validate(Schema, data)` either
returns the cleaned document or raises `InvalidData`.
"""

import math
import re
from collections.abc import Mapping
from datetime import datetime
from zoneinfo import ZoneInfo

from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import EmailValidator, MaxLengthValidator, URLValidator
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail, ValidationError
from rest_framework.fields import empty, get_error_detail

from core.errors import InvalidData

KYIV = ZoneInfo("Europe/Kyiv")

# 2.3 ran on Python 2: its messages name JSON strings "unicode".
_TYPE_NAMES = {str: "unicode", int: "int", float: "float", bool: "bool", list: "list"}


def type_name(value) -> str:
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def iso(moment: datetime | None) -> str | None:
    """A moment as 2.3 writes it: Kyiv time, microseconds and offset."""
    if moment is None:
        return None
    return moment.astimezone(KYIV).isoformat(timespec="microseconds")


def parse_iso(value) -> datetime:
    """Parse an ISO 8601 moment; naive moments are Kyiv time. Raises ValueError or OverflowError."""
    if not isinstance(value, str):
        raise ValueError(value)
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=KYIV)
    # Normalising exposes moments that cannot be represented once converted.
    moment.astimezone(KYIV).astimezone(ZoneInfo("UTC"))
    return moment


def strip_nulls(value):
    """2.3 treats a null as an absent field (and a null in a PATCH as "remove it")."""
    if isinstance(value, Mapping):
        return {key: strip_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [strip_nulls(item) for item in value]
    return value


def to_json(value):
    """A validated document as stored and sent: moments become 2.3 ISO strings."""
    if isinstance(value, Mapping):
        return {key: to_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [to_json(item) for item in value]
    if isinstance(value, datetime):
        return iso(value)
    return value


def merge_patch(current, patch):
    """Apply a 2.3 PATCH body to a document.

    Objects merge key by key (a null removes the key); lists merge position by position (a
    shorter list truncates, a longer one appends); anything else replaces.
    """
    if isinstance(current, Mapping) and isinstance(patch, Mapping):
        merged = dict(current)
        for key, item in patch.items():
            if item is None:
                merged.pop(key, None)
            elif key in merged:
                merged[key] = merge_patch(merged[key], item)
            else:
                merged[key] = item
        return merged
    if isinstance(current, list) and isinstance(patch, list):
        return [
            merge_patch(current[index], item) if index < len(current) else item
            for index, item in enumerate(patch)
        ]
    return patch


def plain(detail):
    """DRF's error detail as plain JSON values."""
    if isinstance(detail, Mapping):
        return {str(key): plain(item) for key, item in detail.items()}
    if isinstance(detail, list):
        return [plain(item) for item in detail]
    if isinstance(detail, ErrorDetail):
        return str(detail)
    return detail


def validate(schema: type[serializers.Serializer], data, **context) -> dict:
    """Validate `data` against `schema`; the cleaned document, or InvalidData with 2.3 errors."""
    serializer = schema(data=strip_nulls(data), context=context)
    try:
        return serializer.run_validation(serializer.initial_data)
    except ValidationError as exc:
        raise InvalidData(plain(exc.detail)) from None


def too_many(name: str, most: int) -> InvalidData:
    """The refusal of a list that would grow past `most` members, in the words a schema's list
    says it with (StrictListSerializer)."""
    message = StrictListSerializer.default_error_messages["max_length"]
    return InvalidData.field(name, message.format(max_length=most))


class StrictListSerializer(serializers.ListSerializer):
    """A list of 2.3 models: list-level errors are a list of strings, item errors a list with
    one entry per item ({} for the valid ones)."""

    default_error_messages = {
        "not_a_list": "Please provide a list.",
        "empty": "Please provide at least 1 item.",
        "min_length": "Please provide at least {min_length} item.",
        "max_length": "Please provide no more than {max_length} items.",
    }

    def to_internal_value(self, data):
        if not isinstance(data, list):
            raise ValidationError([self.error_messages["not_a_list"]])
        if not data and not self.allow_empty:
            raise ValidationError([self.error_messages["empty"]])
        if self.max_length is not None and len(data) > self.max_length:
            raise ValidationError(
                [self.error_messages["max_length"].format(max_length=self.max_length)]
            )
        values, errors = [], []
        for item in data:
            try:
                values.append(self.child.run_validation(item))
                errors.append({})
            except ValidationError as exc:
                errors.append(exc.detail)
        if any(errors):
            raise ValidationError(errors)
        return values


class Shape:
    """What the server sends, for the OpenAPI description (mixed into a Schema): every absent
    value is left out of a representation, so only the fields named in `always` are required;
    and what the server adds to a text may take it past what a client may send (a test
    tender's title, prefixed "[ТЕСТУВАННЯ] "), so no length is promised."""

    always: tuple[str, ...] = ("id",)

    def get_fields(self):
        fields = super().get_fields()
        for name, field in fields.items():
            field.required = name in self.always
            if isinstance(field, serializers.CharField):
                field.max_length = None
                field.validators = [
                    validator
                    for validator in field.validators
                    if not isinstance(validator, MaxLengthValidator)
                ]
        return fields


class Schema(serializers.Serializer):
    """A 2.3 model. Unknown keys are "Rogue field"; `server_fields` (known to 2.3 but set by
    the server) are dropped silently, as 2.3 does."""

    model_name = "Model"
    server_fields: frozenset[str] = frozenset()

    class Meta:
        list_serializer_class = StrictListSerializer

    def run_validation(self, data=empty):
        is_empty, data = self.validate_empty_values(data)
        if is_empty:
            return data
        value = self.to_internal_value(data)
        try:
            self.run_validators(value)
            return self.validate(value)
        except DjangoValidationError as exc:
            raise ValidationError(detail=get_error_detail(exc)) from None

    def to_internal_value(self, data):
        if not isinstance(data, Mapping):
            raise ValidationError(
                [
                    "Please use a mapping for this field or "
                    f"{self.model_name} instance instead of {type_name(data)}."
                ]
            )
        allowed = set(self.fields) | self.server_fields
        errors = {key: "Rogue field" for key in data if key not in allowed}
        known = {key: item for key, item in data.items() if key in self.fields}
        try:
            value = super().to_internal_value(known)
        except ValidationError as exc:
            errors = {**exc.detail, **errors}
        if errors:
            raise ValidationError(errors)
        return dict(value)


# 2.3 bounds no text. These bounds are generous (README, "Limits"), and a longer value is
# refused with DRF's "Ensure this field has no more than N characters.".
SHORT_TEXT_MAX = 1_000  # titles, names, codes, addresses
LONG_TEXT_MAX = 50_000  # descriptions, reasons, answers


class Text(serializers.CharField):
    """A string of at most SHORT_TEXT_MAX characters (unless `max_length` says otherwise)."""

    default_error_messages = {"invalid": "Couldn't interpret '{input}' as string."}

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        kwargs.setdefault("trim_whitespace", False)
        kwargs.setdefault("max_length", SHORT_TEXT_MAX)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if isinstance(data, bool | dict | list):
            self.fail("invalid", input=data)
        return super().to_internal_value(data)


class LongText(Text):
    """Prose: descriptions, reasons, answers (at most LONG_TEXT_MAX characters)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", LONG_TEXT_MAX)
        super().__init__(**kwargs)


class Choice(serializers.ChoiceField):
    def __init__(self, choices, **kwargs):
        kwargs.setdefault("required", False)
        super().__init__(choices, **kwargs)
        self.error_messages["invalid_choice"] = f"Value must be one of {list(self.choices)}."

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid_choice", input=data)
        return super().to_internal_value(data)


class Boolean(serializers.Field):
    """true/false only (2.3 also took "true"/"false" and 1/0)."""

    default_error_messages = {"invalid": "Must be either true or false."}
    TRUE = (True, "true", "True", "1", 1)
    FALSE = (False, "false", "False", "0", 0)

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if isinstance(data, bool):
            return data
        if isinstance(data, int | str) and data in self.TRUE:
            return True
        if isinstance(data, int | str) and data in self.FALSE:
            return False
        self.fail("invalid")

    def to_representation(self, value):
        return bool(value)


class Number(serializers.Field):
    """A JSON number (or a numeric string), never a boolean, NaN or infinity."""

    default_error_messages = {
        "invalid": "Number '{input}' failed to convert to a decimal.",
        "min_value": "Float value should be greater than {minimum}.",
        "max_value": "Float value should be less than {maximum}.",
    }

    def __init__(
        self,
        *,
        minimum: float | None = 0,
        maximum: float | None = None,
        as_float: bool = True,
        **kwargs,
    ):
        kwargs.setdefault("required", False)
        self.minimum, self.maximum = minimum, maximum
        self.as_float = as_float
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int | float | str):
            self.fail("invalid", input=data)
        try:
            number = float(data)
        except (TypeError, ValueError, OverflowError):
            self.fail("invalid", input=data)
        if math.isnan(number) or math.isinf(number):
            self.fail("invalid", input=data)
        if self.minimum is not None and number < self.minimum:
            self.fail("min_value", minimum=self.minimum)
        if self.maximum is not None and number > self.maximum:
            self.fail("max_value", maximum=self.maximum)
        if not self.as_float and isinstance(data, int):
            return data
        if not self.as_float and number.is_integer() and abs(number) < 2**53:
            return int(number)
        return number

    def to_representation(self, value):
        return value


class IsoDateTime(serializers.Field):
    default_error_messages = {
        "invalid": "Could not parse {input}. Should be ISO8601.",
        "overflow": "date value out of range",
    }

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        try:
            return parse_iso(data)
        except OverflowError:
            self.fail("overflow")
        except (ValueError, TypeError):
            self.fail("invalid", input=data)

    def to_representation(self, value):
        return iso(value)


class Email(Text):
    default_error_messages = {"invalid_email": "Not a well formed email address."}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.validators.append(EmailValidator(message=self.error_messages["invalid_email"]))


class Url(Text):
    default_error_messages = {"invalid_url": "Not a well formed URL."}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.validators.append(URLValidator(message=self.error_messages["invalid_url"]))


HEX_DIGEST = re.compile(r"[0-9a-fA-F]+")


def md5_digest(value) -> str:
    """The hex digest (lower case) of a 2.3 document hash, "md5:<32 hex digits>"; ValueError
    with 2.3's words for anything else."""
    kind, colon, digest = value.partition(":") if isinstance(value, str) else ("", "", "")
    if not colon or kind != "md5":
        raise ValueError("Hash type is not supported.")
    if len(digest) != 32:
        raise ValueError("Hash value is wrong length.")
    if not HEX_DIGEST.fullmatch(digest):
        raise ValueError("Hash value is not hexadecimal.")
    return digest.lower()
