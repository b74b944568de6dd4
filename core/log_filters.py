"""Secrets never reach a log: owner tokens in a URL's query (`acc_token=...`) are masked in
every line Django and gunicorn write."""

import logging
import re

_TOKEN_IN_QUERY = re.compile(r"((?:^|[?&;])acc(?:_|%5F)token=)[^&;\s\"]*", re.IGNORECASE)
MASK = "***"


def mask_tokens(text: str) -> str:
    return _TOKEN_IN_QUERY.sub(rf"\g<1>{MASK}", text)


class MaskTokens(logging.Filter):
    """Masks tokens in a record's whole message (a server's request line, an error naming the
    URL), whatever objects its arguments are."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:
            return True  # a malformed call: the handler reports it as it always has
        masked = mask_tokens(message)
        if masked != message:
            record.msg, record.args = masked, None
        return True
