"""gunicorn's settings for the floor: none (`--config python:bench.floor.served`), so that the
floor runs without the project's own (its logger, its checks at start)."""
