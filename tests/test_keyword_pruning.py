"""The pruned keyword ranking is FTS5's own ranking of every match, or it declines."""

from __future__ import annotations

import random

import pytest

from privault.store import keyword_pruning
from privault.store.connection import Connection, connect

COMMON = ["time", "visit", "new", "next"]
RARE = ["dental", "landlord", "violin", "lentil", "tyres", "choir"]
FILLER = [f"filler{i}" for i in range(300)]


def _table(path: str, rows: int, seed: int) -> Connection:
    """An FTS5 table (the vault's tokenizer) of random rows: common words in about half,
    rare ones in a few, lengths from 3 to 60 words."""
    rng = random.Random(seed)
    conn = connect(path)
    conn.execute("CREATE VIRTUAL TABLE chunks_fts USING fts5(text, tokenize = 'porter unicode61')")
    texts = []
    for _ in range(rows):
        words = rng.choices(FILLER, k=rng.randint(3, 60))
        words += [w for w in COMMON if rng.random() < 0.45] * rng.randint(1, 3)
        words += [w for w in RARE if rng.random() < 0.02]
        rng.shuffle(words)
        texts.append((" ".join(words),))
    conn.executemany("INSERT INTO chunks_fts(text) VALUES (?)", texts)
    return conn


def _every_match(
    conn: Connection, phrases: list[str], limit: int, rowids: tuple[int, int] | None = None
) -> list[tuple[int, float]]:
    inside, bounds = ("AND rowid >= ? AND rowid < ? ", rowids) if rowids else ("", ())
    found = conn.execute(
        "SELECT rowid, bm25(chunks_fts) AS s FROM chunks_fts WHERE chunks_fts MATCH ? "
        f"{inside}ORDER BY s LIMIT ?",
        (" OR ".join(phrases), *bounds, limit),
    ).fetchall()
    return [(int(rowid), -float(score)) for rowid, score in found]


def _same_ranking(pruned: list[tuple[int, float]], whole: list[tuple[int, float]]) -> None:
    """Same scores, rank for rank; the same rows wherever a score is not tied."""
    assert len(pruned) == len(whole)
    assert [s for _, s in pruned] == pytest.approx([s for _, s in whole], rel=1e-9)
    whole_scores = [s for _, s in whole]
    for rowid, score in whole:
        if whole_scores.count(score) == 1 and score != whole_scores[-1]:
            assert rowid in dict(pruned)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    conn = _table(str(tmp_path_factory.mktemp("fts") / "fts.db"), 4_000, seed=7)
    yield conn
    conn.close()


@pytest.fixture
def table(built, monkeypatch):
    """The module's table, pruned at any size."""
    monkeypatch.setattr(keyword_pruning, "MIN_ROWS", 0)
    return built


QUERIES = [
    ["time", "dental"],
    ["visit", "new", "landlord"],
    ["time", "visit", "next", "violin", "choir"],
    ["new", "lentil", "tyres"],
    ["next", "time"],  # common phrases only
    ["dental", "landlord"],  # rare phrases only
]


@pytest.mark.parametrize("words", QUERIES)
@pytest.mark.parametrize("limit", [1, 10, 40])
def test_a_pruned_ranking_is_the_ranking_of_every_match(table, words, limit):
    phrases = [f'"{w}"' for w in words]
    pruned = keyword_pruning.ranked(table, "chunks_fts", phrases, limit)
    if pruned is not None:
        _same_ranking(pruned, _every_match(table, phrases, limit))


def test_a_common_word_beside_a_rare_one_is_pruned(table):
    """The case pruning is for: it answers, and ranks only the rare word's rows."""
    phrases = ['"time"', '"visit"', '"dental"']
    pruned = keyword_pruning.ranked(table, "chunks_fts", phrases, 10)
    assert pruned is not None
    _same_ranking(pruned, _every_match(table, phrases, 10))
    holding = {r for (r,) in table.execute("SELECT rowid FROM chunks_fts('dental')")}
    assert {rowid for rowid, _ in pruned} <= holding


def test_within_a_range_of_row_ids(table):
    phrases = ['"time"', '"new"', '"violin"']
    for rowids in [(1, 2_000), (2_000, 10_000)]:
        pruned = keyword_pruning.ranked(table, "chunks_fts", phrases, 5, rowids)
        assert pruned is not None
        _same_ranking(pruned, _every_match(table, phrases, 5, rowids))
        assert all(rowids[0] <= rowid < rowids[1] for rowid, _ in pruned)


def test_common_words_alone_rank_the_rows_holding_two(table):
    """Equally common words: the best rows hold several, and only those are ranked."""
    phrases = ['"time"', '"next"', '"visit"']
    pruned = keyword_pruning.ranked(table, "chunks_fts", phrases, 40)
    assert pruned is not None
    assert len({rowid for rowid, _ in pruned}) == 40  # each row once, by its whole score
    _same_ranking(pruned, _every_match(table, phrases, 40))
    for rowid, _ in pruned:
        (text,) = table.execute("SELECT text FROM chunks_fts WHERE rowid = ?", (rowid,)).fetchone()
        assert sum(word in text.split() for word in ("time", "next", "visit")) >= 2


def test_it_declines_when_it_cannot_prove_the_ranking_whole(table):
    """More rows wanted than hold a rare word beside a common one: rows holding only the
    common word belong in the ranking, so the pruned one would be short and is refused."""
    assert keyword_pruning.ranked(table, "chunks_fts", ['"time"', '"dental"'], 2_000) is None
    assert keyword_pruning.ranked(table, "chunks_fts", ['"dental"'], 10) is None
    assert keyword_pruning.ranked(table, "chunks_fts", ['"dental"', '"absent"'], 10) is None


def test_a_small_index_is_ranked_whole(tmp_path):
    conn = _table(str(tmp_path / "small.db"), 500, seed=3)
    assert keyword_pruning.ranked(conn, "chunks_fts", ['"time"', '"dental"'], 5) is None
    conn.close()


@pytest.mark.parametrize("seed", range(6))
def test_random_tables_and_queries(tmp_path, monkeypatch, seed):
    monkeypatch.setattr(keyword_pruning, "MIN_ROWS", 0)
    conn = _table(str(tmp_path / f"r{seed}.db"), 1_500, seed=seed)
    rng = random.Random(seed)
    answered = 0
    for _ in range(25):
        words = rng.sample(COMMON, rng.randint(0, 3)) + rng.sample(RARE, rng.randint(1, 3))
        phrases = [f'"{w}"' for w in words]
        limit = rng.choice([1, 5, 20])
        pruned = keyword_pruning.ranked(conn, "chunks_fts", phrases, limit)
        if pruned is not None:
            answered += 1
            _same_ranking(pruned, _every_match(conn, phrases, limit))
    assert answered > 0
    conn.close()


def test_it_declines_when_rows_of_common_words_alone_may_rank(tmp_path, monkeypatch):
    """A rarer word held once by long rows scores less than a common word held three
    times by short ones: the bound cannot be reached, and pruning declines."""
    monkeypatch.setattr(keyword_pruning, "MIN_ROWS", 0)
    rng = random.Random(5)
    conn = connect(str(tmp_path / "long.db"))
    conn.execute("CREATE VIRTUAL TABLE chunks_fts USING fts5(text, tokenize = 'porter unicode61')")
    rows = [" ".join(["dental", *rng.choices(FILLER, k=80)]) for _ in range(300)]
    rows += [" ".join(["time"] * 3 + rng.choices(FILLER, k=4)) for _ in range(1_000)]
    rows += [" ".join(rng.choices(FILLER, k=20)) for _ in range(1_700)]
    conn.executemany("INSERT INTO chunks_fts(text) VALUES (?)", [(row,) for row in rows])
    phrases = ['"time"', '"dental"']
    whole = _every_match(conn, phrases, 10)
    dental = {r for (r,) in conn.execute("SELECT rowid FROM chunks_fts('dental')")}
    assert any(rowid not in dental for rowid, _ in whole)
    assert keyword_pruning.ranked(conn, "chunks_fts", phrases, 10) is None
    conn.close()


def test_it_declines_when_rows_holding_one_word_may_rank(tmp_path, monkeypatch):
    """Two equally common words, held together only by long rows and alone (three times)
    by short ones: the rows holding one rank first, so ranking those holding two declines."""
    monkeypatch.setattr(keyword_pruning, "MIN_ROWS", 0)
    rng = random.Random(6)
    conn = connect(str(tmp_path / "pairs.db"))
    conn.execute("CREATE VIRTUAL TABLE chunks_fts USING fts5(text, tokenize = 'porter unicode61')")
    rows = [" ".join(["dental", "violin", *rng.choices(FILLER, k=80)]) for _ in range(300)]
    rows += [
        " ".join([word] * 3 + rng.choices(FILLER, k=4))
        for word in ("dental", "violin")
        for _ in range(700)
    ]
    rows += [" ".join(rng.choices(FILLER, k=20)) for _ in range(1_300)]
    conn.executemany("INSERT INTO chunks_fts(text) VALUES (?)", [(row,) for row in rows])
    phrases = ['"dental"', '"violin"']
    whole = _every_match(conn, phrases, 10)
    both = {r for (r,) in conn.execute("SELECT rowid FROM chunks_fts('dental AND violin')")}
    assert len(both) >= 10 and not {rowid for rowid, _ in whole} & both
    assert keyword_pruning.ranked(conn, "chunks_fts", phrases, 10) is None
    conn.close()


def test_a_row_holding_every_word_is_ranked_once(tmp_path, monkeypatch):
    """Rows holding all three words, short and long: each is ranked once, by its whole
    score, not again by the part of it another word's expression sees."""
    monkeypatch.setattr(keyword_pruning, "MIN_ROWS", 0)
    rng = random.Random(8)
    conn = connect(str(tmp_path / "all.db"))
    conn.execute("CREATE VIRTUAL TABLE chunks_fts USING fts5(text, tokenize = 'porter unicode61')")
    rows = [
        " ".join(["dental", "violin", "choir", *rng.choices(FILLER, k=rng.randint(0, 60))])
        for _ in range(200)
    ]
    rows += [" ".join(rng.choices(FILLER, k=20)) for _ in range(2_000)]
    conn.executemany("INSERT INTO chunks_fts(text) VALUES (?)", [(row,) for row in rows])
    phrases = ['"dental"', '"violin"', '"choir"']
    pruned = keyword_pruning.ranked(conn, "chunks_fts", phrases, 100)
    assert pruned is not None
    assert len({rowid for rowid, _ in pruned}) == 100
    _same_ranking(pruned, _every_match(conn, phrases, 100))
    conn.close()
