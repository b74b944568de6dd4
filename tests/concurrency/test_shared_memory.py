"""gunicorn's workers share what each reads once (portal/wsgi.py `load_shared`, read in the
master before they are forked): a worker's first search reads no dictionary of its own."""

from pathlib import Path
from urllib.parse import quote

import pytest

from cluster import ports
from tests.served import call, gunicorn

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def private_kb(pid: int) -> int:
    """The memory the process alone holds (not shared with the master it was forked from)."""
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Private_Dirty:"):
            return int(line.split()[1])
    raise AssertionError("no Private_Dirty")


def parent(pid: int) -> int:
    """(its stat's fourth field, after the name in parentheses)"""
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def test_a_worker_s_first_search_reads_no_dictionary_of_its_own(tmp_path):
    with gunicorn(tmp_path, workers=1) as base:
        assert call(f"{base}/")[0] == 200  # (the page's own first reading: templates...)
        holding = ports.holders(int(base.rsplit(":", 1)[1]))
        [worker] = [pid for pid in holding if parent(pid) in holding]
        before = private_kb(worker)

        assert call(f"{base}/?q={quote('паперу')}")[0] == 200

        # The lemmatizer's dictionary (about 24 MB) was read by the master: shared, not copied.
        assert private_kb(worker) - before < 8 * 1024
