"""gunicorn's settings for this project, read from the working directory by `gunicorn
portal.wsgi`. The access log masks owner tokens (`acc_token=...`) in request lines and
query strings, and names the worker that answered."""

import os
import sys

from gunicorn.glogging import Logger

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from portal.log_filters import mask_tokens


class TokenMaskingLogger(Logger):
    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        return {
            name: mask_tokens(value) if isinstance(value, str) else value
            for name, value in atoms.items()
        }


logger_class = TokenMaskingLogger
access_log_format = '%(h)s %(l)s %(u)s %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s" %(L)s %(p)s'
