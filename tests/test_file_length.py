"""No module outside the tests and migrations is longer than a newcomer can hold in mind:
450 lines."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MOST_LINES = 450
SKIPPED = {"tests", "migrations", ".venv", "build", "node_modules", ".git"}


def modules() -> list[Path]:
    return [
        path
        for path in sorted(ROOT.rglob("*.py"))
        if SKIPPED.isdisjoint(path.relative_to(ROOT).parts)
    ]


def test_no_module_is_longer_than_450_lines():
    lengths = {
        str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines())
        for path in modules()
    }
    assert len(lengths) > 100  # the project's modules were found
    too_long = {name: lines for name, lines in lengths.items() if lines > MOST_LINES}
    assert not too_long, f"split these (at most {MOST_LINES} lines each): {too_long}"
