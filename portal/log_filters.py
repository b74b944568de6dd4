"""Secrets never reach a log: owner tokens in a URL's query (`acc_token=...`) are masked in
every line Django and gunicorn write."""

import logging
import re

_TOKEN_IN_QUERY = re.compile(r"((?:^|[?&;])acc_token=)[^&;\s\"]*", re.IGNORECASE)
MASK = "***"


def mask_tokens(text: str) -> str:
    return _TOKEN_IN_QUERY.sub(rf"\g<1>{MASK}", text)


def _masked(value):
    return mask_tokens(value) if isinstance(value, str) else value


class MaskTokens(logging.Filter):
    """Masks tokens in a record's message and arguments (the request line of a server log)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = _masked(record.msg)
        if isinstance(record.args, dict):
            record.args = {key: _masked(value) for key, value in record.args.items()}
        elif record.args:
            record.args = tuple(_masked(value) for value in record.args)
        return True
